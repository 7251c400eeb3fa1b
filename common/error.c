/* Implementation of the two error tiers declared in error.h. */
#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sgd_errf(sgd_err_t *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int sgd_bad_input(const char *fmt, ...)
{
    va_list ap;
    fputs("sgdsim: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return SGD_EXIT_BAD_INPUT;
}

int sgd_err_prefix(sgd_err_t *err, const char *prefix)
{
    if (!err) return -1;
    char tmp[SGD_ERR_MAX];
    if (snprintf(tmp, sizeof tmp, "%s: %s", prefix, err->msg) >= (int)sizeof tmp)
        memcpy(tmp + sizeof tmp - 4, "...", 4); /* show that the message was cut */
    memcpy(err->msg, tmp, sizeof tmp);
    return -1;
}

void sgd_die(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sgdsim: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void *sgd_xmalloc_at(size_t size, const char *file, int line)
{
    void *p = malloc(size ? size : 1);
    if (!p) sgd_die(file, line, "out of memory allocating %zu bytes", size);
    return p;
}

void *sgd_xcalloc_at(size_t n, size_t size, const char *file, int line)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) sgd_die(file, line, "out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

void *sgd_xrealloc_at(void *p, size_t size, const char *file, int line)
{
    void *q = realloc(p, size ? size : 1);
    if (!q) sgd_die(file, line, "out of memory reallocating to %zu bytes", size);
    return q;
}

char *sgd_xstrdup_at(const char *s, const char *file, int line)
{
    size_t n = strlen(s) + 1;
    char *p = sgd_xmalloc_at(n, file, line);
    memcpy(p, s, n);
    return p;
}
