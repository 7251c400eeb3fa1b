/* Text safety (see text.h): control characters and the escaped form for terminals; UTF-8
 * well-formedness is common/json.h's sgd_utf8_len. */
#include "render/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json.h"

bool rnd_is_control(const char *s, size_t len)
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

char *rnd_text_escape(const char *s)
{
    /* The longest escape, \u009f, is 6 bytes for the 2 it replaces; \xHH is 4 for 1. */
    char *out = sgd_xmalloc(4 * strlen(s) + 1), *o = out;
    while (*s) {
        size_t len = sgd_utf8_len(s);
        if (len && !rnd_is_control(s, len)) {
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

/* Whether word needs no quotes in a POSIX shell. */
static bool shell_bare(const char *word)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_-./=:,+@%";
    return *word && strspn(word, safe) == strlen(word);
}

char *rnd_shell_words(const char *prefix, int argc, char *const *argv)
{
    size_t cap = strlen(prefix) + 1;
    for (int i = 0; i < argc; i++) cap += 4 * strlen(argv[i]) + 3;
    char *out = sgd_xmalloc(cap), *p = out;
    p += snprintf(out, cap, "%s", prefix);
    for (int i = 0; i < argc; i++) {
        *p++ = ' ';
        if (shell_bare(argv[i])) {
            size_t n = strlen(argv[i]);
            memcpy(p, argv[i], n);
            p += n;
            continue;
        }
        *p++ = '\'';
        for (const char *c = argv[i]; *c; c++) {
            if (*c == '\'') {
                memcpy(p, "'\\''", 4);
                p += 4;
            } else {
                *p++ = *c;
            }
        }
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}
