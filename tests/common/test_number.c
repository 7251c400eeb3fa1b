/* Strict number parsing (common/number.h): plain decimals and integers are read exactly;
 * white space, hexadecimal, inf/nan, signs on unsigned values, overflow and stray characters
 * are refused and leave the output untouched. */
#include <math.h>
#include <stdint.h>

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

int main(void)
{
    decimals_are_read();
    other_shapes_are_refused();
    unsigned_integers_are_digits_only();
    return check_exit();
}
