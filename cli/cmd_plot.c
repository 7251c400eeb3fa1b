/* `sgdsim plot DB --x update|vtime --y METRIC [--by k1,k2] [--logx] [--logy] -o FIG`: draws
 * a metric's curves from a results database with gnuplot (the Debian package gnuplot-nox),
 * one line per group of runs, with legend and axis labels, as PNG, SVG or PDF by the output
 * file's extension.  Runs of one group (e.g. several seeds) are averaged per update.
 *
 * The data goes to gnuplot inline (datablocks in a temporary script), so no data files are
 * left behind; the figure is drawn to FIG.tmp and renamed, so a failed plot never leaves a
 * half-written figure under the requested name. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "results/rdb.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim plot DB --y METRIC [--x update|vtime] [--by KEY,...] [--logx] [--logy]\n"
        "                  [--title TEXT] -o FIG.png|FIG.svg|FIG.pdf\n\n"
        "Draws METRIC (e.g. val_error, train_loss) of the finished runs in DB against the\n"
        "update index (default) or virtual time in seconds, one line per group of runs.\n"
        "  --by KEY,...  group by runs columns (algorithm, workers or lambda, seed, ...) or\n"
        "                configuration keys (cluster.workers, optimizer.lr, ...); runs of a\n"
        "                group are averaged per update.  Default: one line per run\n"
        "  --logx, --logy  logarithmic axes (points <= 0 are left out)\n"
        "Needs gnuplot (Debian: apt-get install gnuplot-nox).\n\n"
        "exit codes: 0 drawn, 2 bad input (unknown metric or key, not a results database,\n"
        "unknown figure type, gnuplot missing or failing)\n");
}

/* Finds an executable in PATH; false when absent. */
static bool find_in_path(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH");
    if (!path) return false;
    char *copy = sgd_xstrdup(path), *save = NULL;
    bool found = false;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, size, "%s/%s", *d ? d : ".", name);
        found = access(out, X_OK) == 0;
    }
    free(copy);
    return found;
}

static bool is_runs_column(sqlite3 *h, const char *name)
{
    sqlite3_stmt *st = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(h, "SELECT 1 FROM pragma_table_info('runs') WHERE name = ?1", -1,
                           &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

/* A gnuplot double-quoted string: backslash and quote escaped. */
static void gp_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if (*s != '\n') fputc(*s, f);
    }
    fputc('"', f);
}

