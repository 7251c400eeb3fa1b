/* Error reporting shared by every layer.
 *
 * Two tiers (docs/style.md, "Errors"): broken invariants and out-of-memory abort with
 * file:line (SGD_ASSERT, sgd_xmalloc ...); bad input and environment problems are returned
 * to the caller as -1 plus a message in a caller-owned sgd_err_t, which the CLI prints
 * before exiting with code 2.  Messages name what was wrong where: "file: json.path: what". */
#ifndef SGDSIM_COMMON_ERROR_H
#define SGDSIM_COMMON_ERROR_H

#include <stddef.h>

#define SGD_ERR_MAX 1024

typedef struct sgd_err {
    char msg[SGD_ERR_MAX]; /* NUL-terminated; empty when no error was reported */
} sgd_err_t;

/* Exit codes of the sgdsim CLI, documented in the README. */
enum {
    SGD_EXIT_OK = 0,
    SGD_EXIT_FAILURE = 1,   /* a run failed for a reason that is not the user's input */
    SGD_EXIT_BAD_INPUT = 2, /* bad scenario, argument, data file or database path */
    SGD_EXIT_DIVERGED = 3,  /* the run stopped because a loss or gradient became NaN/Inf */
};

/* Formats into err (if err is not NULL) and returns -1, so callers can write
 * `return sgd_errf(err, "...", ...);`. */
int sgd_errf(sgd_err_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "sgdsim: <message>" on stderr and returns SGD_EXIT_BAD_INPUT: how the commands
 * and the layers that run them (render/, sweep/) end on bad input, `return
 * sgd_bad_input("...", ...);`. */
int sgd_bad_input(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prepends "prefix: " to an existing message (used to add the file name or an outer
 * JSON path to an error produced deeper down).  Returns -1. */
int sgd_err_prefix(sgd_err_t *err, const char *prefix);

/* Abort helpers: print file:line and the message to stderr, then abort(). */
_Noreturn void sgd_die(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define SGD_ASSERT(cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) sgd_die(__FILE__, __LINE__, "assertion failed: %s", #cond);          \
    } while (0)

/* Allocation that never returns NULL: out-of-memory is not an input error. */
void *sgd_xmalloc_at(size_t size, const char *file, int line);
void *sgd_xcalloc_at(size_t n, size_t size, const char *file, int line);
void *sgd_xrealloc_at(void *p, size_t size, const char *file, int line);
char *sgd_xstrdup_at(const char *s, const char *file, int line);
#define sgd_xmalloc(size) sgd_xmalloc_at((size), __FILE__, __LINE__)
#define sgd_xcalloc(n, size) sgd_xcalloc_at((n), (size), __FILE__, __LINE__)
#define sgd_xrealloc(p, size) sgd_xrealloc_at((p), (size), __FILE__, __LINE__)
#define sgd_xstrdup(s) sgd_xstrdup_at((s), __FILE__, __LINE__)

#endif
