/* A growable byte buffer (web/buf.h). */
#include "web/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

/* Room for n more bytes and the NUL; capacity doubles, so appending is linear overall. */
static void reserve(web_buf_t *b, size_t n)
{
    if (b->n + n + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1) cap *= 2;
    b->p = sgd_xrealloc(b->p, cap);
    b->cap = cap;
}

void web_buf_put(web_buf_t *b, const void *data, size_t n)
{
    reserve(b, n);
    if (n) memcpy(b->p + b->n, data, n);
    b->n += n;
    b->p[b->n] = '\0';
}

void web_buf_puts(web_buf_t *b, const char *s)
{
    web_buf_put(b, s, strlen(s));
}

void web_buf_printf(web_buf_t *b, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    SGD_ASSERT(len >= 0);
    reserve(b, (size_t)len);
    vsnprintf(b->p + b->n, (size_t)len + 1, fmt, again);
    va_end(again);
    b->n += (size_t)len;
}

char *web_buf_take(web_buf_t *b)
{
    char *s = b->p ? b->p : sgd_xstrdup("");
    *b = (web_buf_t){0};
    return s;
}

void web_buf_free(web_buf_t *b)
{
    free(b->p);
    *b = (web_buf_t){0};
}