int cli_plot_main(int argc, char **argv)
{
    const char *db_path = NULL, *x = "update", *y = NULL, *by = NULL, *out = NULL,
               *title = NULL;
    bool logx = false, logy = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool takes = strcmp(a, "--x") == 0 || strcmp(a, "--y") == 0 || strcmp(a, "--by") == 0 ||
                     strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                     strcmp(a, "--title") == 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return SGD_EXIT_OK;
        } else if (takes) {
            if (i + 1 >= argc) return cli_bad_input("plot: %s: missing value", a);
            const char *v = argv[++i];
            if (strcmp(a, "--x") == 0) x = v;
            else if (strcmp(a, "--y") == 0) y = v;
            else if (strcmp(a, "--by") == 0) by = v;
            else if (strcmp(a, "--title") == 0) title = v;
            else out = v;
        } else if (strcmp(a, "--logx") == 0) {
            logx = true;
        } else if (strcmp(a, "--logy") == 0) {
            logy = true;
        } else if (a[0] == '-' && a[1]) {
            return cli_bad_input("plot: unknown option %s (see sgdsim plot --help)", a);
        } else if (db_path) {
            return cli_bad_input("plot: unexpected argument %s", a);
        } else {
            db_path = a;
        }
    }
    if (!db_path) return cli_bad_input("plot: missing DB (see sgdsim plot --help)");
    if (!y) return cli_bad_input("plot: missing --y METRIC (see sgdsim plot --help)");
    if (!out) return cli_bad_input("plot: missing -o FIG.png|FIG.svg|FIG.pdf");
    if (strcmp(x, "update") != 0 && strcmp(x, "vtime") != 0)
        return cli_bad_input("plot: --x %s: expected update or vtime", x);
    const char *ext = strrchr(out, '.'), *term;
    if (ext && strcmp(ext, ".png") == 0) term = "pngcairo size 960,640 noenhanced";
    else if (ext && strcmp(ext, ".svg") == 0) term = "svg size 960,640 dynamic noenhanced";
    else if (ext && strcmp(ext, ".pdf") == 0) term = "pdfcairo size 6in,4in noenhanced";
    else return cli_bad_input("plot: -o %s: the figure's name must end in .png, .svg or .pdf", out);

    sgd_err_t err = {{0}};
    rdb_t *db;
    if (rdb_open_readonly(db_path, &db, &err)) return cli_bad_input("plot: %s", err.msg);
    sqlite3 *h = rdb_handle(db);
    int rc = SGD_EXIT_OK;
    char gnuplot[4096], script[512] = "", tmp_out[4200];
    FILE *f = NULL;
    sqlite3_stmt *st = NULL;

    /* The metric must exist: a typo would otherwise draw an empty figure. */
    if (sqlite3_prepare_v2(h, "SELECT 1 FROM metrics WHERE name = ?1 LIMIT 1", -1, &st, NULL) !=
        SQLITE_OK) {
        rc = cli_bad_input("plot: %s: %s", db_path, sqlite3_errmsg(h));
        goto out;
    }
    sqlite3_bind_text(st, 1, y, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        char names[512] = "";
        size_t len = 0;
        if (sqlite3_prepare_v2(h, "SELECT DISTINCT name FROM metrics ORDER BY name", -1, &st,
                               NULL) == SQLITE_OK)
            while (sqlite3_step(st) == SQLITE_ROW && len < sizeof names - 64)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                                        (const char *)sqlite3_column_text(st, 0));
        rc = cli_bad_input("plot: --y %s: no such metric in %s (it has: %s)", y, db_path,
                           len ? names : "no metrics at all");
        goto out;
    }
    sqlite3_finalize(st);
    st = NULL;

    /* Group expressions: runs columns as they are, dotted keys from the configuration. */
    char group_sql[2048] = "r.id", label_keys[2048] = "run";
    int ngroups = 1;
    if (by) {
        group_sql[0] = '\0';
        label_keys[0] = '\0';
        ngroups = 0;
        char *copy = sgd_xstrdup(by), *save = NULL;
        if (!*by || strstr(by, ",,") || by[0] == ',' || by[strlen(by) - 1] == ',')
            rc = cli_bad_input("plot: --by %s: expected keys separated by commas", by);
        for (char *k = strtok_r(copy, ",", &save); k && rc == SGD_EXIT_OK;
             k = strtok_r(NULL, ",", &save)) {
            char expr[512];
            /* Only names made of these characters reach the SQL text. */
            static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_.";
            bool ok = strspn(k, word) == strlen(k);
            if (ok && strcmp(k, "lambda") == 0) {
                /* The papers' name for the number of clients; runs.workers holds it. */
                snprintf(expr, sizeof expr, "r.workers");
            } else if (ok && is_runs_column(h, k)) {
                snprintf(expr, sizeof expr, "r.\"%s\"", k);
            } else if (ok && strchr(k, '.')) {
                snprintf(expr, sizeof expr, "json_extract(r.config_json, '$.%s')", k);
                char probe[700];
                snprintf(probe, sizeof probe, "SELECT 1 FROM runs r WHERE %s IS NOT NULL LIMIT 1",
                         expr);
                sqlite3_stmt *p = NULL;
                ok = sqlite3_prepare_v2(h, probe, -1, &p, NULL) == SQLITE_OK &&
                     sqlite3_step(p) == SQLITE_ROW;
                sqlite3_finalize(p);
            } else {
                ok = false;
            }
            if (!ok) {
                rc = cli_bad_input("plot: --by %s: \"%s\" is neither a column of runs (algorithm, "
                                   "workers, seed, ...) nor a configuration key of any run "
                                   "(cluster.workers, optimizer.lr, ...)", by, k);
                break;
            }
            size_t gl = strlen(group_sql), ll = strlen(label_keys);
            snprintf(group_sql + gl, sizeof group_sql - gl, "%s%s", ngroups ? ", " : "", expr);
            snprintf(label_keys + ll, sizeof label_keys - ll, "%s%s", ngroups ? "\t" : "", k);
            ngroups++;
        }
        free(copy);
        if (rc) goto out;
    }

    char sql[8192];
    snprintf(sql, sizeof sql,
             "SELECT %s, m.update_idx, avg(m.vtime_ns) / 1e9, avg(m.value), count(*)"
             " FROM metrics m JOIN runs r ON r.id = m.run_id"
             " WHERE m.name = ?1 AND m.value IS NOT NULL AND r.status IN ('complete', 'diverged')"
             " GROUP BY %s, m.update_idx ORDER BY %s, m.update_idx",
             group_sql, group_sql, group_sql);
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
        rc = cli_bad_input("plot: %s: %s", db_path, sqlite3_errmsg(h));
        goto out;
    }
    sqlite3_bind_text(st, 1, y, -1, SQLITE_STATIC);

    if (!find_in_path("gnuplot", gnuplot, sizeof gnuplot)) {
        rc = cli_bad_input("plot: gnuplot is not installed, so nothing was drawn (Debian: "
                           "apt-get install gnuplot-nox); the data is available with sgdsim "
                           "query or export");
        goto out;
    }
    const char *tmpdir = getenv("TMPDIR");
    snprintf(script, sizeof script, "%s/sgdsim-plot-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(script);
    if (fd < 0 || !(f = fdopen(fd, "w"))) {
        rc = cli_bad_input("plot: %s: cannot create a temporary file: %s", script, strerror(errno));
        script[0] = '\0';
        goto out;
    }
    snprintf(tmp_out, sizeof tmp_out, "%s.tmp", out);
    fprintf(f, "set terminal %s\nset output ", term);
    gp_string(f, tmp_out);
    fprintf(f, "\nset key outside right top\nset grid\nset xlabel \"%s\"\nset ylabel ",
            strcmp(x, "vtime") == 0 ? "virtual time (s)" : "update");
    gp_string(f, y);
    fputs("\nset title ", f);
    gp_string(f, title ? title : db_path);
    fputc('\n', f);
    if (logx) fputs("set logscale x\n", f);
    if (logy) fputs("set logscale y\n", f);

    /* One datablock per group, labels collected for the plot command. */
    int nlines = 0, npoints = 0;
    char **labels = NULL;
    char prev[1024] = "";
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        char label[1024] = "";
        size_t len = 0;
        const char *kp = label_keys;
        for (int g = 0; g < ngroups; g++) {
            size_t kl = strcspn(kp, "\t");
            const char *v = (const char *)sqlite3_column_text(st, g);
            len += (size_t)snprintf(label + len, sizeof label - len, "%s%.*s=%s", g ? " " : "",
                                    (int)kl, kp, v ? v : "NULL");
            if (len >= sizeof label) len = sizeof label - 1;
            kp += kl + (kp[kl] ? 1 : 0);
        }
        if (nlines == 0 || strcmp(label, prev) != 0) {
            if (nlines) fputs("EOD\n", f);
            fprintf(f, "$g%d << EOD\n", nlines);
            labels = sgd_xrealloc(labels, (size_t)(nlines + 1) * sizeof *labels);
            labels[nlines++] = sgd_xstrdup(label);
            snprintf(prev, sizeof prev, "%s", label);
        }
        double xv = strcmp(x, "vtime") == 0 ? sqlite3_column_double(st, ngroups + 1)
                                            : (double)sqlite3_column_int64(st, ngroups);
        double yv = sqlite3_column_double(st, ngroups + 2);
        if ((logx && !(xv > 0)) || (logy && !(yv > 0)) || !isfinite(yv)) continue;
        fprintf(f, "%.17g %.17g\n", xv, yv);
        npoints++;
    }
    if (nlines) fputs("EOD\n", f);
    if (s != SQLITE_DONE) rc = cli_bad_input("plot: %s: %s", db_path, sqlite3_errmsg(h));
    else if (npoints == 0)
        rc = cli_bad_input("plot: --y %s: no finite values to draw in finished runs of %s%s", y,
                           db_path, logx || logy ? " (points <= 0 are left out on log axes)" : "");
    if (rc == SGD_EXIT_OK) {
        fputs("plot ", f);
        for (int i = 0; i < nlines; i++) {
            fprintf(f, "%s$g%d using 1:2 with linespoints pointsize 0.5 title ",
                    i ? ", \\\n     " : "", i);
            gp_string(f, labels[i]);
        }
        fputc('\n', f);
    }
    for (int i = 0; i < nlines; i++) free(labels[i]);
    free(labels);
    if (fclose(f) != 0 && rc == SGD_EXIT_OK)
        rc = cli_bad_input("plot: %s: cannot write: %s", script, strerror(errno));
    f = NULL;
    if (rc) goto out;

    pid_t pid = fork();
    if (pid == 0) {
        execl(gnuplot, "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        remove(tmp_out);
        rc = cli_bad_input("plot: gnuplot failed drawing %s (exit status %d)", out,
                           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        goto out;
    }
    struct stat sb;
    if (stat(tmp_out, &sb) != 0 || sb.st_size == 0 || rename(tmp_out, out) != 0) {
        remove(tmp_out);
        rc = cli_bad_input("plot: %s: gnuplot wrote no figure", out);
        goto out;
    }
    printf("%s: %d line%s, %d points\n", out, nlines, nlines == 1 ? "" : "s", npoints);
out:
    if (f) fclose(f);
    if (script[0]) remove(script);
    sqlite3_finalize(st);
    rdb_close(db);
    return rc;
}
