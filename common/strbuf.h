/* A growable string: what a results page, its JSON data, the server's answers and a trace's
 * events are written into before they go to a file or a socket.  Growth aborts on
 * out-of-memory (common/error.h's first tier), so appending never fails.
 *
 * Ownership: the bytes belong to the buffer until sgd_strbuf_free (or sgd_strbuf_take). */
#ifndef SGDSIM_COMMON_STRBUF_H
#define SGDSIM_COMMON_STRBUF_H

#include <stddef.h>

typedef struct sgd_strbuf {
    char *p;  /* NUL-terminated whenever anything was written */
    size_t n; /* bytes written, the NUL excluded */
    size_t cap;
} sgd_strbuf_t;

void sgd_strbuf_put(sgd_strbuf_t *b, const void *data, size_t n);
void sgd_strbuf_puts(sgd_strbuf_t *b, const char *s);
void sgd_strbuf_putc(sgd_strbuf_t *b, char c);
void sgd_strbuf_printf(sgd_strbuf_t *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Empties the buffer and keeps its memory for what is written next. */
void sgd_strbuf_clear(sgd_strbuf_t *b);

/* The bytes as a malloc'ed NUL-terminated string (never NULL); the buffer is left empty. */
char *sgd_strbuf_take(sgd_strbuf_t *b);

void sgd_strbuf_free(sgd_strbuf_t *b);

#endif
