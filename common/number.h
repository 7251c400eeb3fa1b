/* Numbers as text: strict parsing of the numbers people type (command-line values and
 * environment variables), and the shortest text of a double that reads back as it.
 *
 * The C library's strtod and strtoull accept more than a person means by "a number": leading
 * white space (" 5"), hexadecimal ("0x10" is 16), "inf" and "nan", and, for strtoull, a minus
 * sign that wraps around ("-1" is 18446744073709551615).  A value that reads as something else
 * than it looks must be refused, not reinterpreted, so every typed number goes through these.
 *
 * Accepted: a plain decimal, [+-]digits[.digits][(e|E)[+-]digits], or [+-].digits with the
 * same exponent, finite; for the unsigned form, digits only, within 64 bits.  Nothing else:
 * no white space anywhere, no hex, no "inf" or "nan", no empty string. */
#ifndef SGDSIM_COMMON_NUMBER_H
#define SGDSIM_COMMON_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A finite decimal into *out; false (and *out untouched) otherwise. */
bool sgd_parse_decimal(const char *s, double *out);

/* A non-negative decimal integer (digits only) that fits 64 bits into *out; false otherwise. */
bool sgd_parse_u64(const char *s, uint64_t *out);

/* Room for any text sgd_fmt_double writes, NUL included. */
#define SGD_FMT_DOUBLE_MAX 32

/* d as the shortest text that strtod reads back as exactly d: "0.32" (not
 * "0.32000000000000001"), "0.30000000000000004" (0.1 + 0.2 needs 17 digits), "1e-07", "4",
 * "-0", "5e-324"; %g's form, so never more than 17 significant digits.  Non-finite values
 * are "nan", "inf" and "-inf" (as the results database's nonfinite column spells them and
 * Python's float() reads them); they are not JSON, so a JSON writer prints something else
 * for them (null, or the text as a string) and must check isfinite first.  size at least
 * SGD_FMT_DOUBLE_MAX.  Returns buf. */
char *sgd_fmt_double(char *buf, size_t size, double d);

#endif
