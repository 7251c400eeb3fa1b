/* `sgdsim validate SCENARIO [--set k=v ...] [--print]`: load and check a scenario without
 * running it; --print shows the resolved configuration with every default filled in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "config/scenario.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim validate SCENARIO [--set key.path=value ...] [--print]\n\n"
               "Checks SCENARIO (types, ranges, unknown keys) without running it.\n"
               "  --set key.path=value  override a field, validated like the file\n"
               "  --print               print the resolved configuration (defaults filled in)\n");
}

int cli_validate_main(int argc, char **argv)
{
    const char *path = NULL;
    bool print = false;
    scn_override_t *sets = calloc((size_t)argc + 1, sizeof *sets);
    int nsets = 0, rc = SGD_EXIT_OK;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            goto out;
        } else if (strcmp(argv[i], "--print") == 0) {
            print = true;
        } else if (strcmp(argv[i], "--set") == 0) {
            if (++i >= argc) { rc = cli_bad_input("--set: missing key.path=value"); goto out; }
            sets[nsets++].assignment = argv[i];
        } else if (strncmp(argv[i], "--set=", 6) == 0) {
            sets[nsets++].assignment = argv[i] + 6;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_bad_input("validate: unknown option %s", argv[i]);
            goto out;
        } else if (path) {
            rc = cli_bad_input("validate: only one SCENARIO expected, got %s and %s", path,
                               argv[i]);
            goto out;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        usage(stderr);
        rc = SGD_EXIT_BAD_INPUT;
        goto out;
    }
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load(path, sets, nsets, NULL, &s, &err)) {
        rc = cli_bad_input("%s", err.msg);
        goto out;
    }
    if (print)
        printf("%s\n", s.resolved_json);
    else
        printf("%s: ok (algorithm %s, %lld workers, config %.12s)\n", path, s.algorithm,
               (long long)s.workers, s.config_hash);
    scn_free(&s);
out:
    free(sets);
    return rc;
}
