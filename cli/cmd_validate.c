/* `sgdsim validate SCENARIO [--set k=v ...] [--backend NAME] [--print]`: load and check a
 * scenario without running it; --print shows the resolved configuration with every default
 * filled in.  "backend": "cuda" is valid here even without a GPU (only `run` needs one). */
#include <stdio.h>

#include "algorithms/alg.h"
#include "cli/cli.h"
#include "config/scenario.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim validate SCENARIO [--set key.path=value ...] [--backend NAME] "
               "[--print]\n\n"
               "Checks SCENARIO (types, ranges, unknown keys) without running it.\n"
               "  --set key.path=value  override a field, validated like the file\n"
               "  --backend NAME        same as --set backend=NAME (cpu or cuda)\n"
               "  --print               print the resolved configuration (defaults filled in)\n");
}

int cli_validate_main(int argc, char **argv)
{
    cli_opts_t o;
    int rc = cli_parse_opts("validate", argc, argv, CLI_OPT_PRINT | CLI_OPT_BACKEND, &o);
    if (rc == 0 && o.help) usage(stdout);
    if (rc != 0 || o.help) goto out;
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load(o.scenario, o.sets, o.nsets, NULL, alg_scenario_table, &s, &err)) {
        rc = cli_bad_input("%s", err.msg);
        goto out;
    }
    if (o.print)
        printf("%s\n", s.resolved_json);
    else
        printf("%s: ok (algorithm %s, %lld workers, config %.12s)\n", o.scenario, s.algorithm,
               (long long)s.workers, s.config_hash);
    scn_free(&s);
out:
    cli_opts_free(&o);
    return rc;
}
