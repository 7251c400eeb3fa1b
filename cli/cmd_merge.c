/* `sgdsim merge OUT.db IN.db...`: copies the finished runs of each IN into OUT (created if
 * missing), e.g. the shards of a sweep run as a Slurm array.  Idempotent: a run OUT already
 * holds is skipped (results/rdb_merge.h says how runs are matched), so merging twice
 * changes nothing.  Each IN is merged in one transaction. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "results/rdb_merge.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim merge OUT.db IN.db...\n\n"
               "Copies every finished run (complete, diverged, failed) of each IN database,\n"
               "with its metrics, traffic and staleness rows, into OUT (created if missing).\n"
               "Runs OUT already holds (same run_key, host, start time and digest) and runs\n"
               "still 'running' in IN are skipped, so merging twice changes nothing.  All\n"
               "databases must have this sgdsim's schema version.\n\n"
               "exit codes: 0 merged, 2 bad input (not a results database, other schema\n"
               "version, unwritable OUT)\n");
}

int cli_merge_main(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return SGD_EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1])
            return cli_bad_input("merge: unknown option %s (see sgdsim merge --help)", argv[i]);
    }
    if (argc < 2) return cli_bad_input("merge: expected OUT.db and at least one IN.db (see "
                                       "sgdsim merge --help)");
    sgd_err_t err = {{0}};
    /* Check every input before touching OUT, so a typo in the last argument does not leave
     * a half-merged result behind. */
    for (int i = 1; i < argc; i++) {
        rdb_t *in;
        if (rdb_open_readonly(argv[i], &in, &err)) return cli_bad_input("merge: %s", err.msg);
        rdb_close(in);
    }
    rdb_t *out;
    if (rdb_open(argv[0], &out, &err)) return cli_bad_input("merge: %s", err.msg);
    int rc = SGD_EXIT_OK;
    for (int i = 1; i < argc; i++) {
        rdb_merge_stats_t st;
        if (rdb_merge(out, argv[i], &st, &err)) {
            rc = cli_bad_input("merge: %s", err.msg);
            break;
        }
        printf("%s: %lld run%s copied (%lld rows), %lld already in %s, %lld unfinished "
               "skipped\n", argv[i], (long long)st.copied, st.copied == 1 ? "" : "s",
               (long long)st.rows, (long long)st.present, argv[0], (long long)st.unfinished);
    }
    rdb_close(out);
    return rc;
}
