/* `sgdsim validate SCENARIO [--set k=v ...] [--backend NAME] [--blas-core NAME] [--threads N]
 * [--print]`: load and check a scenario without running it; --print shows the resolved
 * configuration with every default filled in.  "backend": "cuda" is valid here even without
 * a GPU (only `run` needs one).  The BLAS kernel is resolved and started exactly as for
 * `run` (cli/machine.h), so a scenario that validates gets its kernel. */
#include <stdio.h>

#include "cli/cli.h"
#include "config/scenario.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim validate SCENARIO [--set key.path=value ...] [--backend NAME]\n"
               "                       [--blas-core NAME] [--threads N] [--print]\n\n"
               "Checks SCENARIO (types, ranges, unknown keys, a BLAS kernel this machine\n"
               "runs) without running it.\n"
               "  --set key.path=value  override a field, validated like the file\n"
               "  --backend NAME        same as --set backend=NAME (cpu or cuda)\n"
               "  --blas-core NAME      like --set numerics.blas_core=NAME (auto, Haswell, ...)\n"
               "  -t, --threads N       same as --set numerics.threads=N (0 = auto)\n"
               "  --print               print the resolved configuration (defaults filled in)\n");
}

int cli_validate_main(int argc, char **argv)
{
    cli_opts_t o;
    int rc = cli_parse_opts("validate", argc, argv,
                            CLI_OPT_PRINT | CLI_OPT_BACKEND | CLI_OPT_NUMERICS, &o);
    if (rc == 0 && o.help) usage(stdout);
    if (rc != 0 || o.help) goto out;
    scn_t s;
    if ((rc = cli_load_scenario(&o, &s)) != 0) goto out;
    if (o.print)
        printf("%s\n", s.resolved_json);
    else
        printf("%s: ok (algorithm %s, %lld workers, BLAS kernel %s, %lld threads, config "
               "%.12s)\n", o.scenario, s.algorithm, (long long)s.workers,
               s.numerics.blas_core, (long long)s.numerics.threads_resolved, s.config_hash);
    scn_free(&s);
out:
    cli_opts_free(&o);
    return rc;
}
