/* `sgdsim cache list|prune [--dir DIR] [--max-size SIZE]`: the decoded-dataset cache's
 * directory (models/data_cache.h): list its entries, least recently used first, with their
 * sizes, or delete the least recently used ones until the rest fit a size (by default the
 * bound runs keep it to, $SGDSIM_CACHE_MAX_SIZE or 4 GiB).  The directory is the one a run
 * without data.cache_dir would use.  Pruning is safe while runs use the cache: a run never
 * reads an entry after its load. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "models/data_cache.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim cache list [--dir DIR]\n"
               "       sgdsim cache prune [--max-size SIZE] [--dir DIR]\n\n"
               "The decoded-dataset cache: each IDX file a run reads is decoded once and its\n"
               "values kept as an entry in the cache directory ($%s, else\n"
               "$XDG_CACHE_HOME/sgdsim, else ~/.cache/sgdsim).  After each store, least\n"
               "recently used entries are deleted until the directory holds at most $%s\n"
               "bytes (default %llu GiB).\n"
               "  list             the entries, least recently used first: last use (UTC),\n"
               "                   size, file name; then their number and total size\n"
               "                   (files named like entries without sgdsim's header are\n"
               "                   another program's: counted, never listed or deleted)\n"
               "  prune            delete least recently used entries until the rest total\n"
               "                   at most the bound (safe while runs use the cache)\n"
               "  --dir DIR        this cache directory instead\n"
               "  --max-size SIZE  (prune) this bound instead: bytes, or a number with K, M,\n"
               "                   G or T (powers of 1024); 0 deletes every entry\n\n"
               "exit codes: 0 ok, 2 bad input (unknown action, bad size, no directory)\n",
            DCACHE_ENV_DIR, DCACHE_ENV_MAX,
            (unsigned long long)(DCACHE_DEFAULT_MAX_BYTES >> 30));
}

typedef struct cache_args {
    const char *dir;
    uint64_t max_bytes;
    bool have_max;
} cache_args_t;

/* --max-size SIZE */
static bool opt_max_size(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    cache_args_t *t = target;
    t->have_max = true;
    if (dcache_parse_size(v, &t->max_bytes) == 0) return true;
    snprintf(msg, size, "%s %s: expected a size: bytes, or a number with K, M, G or T", opt, v);
    return false;
}

static const cli_opt_t cache_opts[] = {
    {.name = "--dir", .kind = CLI_ARG_STRING, .off = offsetof(cache_args_t, dir),
     .metavar = "DIR"},
    {.name = "--max-size", .kind = CLI_ARG_CUSTOM, .parse = opt_max_size},
    {0},
};

/* "6.0 MiB" */
static void format_size(uint64_t b, char *buf, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4) v /= 1024, u++;
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* Files named like entries that are not sgdsim's (models/data_cache.h, dcache_list). */
static void say_foreign(uint64_t n)
{
    if (n)
        printf("%llu other file%s named like entries, without sgdsim's header: not entries, "
               "left alone\n", (unsigned long long)n, n == 1 ? "" : "s");
}

static int list(const char *dir)
{
    dcache_entry_t *e;
    size_t n, foreign;
    sgd_err_t err = {{0}};
    if (dcache_list(dir, &e, &n, &foreign, &err)) return cli_bad_input("cache: %s", err.msg);
    uint64_t total = 0;
    char size[32], when[32];
    if (n) printf("%-19s  %10s  %s\n", "last used (UTC)", "size", "entry");
    for (size_t i = 0; i < n; i++) {
        struct tm tm;
        gmtime_r(&e[i].used.tv_sec, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        format_size(e[i].bytes, size, sizeof size);
        printf("%-19s  %10s  %s\n", when, size, e[i].name);
        total += e[i].bytes;
    }
    format_size(total, size, sizeof size);
    printf("%zu entr%s, %s, in %s\n", n, n == 1 ? "y" : "ies", size, dir);
    say_foreign(foreign);
    free(e);
    return SGD_EXIT_OK;
}

static int prune(const char *dir, uint64_t max_bytes)
{
    dcache_pruned_t res;
    sgd_err_t err = {{0}};
    if (dcache_prune(dir, max_bytes, NULL, &res, &err)) return cli_bad_input("cache: %s", err.msg);
    char freed[32], left[32], bound[32];
    format_size(res.removed_bytes, freed, sizeof freed);
    format_size(res.kept_bytes, left, sizeof left);
    format_size(max_bytes, bound, sizeof bound);
    printf("removed %llu entr%s (%s); %llu left (%s, bound %s) in %s\n",
           (unsigned long long)res.removed, res.removed == 1 ? "y" : "ies", freed,
           (unsigned long long)res.kept, left, bound, dir);
    say_foreign(res.foreign);
    return SGD_EXIT_OK;
}

int cli_cache_main(int argc, char **argv)
{
    static const char *const missing[] = {"an action, list or prune"};
    cache_args_t a = {0};
    cli_opt_set_t set = {.opts = cache_opts, .target = &a};
    cli_cmd_spec_t spec = {.cmd = "cache", .npos = 1, .missing = missing, .sets = &set,
                           .nsets = 1};
    const char *pos[1];
    bool help;
    int rc = cli_args_parse_fixed(&spec, argc, argv, pos, &help);
    if (rc == 0 && help) usage(stdout);
    if (rc || help) return rc;
    bool is_list = strcmp(pos[0], "list") == 0;
    if (!is_list && strcmp(pos[0], "prune") != 0)
        return cli_bad_input("cache: unknown action \"%s\": expected list or prune (see "
                             "sgdsim cache --help)", pos[0]);
    if (is_list && a.have_max)
        return cli_bad_input("cache: --max-size: only prune takes it");
    if (a.dir && !a.dir[0]) return cli_bad_input("cache: --dir: empty");
    dcache_t c;
    dcache_init(&c, true, a.dir, NULL);
    if (!c.dir) {
        dcache_free(&c);
        return cli_bad_input("cache: no cache directory (%s is \"off\", or HOME is not set): "
                             "name one with --dir", DCACHE_ENV_DIR);
    }
    rc = is_list ? list(c.dir) : prune(c.dir, a.have_max ? a.max_bytes : dcache_bound(stderr));
    dcache_free(&c);
    return rc;
}
