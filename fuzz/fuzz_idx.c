/* libFuzzer target: the IDX reader (plain and gzip).  The input is written to an anonymous
 * in-memory file and read back by path, exactly as a dataset file would be. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "models/idx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("sgdsim-fuzz-idx", 0);
    if (fd < 0) return 0;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    idx_array_t a;
    sgd_err_t err = {{0}};
    if (idx_read_u8(path, &a, &err) == 0)
        idx_array_free(&a);
    else if (!err.msg[0])
        abort();
    close(fd);
    return 0;
}
