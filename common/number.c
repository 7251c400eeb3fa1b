/* Strict number parsing (number.h): a shape check first, then the C library's conversion on
 * a string it can only read one way. */
#include "common/number.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

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

/* Why start at 15 digits: %g drops trailing zeros, and a normal double whose shortest form D
 * has k <= 15 significant digits is within half an ulp (2^-53 of it, about 1.1e-16) of D,
 * less than half the spacing of 15-digit decimals there (at least 0.5e-15 of it), so %.15g
 * rounds it to D exactly; one that needs more digits takes 16 or, always enough, 17.  A
 * subnormal has fewer bits, so shorter forms may read back too: those start at 1 digit.
 * The fewest digits are the shortest text but where %g then chose an exponent that more
 * digits would not need ("4.27783444309975e+15", "4277834443099750"), so a form with an
 * exponent is compared with the next ones. */
char *sgd_fmt_double(char *buf, size_t size, double d)
{
    SGD_ASSERT(size >= SGD_FMT_DOUBLE_MAX);
    if (isnan(d)) {
        snprintf(buf, size, "nan");
    } else if (isinf(d)) {
        snprintf(buf, size, d > 0 ? "inf" : "-inf");
    } else {
        buf[0] = '\0';
        for (int prec = fabs(d) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
            char text[SGD_FMT_DOUBLE_MAX];
            snprintf(text, sizeof text, "%.*g", prec, d);
            if (strtod(text, NULL) != d || (buf[0] && strlen(text) >= strlen(buf))) continue;
            memcpy(buf, text, strlen(text) + 1);
            if (!strchr(buf, 'e')) break;
        }
    }
    return buf;
}
