/* Why a --set value is refused when it is neither a JSON value nor a plain word, and what to
 * write instead, so the message fits the mistake: a list ("1,2,3", "[16],[8]") is sweep's
 * syntax, one run per value; a range ("1..3", "1-3", "1:3") is no command's, so its values
 * are listed as sweep takes them; anything else is a string that needs quotes. */
#ifndef SGDSIM_CONFIG_SET_VALUE_H
#define SGDSIM_CONFIG_SET_VALUE_H

#include "common/error.h"

/* Sets err to "--set ASSIGNMENT: not a valid JSON value..." with the hint for text, the
 * value of KEY; returns -1. */
int scn_set_value_error(const char *assignment, const char *key, const char *text,
                        sgd_err_t *err);

#endif
