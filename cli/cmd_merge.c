/* `sgdsim merge OUT.db IN.db...`: copies the runs of each IN that have ended (complete,
 * diverged or failed) into OUT (created if missing), e.g. the shards of a sweep run as a
 * Slurm array.  Idempotent: a run OUT already holds is skipped (results/rdb_merge.h says how
 * runs are matched), so merging twice changes nothing.  Each IN is merged in one
 * transaction. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/outpath.h"
#include "results/rdb_merge.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim merge OUT.db IN.db...\n\n"
               "Copies every run that has ended (complete, diverged, failed) of each IN database,\n"
               "with its metrics, traffic, staleness, version_age, tags, artifacts and\n"
               "client_labels, into\n"
               "OUT (created if missing).  Runs OUT already holds (same run_key, host, start\n"
               "time and digest) and runs still 'running' in IN are skipped, so merging twice\n"
               "changes nothing.  IN may have this sgdsim's schema version or an older one\n"
               "(read as it is, never changed); an older OUT is migrated.\n\n"
               "exit codes: 0 merged, 2 bad input (not a results database, other schema\n"
               "version, unwritable OUT)\n");
}

/* Checks every input before touching OUT, so a typo in the last argument does not leave a
 * half-merged result behind. */
static int check_inputs(const char *const *in_paths, int n)
{
    sgd_err_t err = {{0}};
    for (int i = 0; i < n; i++)
        if (rdb_merge_check_input(in_paths[i], &err)) return cli_bad_input("merge: %s", err.msg);
    return SGD_EXIT_OK;
}

/* OUT must be none of the INs nor their companions (common/outpath.h): merging a
 * database into itself, or into another's -wal, would write over what is being read. */
static int check_out(const char *out_path, const char *const *in_paths, int n)
{
    sgd_outpath_input_t *in = sgd_xcalloc((size_t)n + 1, sizeof *in);
    for (int i = 0; i < n; i++) in[i] = (sgd_outpath_input_t){in_paths[i], "an IN database", true};
    int rc = cli_outpath_refuse("merge", "OUT", out_path, true, in, (size_t)n);
    free(in);
    return rc;
}

static int merge_into(const char *out_path, const char *const *in_paths, int n)
{
    sgd_err_t err = {{0}};
    rdb_t *out;
    if (rdb_open(out_path, &out, &err)) return cli_bad_input("merge: %s", err.msg);
    int rc = SGD_EXIT_OK;
    for (int i = 0; i < n; i++) {
        rdb_merge_stats_t st;
        if (rdb_merge(out, in_paths[i], &st, &err)) {
            rc = cli_bad_input("merge: %s", err.msg);
            break;
        }
        printf("%s: %lld run%s copied (%lld row%s), %lld already in %s, %lld unfinished "
               "skipped\n", in_paths[i], (long long)st.copied, st.copied == 1 ? "" : "s",
               (long long)st.rows, st.rows == 1 ? "" : "s", (long long)st.present, out_path,
               (long long)st.unfinished);
    }
    rdb_close(out);
    return rc;
}

int cli_merge_main(int argc, char **argv)
{
    static const char *const missing[] = {"OUT.db and at least one IN.db",
                                          "at least one IN.db"};
    cli_cmd_spec_t spec = {.cmd = "merge", .npos = 2, .more_pos = true, .missing = missing};
    cli_args_t args;
    int rc = cli_args_parse(&spec, argc, argv, &args);
    if (rc == 0 && args.help) usage(stdout);
    if (rc == 0 && !args.help) rc = check_out(args.pos[0], args.pos + 1, args.npos - 1);
    if (rc == 0 && !args.help) rc = check_inputs(args.pos + 1, args.npos - 1);
    if (rc == 0 && !args.help) rc = merge_into(args.pos[0], args.pos + 1, args.npos - 1);
    cli_args_free(&args);
    return rc;
}
