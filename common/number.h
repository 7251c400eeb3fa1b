/* Strict parsing of the numbers people type: command-line values and environment variables.
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
#include <stdint.h>

/* A finite decimal into *out; false (and *out untouched) otherwise. */
bool sgd_parse_decimal(const char *s, double *out);

/* A non-negative decimal integer (digits only) that fits 64 bits into *out; false otherwise. */
bool sgd_parse_u64(const char *s, uint64_t *out);

#endif
