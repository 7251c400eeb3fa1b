/* Exactly one CBLAS may serve sgdsim: libgsl drags in libgslcblas as a dependency, so this
 * checks that cblas_sgemm as seen by the program is OpenBLAS's (link order in CMake). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include <cblas.h>

#include "tests/check.h"

int main(void)
{
    Dl_info info;
    /* ISO C has no cast from a function pointer to void *; POSIX gives both one
     * representation, so copy the bytes. */
    void (*fn)(void) = (void (*)(void))cblas_sgemm;
    void *addr;
    _Static_assert(sizeof addr == sizeof fn, "function and data pointers differ in size");
    memcpy(&addr, &fn, sizeof addr);
    CHECK(dladdr(addr, &info) != 0);
    fprintf(stderr, "cblas_sgemm comes from %s\n", info.dli_fname ? info.dli_fname : "?");
    CHECK_STR_CONTAINS(info.dli_fname, "openblas");
    void *sym = dlsym(RTLD_DEFAULT, "cblas_sgemm");
    CHECK(sym != NULL && dladdr(sym, &info) != 0);
    CHECK_STR_CONTAINS(info.dli_fname, "openblas");
    return check_exit();
}
