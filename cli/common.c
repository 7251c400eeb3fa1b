/* Helpers shared by the subcommands: error printing, number parsing, build provenance. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "common/error.h"
#include "sgd_build_info.h"

int cli_bad_input(const char *fmt, ...)
{
    va_list ap;
    fputs("sgdsim: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return SGD_EXIT_BAD_INPUT;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

const char *cli_version(void) { return SGD_VERSION; }
const char *cli_git_rev(void) { return SGD_GIT_REV; }

const char *cli_build_options(void) { return SGD_BUILD_OPTIONS; }
