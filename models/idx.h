/* Reader for the IDX file format used by MNIST and Fashion-MNIST (http://yann.lecun.com/exdb/mnist/).
 *
 * An IDX file is a 4-byte magic (0x00 0x00 <type> <ndims>), ndims big-endian uint32 sizes,
 * then the data in row-major order.  Only the unsigned-byte type (0x08) is supported, which is
 * all those datasets use.  Files may be plain or gzip-compressed: zlib's gzread reads both, so
 * callers never need to know which one they were given.
 *
 * Validation is strict because a wrong or damaged data file should fail loudly at load time,
 * not show up hours later as a strange learning curve.  Every error message starts with the
 * file's path. */
#ifndef SGDSIM_MODELS_IDX_H
#define SGDSIM_MODELS_IDX_H

#include <stdint.h>

#include "common/error.h"

#define IDX_MAX_DIMS 4
/* Refuse files that claim more elements than this before allocating anything: every real
 * dataset we read is far smaller, and a corrupt header must not trigger a huge allocation. */
#define IDX_MAX_ELEMENTS (INT64_C(1) << 31)

typedef struct idx_array {
    int ndims;                 /* 1..IDX_MAX_DIMS */
    int64_t dims[IDX_MAX_DIMS]; /* dims[0..ndims-1], each > 0; unused entries are 0 */
    uint8_t *data;             /* product(dims) bytes, row-major; owned, free with idx_array_free */
} idx_array_t;

/* Number of elements, the product of dims[0..ndims-1]. */
int64_t idx_array_size(const idx_array_t *a);

/* Reads an unsigned-byte IDX file (plain or .gz) into *out.  Returns 0, or -1 with a message
 * in err naming the path -- a bad header, data cut short or longer than the header says, or
 * memory that cannot be allocated (never an abort); on failure *out is left empty (data
 * NULL), so idx_array_free is always safe to call. */
int idx_read_u8(const char *path, idx_array_t *out, sgd_err_t *err);

/* The same from an open file descriptor, read from its start; fd stays open and owned by the
 * caller (a duplicate is read).  For callers that must decode exactly the file they have
 * already opened, and hashed (data_cache.c), even if the path is replaced meanwhile. */
int idx_read_u8_fd(int fd, const char *path, idx_array_t *out, sgd_err_t *err);

/* Reads only the header of the IDX file at path (plain or .gz: a few bytes inflated) into
 * out's ndims and dims; out->data stays NULL.  For estimating what loading the file costs
 * before inflating it (algorithms/runner.c: the memory guard).  Returns 0, or -1 with the
 * same messages as idx_read_u8 for a header that is bad or cut short. */
int idx_read_shape(const char *path, idx_array_t *out, sgd_err_t *err);

/* Releases out->data and empties the struct.  Safe on an already-freed or zeroed array. */
void idx_array_free(idx_array_t *a);

#endif
