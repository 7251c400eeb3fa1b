/* Escaping for HTML text, attributes and JSON in a <script> (web/escape.h). */
#include "web/escape.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/json.h"

#define REPLACEMENT_CHAR 0xFFFDu

/* Decodes the UTF-8 sequence at s: its code point into *cp and its length, or U+FFFD and 1
 * for a byte that starts no valid sequence (overlong forms and surrogates included). */
static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                 : (c & 0xF8) == 0xF0                 ? 4
                                                      : 0;
    static const uint32_t min_of_len[] = {0, 0, 0x80, 0x800, 0x10000};
    if (len == 1) {
        *cp = c;
        return 1;
    }
    uint32_t v = len ? c & (0x7Fu >> len) : 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) len = 0;
        if (!len) break;
        v = (v << 6) | (s[k] & 0x3Fu);
    }
    if (!len || v < min_of_len[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        *cp = REPLACEMENT_CHAR;
        return 1;
    }
    *cp = v;
    return len;
}

/* The code point as UTF-8. */
static void put_utf8(sgd_strbuf_t *b, uint32_t cp)
{
    unsigned char o[4];
    size_t n;
    if (cp < 0x80) o[0] = (unsigned char)cp, n = 1;
    else if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        o[0] = (unsigned char)(0xF0 | (cp >> 18));
        o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[3] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    sgd_strbuf_put(b, o, n);
}

void web_html_text(sgd_strbuf_t *b, const char *s)
{
    if (!s) return;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp;
        p += utf8_next(p, &cp);
        switch (cp) {
        case '&': sgd_strbuf_puts(b, "&amp;"); break;
        case '<': sgd_strbuf_puts(b, "&lt;"); break;
        case '>': sgd_strbuf_puts(b, "&gt;"); break;
        case '"': sgd_strbuf_puts(b, "&quot;"); break;
        case '\'': sgd_strbuf_puts(b, "&#39;"); break;
        default: put_utf8(b, cp);
        }
    }
}

/* Whether cp must be written as \uXXXX inside a JSON string in a <script>. */
static bool json_needs_escape(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7F || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 ||
           cp == 0x2029;
}

void web_json_string(sgd_strbuf_t *b, const char *s)
{
    if (!s) {
        sgd_strbuf_puts(b, "null");
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    sgd_strbuf_put(b, "\"", 1);
    while (*p) {
        uint32_t cp;
        p += utf8_next(p, &cp);
        if (cp == '"') sgd_strbuf_puts(b, "\\\"");
        else if (cp == '\\') sgd_strbuf_puts(b, "\\\\");
        else if (json_needs_escape(cp)) sgd_strbuf_printf(b, "\\u%04x", (unsigned)cp);
        else put_utf8(b, cp);
    }
    sgd_strbuf_put(b, "\"", 1);
}

void web_json_number(sgd_strbuf_t *b, double d)
{
    char num[SGD_JSON_NUMBER_MAX];
    if (!isfinite(d)) sgd_strbuf_puts(b, "null");
    else sgd_strbuf_puts(b, sgd_json_format_number(d, num));
}

void web_json_number_digits(sgd_strbuf_t *b, double d, int digits)
{
    if (!isfinite(d)) sgd_strbuf_puts(b, "null");
    else sgd_strbuf_printf(b, "%.*g", digits, d); /* "1e-05", "-0": JSON numbers too */
}

void web_base64(sgd_strbuf_t *b, const void *data, size_t n)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *d = data;
    char out[4];
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) |
                     (i + 2 < n ? d[i + 2] : 0);
        out[0] = b64[v >> 18 & 63], out[1] = b64[v >> 12 & 63];
        out[2] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        out[3] = i + 2 < n ? b64[v & 63] : '=';
        sgd_strbuf_put(b, out, 4);
    }
}
