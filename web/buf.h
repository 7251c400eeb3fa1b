/* A growable byte buffer: what the page, its JSON data and the server's answers are written
 * into before they go to a file or a socket.  Growth aborts on out-of-memory (common/error.h's
 * first tier), so appending never fails.
 *
 * Ownership: the bytes belong to the buffer until web_buf_free (or web_buf_take). */
#ifndef SGDSIM_WEB_BUF_H
#define SGDSIM_WEB_BUF_H

#include <stddef.h>

typedef struct web_buf {
    char *p;  /* NUL-terminated whenever anything was written */
    size_t n; /* bytes written, the NUL excluded */
    size_t cap;
} web_buf_t;

void web_buf_put(web_buf_t *b, const void *data, size_t n);
void web_buf_puts(web_buf_t *b, const char *s);
void web_buf_printf(web_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The bytes as a malloc'ed NUL-terminated string (never NULL); the buffer is left empty. */
char *web_buf_take(web_buf_t *b);

void web_buf_free(web_buf_t *b);

#endif
