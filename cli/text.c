/* Text safety (see text.h): UTF-8 well-formedness, control characters and the escaped form
 * for terminals. */
#include "cli/text.h"

#include <stdio.h>
#include <string.h>

#include "common/error.h"

/* Continuation bytes 10xxxxxx. */
static bool cont(unsigned char c) { return (c & 0xC0) == 0x80; }

size_t cli_utf8_len(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] == 0) return 0;
    if (u[0] < 0x80) return 1;
    /* The second byte's range is narrowed where the lead byte alone would allow overlong
     * forms (E0, F0), surrogates (ED) or code points past U+10FFFF (F4): RFC 3629's table. */
    if (u[0] >= 0xC2 && u[0] <= 0xDF) return cont(u[1]) ? 2 : 0;
    if (u[0] >= 0xE0 && u[0] <= 0xEF) {
        unsigned char lo = u[0] == 0xE0 ? 0xA0 : 0x80, hi = u[0] == 0xED ? 0x9F : 0xBF;
        return u[1] >= lo && u[1] <= hi && cont(u[2]) ? 3 : 0;
    }
    if (u[0] >= 0xF0 && u[0] <= 0xF4) {
        unsigned char lo = u[0] == 0xF0 ? 0x90 : 0x80, hi = u[0] == 0xF4 ? 0x8F : 0xBF;
        return u[1] >= lo && u[1] <= hi && cont(u[2]) && cont(u[3]) ? 4 : 0;
    }
    return 0;
}

bool cli_is_control(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    if (len == 1) return u[0] < 0x20 || u[0] == 0x7F;
    return len == 2 && u[0] == 0xC2 && u[1] < 0xA0;
}

/* Writes the escape for the unit of len bytes at s (len 0: one invalid byte) into out,
 * which has room for 7 bytes; returns the bytes written. */
static size_t escape_unit(const char *s, size_t len, char *out)
{
    unsigned char c = (unsigned char)s[0];
    if (len == 2) return (size_t)snprintf(out, 7, "\\u%04x", (unsigned char)s[1]);
    if (c == '\n') return (size_t)snprintf(out, 7, "\\n");
    if (c == '\t') return (size_t)snprintf(out, 7, "\\t");
    if (c == '\r') return (size_t)snprintf(out, 7, "\\r");
    return (size_t)snprintf(out, 7, "\\x%02x", c);
}

char *cli_text_escape(const char *s)
{
    /* The longest escape, \u009f, is 6 bytes for the 2 it replaces; \xHH is 4 for 1. */
    char *out = sgd_xmalloc(4 * strlen(s) + 1), *o = out;
    while (*s) {
        size_t len = cli_utf8_len(s);
        if (len && !cli_is_control(s, len)) {
            memcpy(o, s, len);
            o += len;
        } else {
            char buf[8];
            size_t n = escape_unit(s, len, buf);
            memcpy(o, buf, n);
            o += n;
        }
        s += len ? len : 1;
    }
    *o = '\0';
    return out;
}
