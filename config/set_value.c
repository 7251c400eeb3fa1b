/* The message for a --set value that is neither JSON nor a word (set_value.h). */
#include "config/set_value.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether text has a comma outside brackets, braces and strings: a list, as sweep's --set
 * takes one ("1,2,3", "[16],[8]"). */
static bool top_level_comma(const char *text)
{
    int depth = 0;
    bool in_str = false;
    for (const char *c = text; *c; c++) {
        if (in_str) {
            if (*c == '\\' && c[1]) c++;
            else if (*c == '"') in_str = false;
        } else if (*c == '"') {
            in_str = true;
        } else if (*c == '[' || *c == '{') {
            depth++;
        } else if (*c == ']' || *c == '}') {
            depth--;
        } else if (*c == ',' && depth == 0) {
            return true;
        }
    }
    return false;
}

/* Whether text is a range of two numbers, "1..3" (or "1-3", "1:3"), which no command takes;
 * *lo and *hi are its ends. */
static bool range_like(const char *text, double *lo, double *hi)
{
    const char *sep = strstr(text, "..");
    size_t n = 2;
    if (!sep) sep = text[0] ? strpbrk(text + 1, "-:") : NULL, n = 1;
    char left[64], *end;
    size_t len = sep ? (size_t)(sep - text) : sizeof left;
    if (len >= sizeof left || !(text[0] >= '0' && text[0] <= '9') ||
        !(sep[n] >= '0' && sep[n] <= '9'))
        return false;
    memcpy(left, text, len);
    left[len] = '\0';
    *lo = strtod(left, &end);
    if (*end) return false;
    *hi = strtod(sep + n, &end);
    return *end == '\0';
}

int scn_set_value_error(const char *assignment, const char *key, const char *text,
                        sgd_err_t *err)
{
    double lo, hi;
    if (top_level_comma(text))
        return sgd_errf(err, "--set %s: not a valid JSON value: one value here; to run once "
                        "per value, give the list to sgdsim sweep SCENARIO --set %s (values "
                        "separated by commas)", assignment, assignment);
    if (range_like(text, &lo, &hi)) {
        char list[512] = "v1,v2,...";
        bool whole = lo == floor(lo) && hi == floor(hi) && hi > lo && hi - lo < 20 && hi < 1e15;
        size_t len = 0;
        for (double v = lo; whole && v <= hi && len < sizeof list; v++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%.0f", v > lo ? "," : "",
                                    v);
        return sgd_errf(err, "--set %s: not a valid JSON value: there are no ranges; list the "
                        "values, as sgdsim sweep SCENARIO --set %s=%s takes them (one run "
                        "each)", assignment, key, list);
    }
    return sgd_errf(err, "--set %s: not a valid JSON value (quote a string that starts with a "
                    "digit, sign, quote or bracket: %s='\"...\"')", assignment, key);
}
