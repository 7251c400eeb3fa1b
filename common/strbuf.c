/* A growable string (common/strbuf.h). */
#include "common/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

/* Room for n more bytes and the NUL; capacity doubles, so appending is linear overall. */
static void reserve(sgd_strbuf_t *b, size_t n)
{
    if (b->n + n + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1) cap *= 2;
    b->p = sgd_xrealloc(b->p, cap);
    b->cap = cap;
}

void sgd_strbuf_put(sgd_strbuf_t *b, const void *data, size_t n)
{
    reserve(b, n);
    if (n) memcpy(b->p + b->n, data, n);
    b->n += n;
    b->p[b->n] = '\0';
}

void sgd_strbuf_puts(sgd_strbuf_t *b, const char *s)
{
    sgd_strbuf_put(b, s, strlen(s));
}

void sgd_strbuf_putc(sgd_strbuf_t *b, char c)
{
    sgd_strbuf_put(b, &c, 1);
}

/* Formats into a small stack buffer first: most pieces are short (a trace writes several
 * per event), and that formats them once instead of measuring them first. */
void sgd_strbuf_printf(sgd_strbuf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[128];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    SGD_ASSERT(n >= 0);
    if ((size_t)n < sizeof small) {
        sgd_strbuf_put(b, small, (size_t)n);
        return;
    }
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

void sgd_strbuf_clear(sgd_strbuf_t *b)
{
    b->n = 0;
    if (b->p) b->p[0] = '\0';
}

char *sgd_strbuf_take(sgd_strbuf_t *b)
{
    char *s = b->p ? b->p : sgd_xstrdup("");
    *b = (sgd_strbuf_t){0};
    return s;
}

void sgd_strbuf_free(sgd_strbuf_t *b)
{
    free(b->p);
    *b = (sgd_strbuf_t){0};
}
