/* Strict number parsing (common/number.h): plain decimals and integers are read exactly;
 * white space, hexadecimal, inf/nan, signs on unsigned values, overflow and stray characters
 * are refused and leave the output untouched; doubles print as the shortest text that reads
 * back as the same bits. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"
#include "tests/check.h"

static void decimals_are_read(void)
{
    double d = 0;
    CHECK(sgd_parse_decimal("5", &d) && d == 5.0);
    CHECK(sgd_parse_decimal("0.25", &d) && d == 0.25);
    CHECK(sgd_parse_decimal("-1.5", &d) && d == -1.5);
    CHECK(sgd_parse_decimal("+2", &d) && d == 2.0);
    CHECK(sgd_parse_decimal(".5", &d) && d == 0.5);
    CHECK(sgd_parse_decimal("5.", &d) && d == 5.0);
    CHECK(sgd_parse_decimal("1e3", &d) && d == 1000.0);
    CHECK(sgd_parse_decimal("2.5E-1", &d) && d == 0.25);
}

static void other_shapes_are_refused(void)
{
    static const char *const bad[] = {"", " 5", "5 ", "0x10", "0X1p3", "inf", "-inf", "nan",
                                      "infinity", "1e", "1e+", ".", "-", "+", "1.2.3", "5s",
                                      "1,5", "\t1", "1e999", "--1", NULL};
    for (int i = 0; bad[i]; i++) {
        double d = 42.0;
        CHECK(!sgd_parse_decimal(bad[i], &d));
        CHECK(d == 42.0);
    }
    CHECK(!sgd_parse_decimal(NULL, &(double){0}));
}

static void unsigned_integers_are_digits_only(void)
{
    uint64_t v = 0;
    CHECK(sgd_parse_u64("0", &v) && v == 0);
    CHECK(sgd_parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
    CHECK(sgd_parse_u64("007", &v) && v == 7);
    static const char *const bad[] = {"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "1.0",
                                      "18446744073709551616", "abc", NULL};
    for (int i = 0; bad[i]; i++) {
        v = 42;
        CHECK(!sgd_parse_u64(bad[i], &v));
        CHECK_INT_EQ((long long)v, 42);
    }
}

/* Doubles print as the shortest text that reads back as the same bits. */
static void doubles_print_shortest(void)
{
    static const struct {
        double d;
        const char *text;
    } cases[] = {
        {0.32, "0.32"}, {0.1 + 0.2, "0.30000000000000004"}, {1e-7, "1e-07"}, {4, "4"},
        {-0.0, "-0"}, {0, "0"}, {1.0 / 3, "0.3333333333333333"}, {5e-324, "5e-324"},
        {1e300, "1e+300"}, {123456.789, "123456.789"}, {DBL_MAX, "1.7976931348623157e+308"},
        {NAN, "nan"}, {INFINITY, "inf"}, {-INFINITY, "-inf"},
    };
    char buf[SGD_FMT_DOUBLE_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK_STR_EQ(sgd_fmt_double(buf, sizeof buf, cases[i].d), cases[i].text);
    /* Any bits (normal, subnormal, huge): read back exactly, and no %g form with fewer
     * digits is both shorter and read back. */
    uint64_t x = 0x9e3779b97f4a7c15u;
    int bad = 0;
    for (int i = 0; i < 50000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double d;
        memcpy(&d, &x, sizeof d);
        if (!isfinite(d)) continue;
        sgd_fmt_double(buf, sizeof buf, d);
        bool shortest = strtod(buf, NULL) == d;
        for (int prec = 1; prec < 17 && shortest; prec++) {
            char other[400];
            snprintf(other, sizeof other, "%.*g", prec, d);
            shortest = strlen(other) >= strlen(buf) || strtod(other, NULL) != d;
        }
        bad += !shortest;
    }
    CHECK_INT_EQ(bad, 0);
}

int main(void)
{
    decimals_are_read();
    other_shapes_are_refused();
    unsigned_integers_are_digits_only();
    doubles_print_shortest();
    return check_exit();
}
