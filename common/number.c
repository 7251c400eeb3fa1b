/* Strict number parsing (number.h): a shape check first, then the C library's conversion on
 * a string it can only read one way. */
#include "common/number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Skips a run of digits; returns how many there were. */
static int digits(const char **p)
{
    int n = 0;
    while (is_digit(**p)) (*p)++, n++;
    return n;
}

/* Does s have the shape of a plain decimal, end to end? */
static bool decimal_shape(const char *s)
{
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    int whole = digits(&p), frac = 0;
    if (*p == '.') {
        p++;
        frac = digits(&p);
    }
    if (whole == 0 && frac == 0) return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (digits(&p) == 0) return false;
    }
    return *p == '\0';
}

bool sgd_parse_decimal(const char *s, double *out)
{
    if (!s || !decimal_shape(s)) return false;
    errno = 0;
    double v = strtod(s, NULL);
    if (errno == ERANGE || !isfinite(v)) return false;
    *out = v;
    return true;
}

bool sgd_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s) return false;
    for (const char *p = s; *p; p++)
        if (!is_digit(*p)) return false;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE) return false;
    *out = (uint64_t)v;
    return true;
}
