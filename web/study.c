/* A study read from its databases (web/study.h): runs, then each bulk part of each database
 * (results/rdb_study.h) attached to its run, then configurations x seeds and their labels. */
#include "web/study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"
#include "analysis/series.h"
#include "common/strbuf.h"
#include "results/rdb.h"
#include "results/rdb_rows.h"
#include "results/rdb_study.h"
#include "web/bands.h"
#include "web/seed_list.h"

static char *dup_or_null(const char *s)
{
    return s ? sgd_xstrdup(s) : NULL;
}

static void run_of_row(web_run_t *r, int db, const rdb_run_row_t *row)
{
    *r = (web_run_t){.db = db, .id = row->id, .seed = row->seed, .workers = row->workers,
                     .updates = row->updates, .vtime_ns = row->vtime_ns,
                     .has_workers = row->has_workers, .has_updates = row->has_updates,
                     .has_vtime_ns = row->has_vtime_ns, .wall_s = row->wall_s,
                     .run_key = dup_or_null(row->run_key), .scenario = dup_or_null(row->scenario),
                     .algorithm = dup_or_null(row->algorithm),
                     .status = dup_or_null(row->status), .backend = dup_or_null(row->backend),
                     .blas_core = dup_or_null(row->blas_core),
                     .config_json = dup_or_null(row->config_json), .group = -1};
    ana_run_init(&r->a, row->scenario, row->config_json, row->sweep_axes);
    r->clock = ana_config_has_clock(row->config_json);
}

/* Appends every run of db (by id) to s. */
static int load_runs(rdb_t *db, int dbi, web_study_t *s, sgd_err_t *err)
{
    rdb_rows_it_t *it = NULL;
    int rc = rdb_runs_open(db, &(rdb_runs_query_t){0}, &it, err) ? -1 : 1;
    rdb_run_row_t row;
    while (rc > 0 && (rc = rdb_runs_next(it, &row, err)) > 0) {
        s->run = sgd_xrealloc(s->run, (size_t)(s->nruns + 1) * sizeof *s->run);
        run_of_row(&s->run[s->nruns++], dbi, &row);
    }
    rdb_rows_close(it);
    return rc;
}

/* The run of database dbi with this id among runs[first..last) (ordered by id), or NULL. */
static web_run_t *find_run(web_study_t *s, int first, int last, int64_t id)
{
    while (first < last) {
        int mid = first + (last - first) / 2;
        if (s->run[mid].id == id) return &s->run[mid];
        if (s->run[mid].id < id) first = mid + 1;
        else last = mid;
    }
    return NULL;
}

/* Whether a series of n rows has filled its capacity: 16, then every doubling. */
static bool full(int n)
{
    return n == 0 || (n >= 16 && (n & (n - 1)) == 0);
}

/* Appends one metric row to the run's series of that name (rows arrive by name, update). */
static void add_metric_row(web_run_t *r, const rdb_study_row_t *row)
{
    const char *name = row->text[0] ? row->text[0] : "";
    if (r->nmetrics == 0 || strcmp(r->metric[r->nmetrics - 1].name, name) != 0) {
        r->metric = sgd_xrealloc(r->metric, (size_t)(r->nmetrics + 1) * sizeof *r->metric);
        r->metric[r->nmetrics++] = (web_metric_t){.name = sgd_xstrdup(name)};
    }
    rdb_series_t *sr = &r->metric[r->nmetrics - 1].s;
    if (full(sr->n)) { /* capacity doubles: a million rows are not a million reallocs */
        size_t cap = sr->n ? 2 * (size_t)sr->n : 16;
        sr->update = sgd_xrealloc(sr->update, cap * sizeof *sr->update);
        sr->vtime = sgd_xrealloc(sr->vtime, cap * sizeof *sr->vtime);
        sr->value = sgd_xrealloc(sr->value, cap * sizeof *sr->value);
        sr->kind = sgd_xrealloc(sr->kind, cap);
    }
    const char *nf = row->text[1];
    sr->update[sr->n] = row->i[0];
    sr->vtime[sr->n] = row->i[1];
    sr->value[sr->n] = row->value;
    sr->kind[sr->n] = !nf ? 0 : strcmp(nf, "nan") == 0 ? 'n' : strcmp(nf, "-inf") == 0 ? '-' : 'i';
    sr->n++;
}

static void add_bin(web_bin_t **bins, int *n, const rdb_study_row_t *row)
{
    *bins = sgd_xrealloc(*bins, (size_t)(*n + 1) * sizeof **bins);
    (*bins)[(*n)++] = (web_bin_t){row->i[0], row->i[1]};
}

/* One row of a bulk part into its run. */
static void attach(web_run_t *r, rdb_study_part_t part, const rdb_study_row_t *row)
{
    switch (part) {
    case RDB_STUDY_METRICS: add_metric_row(r, row); break;
    case RDB_STUDY_STALENESS: add_bin(&r->staleness, &r->nstaleness, row); break;
    case RDB_STUDY_VERSION_AGE: add_bin(&r->version_age, &r->nversion_age, row); break;
    case RDB_STUDY_TRAFFIC:
        r->traffic = sgd_xrealloc(r->traffic, (size_t)(r->ntraffic + 1) * sizeof *r->traffic);
        r->traffic[r->ntraffic++] = (web_traffic_t){dup_or_null(row->text[0]), row->i[0],
                                                    row->i[1], row->i[2], row->i[3]};
        break;
    case RDB_STUDY_TAGS:
        r->tag = sgd_xrealloc(r->tag, (size_t)(r->ntags + 1) * sizeof *r->tag);
        r->tag[r->ntags++] = (ana_kv_t){dup_or_null(row->text[0]), dup_or_null(row->text[1]),
                                        NULL};
        break;
    case RDB_STUDY_RUN_TEXT:
        for (int k = 0; k < 6; k++) r->text[k] = dup_or_null(row->text[k]);
        break;
    }
}

/* Every row of one part of db into the runs s->run[first..last). */
static int load_part(rdb_t *db, rdb_study_part_t part, web_study_t *s, int first, int last,
                     sgd_err_t *err)
{
    rdb_study_it_t *it = NULL;
    int rc = rdb_study_open(db, part, &it, err) ? -1 : 1;
    rdb_study_row_t row;
    web_run_t *r = NULL;
    while (rc > 0 && (rc = rdb_study_next(it, &row, err)) > 0) {
        if (!r || r->id != row.run_id) r = find_run(s, first, last, row.run_id);
        if (r) attach(r, part, &row); /* a row of a run inserted after the runs were read */
    }
    rdb_study_close(it);
    return rc;
}

static int load_db(const char *path, int dbi, web_study_t *s, sgd_err_t *err)
{
    static const rdb_study_part_t parts[] = {RDB_STUDY_RUN_TEXT, RDB_STUDY_TAGS,
                                             RDB_STUDY_TRAFFIC, RDB_STUDY_STALENESS,
                                             RDB_STUDY_VERSION_AGE, RDB_STUDY_METRICS};
    rdb_t *db;
    if (rdb_open_readonly(path, &db, err)) return -1;
    int first = s->nruns, rc = load_runs(db, dbi, s, err);
    for (size_t k = 0; rc == 0 && k < sizeof parts / sizeof parts[0]; k++)
        rc = load_part(db, parts[k], s, first, s->nruns, err);
    rdb_close(db);
    return rc;
}

/* The run's progress: its last update with a row, and stop.updates when its configuration
 * has a whole number there. */
static void note_progress(web_run_t *r)
{
    for (int m = 0; m < r->nmetrics; m++) {
        const rdb_series_t *sr = &r->metric[m].s; /* rows by update: the last is the largest */
        if (sr->n && (!r->has_last_update || sr->update[sr->n - 1] > r->last_update))
            r->last_update = sr->update[sr->n - 1], r->has_last_update = true;
    }
    const char *target = ana_config_get(&r->a.cfg, "stop.updates");
    char *end;
    long long v = strtoll(target, &end, 10);
    r->has_stop_updates = *target && *end == '\0' && v > 0;
    r->stop_updates = r->has_stop_updates ? (int64_t)v : 0;
}

/* ---- configurations x seeds ------------------------------------------------------------ */

/* The groups of database dbi's runs s->run[first..last): configuration and build
 * (analysis/groups.h; the build is runs.git_rev, read with the runs' text). */
static void group_db(web_study_t *s, int dbi, int first, int last, bool pool_builds)
{
    int n = last - first;
    char **identity = sgd_xcalloc((size_t)n + 1, sizeof *identity);
    int64_t *id = sgd_xcalloc((size_t)n + 1, sizeof *id), *seed = sgd_xcalloc((size_t)n + 1,
                                                                               sizeof *seed);
    for (int i = 0; i < n; i++) {
        web_run_t *r = &s->run[first + i];
        r->identity = ana_run_identity(r->config_json, r->text[3], pool_builds);
        identity[i] = r->identity;
        id[i] = s->run[first + i].id;
        seed[i] = s->run[first + i].seed;
    }
    ana_group_t *g = NULL;
    int ng = ana_group_seeds(identity, id, seed, n, &g);
    s->group = sgd_xrealloc(s->group, (size_t)(s->ngroups + ng) * sizeof *s->group);
    for (int k = 0; k < ng; k++) {
        web_group_t *w = &s->group[s->ngroups + k];
        *w = (web_group_t){.db = dbi, .run = sgd_xcalloc((size_t)g[k].n + 1, sizeof(int)),
                           .n = g[k].n, .clock = true};
        for (int i = 0; i < g[k].n; i++) {
            w->run[i] = first + g[k].idx[i];
            s->run[w->run[i]].group = s->ngroups + k;
            w->clock &= s->run[w->run[i]].clock;
        }
    }
    s->ngroups += ng;
    ana_groups_free(g, ng);
    free(identity), free(id), free(seed);
}

/* Whether another group of g's database has g's configuration (run by another build). */
static bool shares_configuration(const web_study_t *s, const web_group_t *g)
{
    char *mine = ana_config_identity(s->run[g->run[0]].config_json);
    bool shared = false;
    for (int k = 0; k < s->ngroups && mine && !shared; k++) {
        const web_group_t *o = &s->group[k];
        if (o == g || o->db != g->db) continue;
        char *theirs = ana_config_identity(s->run[o->run[0]].config_json);
        shared = theirs && strcmp(mine, theirs) == 0;
        free(theirs);
    }
    free(mine);
    return shared;
}

/* "key=value, key=value" of the label keys (the scenario when there are none), after the
 * database's label when the study has several, and the build when another group of its
 * database is the same configuration run by another build. */
static char *group_label(const web_study_t *s, const web_group_t *g)
{
    sgd_strbuf_t b = {0};
    const web_run_t *r = &s->run[g->run[0]];
    if (s->ndbs > 1) sgd_strbuf_printf(&b, "%s: ", s->db[g->db].label);
    for (int k = 0; k < s->nlabel_keys; k++)
        sgd_strbuf_printf(&b, "%s%s=%s", k ? ", " : "", s->label_key[k],
                       ana_config_get(&r->a.cfg, s->label_key[k]));
    if (s->nlabel_keys == 0) sgd_strbuf_puts(&b, r->scenario ? r->scenario : "(no scenario)");
    if (shares_configuration(s, g)) sgd_strbuf_printf(&b, ", build=%s", ana_build_name(r->text[3]));
    return sgd_strbuf_take(&b);
}

/* The keys that tell every configuration of the study apart (analysis/series.h), chosen
 * for a legend.  Asked of one run per group: the runs of a group differ only in what no key
 * of a legend shows (the seed), and the question costs quadratic time in the runs asked. */
static void choose_label_keys(web_study_t *s)
{
    const char **cfg = sgd_xcalloc((size_t)s->ngroups + 1, sizeof *cfg);
    int *one = sgd_xcalloc((size_t)s->ngroups + 1, sizeof *one); /* one would-be series */
    for (int g = 0; g < s->ngroups; g++) cfg[g] = s->run[s->group[g].run[0]].config_json;
    s->nlabel_keys = ana_series_split_keys(cfg, one, s->ngroups, &s->label_key);
    free(cfg);
    free(one);
}

/* Every metric name of the study, sorted and once. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect_metric_names(web_study_t *s)
{
    for (int i = 0; i < s->nruns; i++)
        for (int m = 0; m < s->run[i].nmetrics; m++) {
            const char *name = s->run[i].metric[m].name;
            bool seen = false;
            for (int k = 0; k < s->nmetrics && !seen; k++) seen = strcmp(s->metric[k], name) == 0;
            if (seen) continue;
            s->metric = sgd_xrealloc(s->metric, (size_t)(s->nmetrics + 1) * sizeof *s->metric);
            s->metric[s->nmetrics++] = sgd_xstrdup(name);
        }
    if (s->nmetrics) qsort(s->metric, (size_t)s->nmetrics, sizeof *s->metric, cmp_str);
}

/* "study.db", or the whole path when two databases share a file name. */
static char *db_label(const char *const *paths, int n, int i)
{
    const char *slash = strrchr(paths[i], '/'), *base = slash ? slash + 1 : paths[i];
    for (int k = 0; k < n; k++) {
        const char *other = strrchr(paths[k], '/');
        if (k != i && strcmp(other ? other + 1 : paths[k], base) == 0) return sgd_xstrdup(paths[i]);
    }
    return sgd_xstrdup(base);
}

int web_study_load(const char *const *paths, int n, bool pool_builds, web_study_t *s,
                   sgd_err_t *err)
{
    *s = (web_study_t){.db = sgd_xcalloc((size_t)n + 1, sizeof *s->db), .ndbs = n};
    for (int i = 0; i < n; i++)
        s->db[i] = (web_db_t){sgd_xstrdup(paths[i]), db_label(paths, n, i)};
    int *first = sgd_xcalloc((size_t)n + 2, sizeof *first);
    for (int i = 0; i < n; i++) {
        first[i] = s->nruns;
        if (load_db(paths[i], i, s, err)) {
            free(first);
            web_study_free(s);
            return -1;
        }
    }
    first[n] = s->nruns;
    for (int i = 0; i < n; i++) group_db(s, i, first[i], first[i + 1], pool_builds);
    free(first);
    choose_label_keys(s);
    collect_metric_names(s);
    for (int i = 0; i < s->nruns; i++) note_progress(&s->run[i]);
    for (int g = 0; g < s->ngroups; g++) {
        web_group_t *w = &s->group[g];
        w->label = group_label(s, w);
        int64_t *seeds = sgd_xcalloc((size_t)w->n + 1, sizeof *seeds);
        for (int i = 0; i < w->n; i++) seeds[i] = s->run[w->run[i]].seed;
        w->seeds = web_seed_list(seeds, w->n);
        free(seeds);
        web_group_bands(s, w);
    }
    return 0;
}

static void run_free(web_run_t *r)
{
    free(r->run_key), free(r->scenario), free(r->algorithm), free(r->status);
    free(r->backend), free(r->blas_core), free(r->config_json), free(r->identity);
    for (int k = 0; k < 6; k++) free(r->text[k]);
    ana_run_free(&r->a);
    for (int k = 0; k < r->ntags; k++) free(r->tag[k].key), free(r->tag[k].value);
    free(r->tag);
    free(r->staleness), free(r->version_age);
    for (int k = 0; k < r->ntraffic; k++) free(r->traffic[k].kind);
    free(r->traffic);
    for (int k = 0; k < r->nmetrics; k++) {
        free(r->metric[k].name);
        rdb_series_free(&r->metric[k].s);
    }
    free(r->metric);
}

void web_study_free(web_study_t *s)
{
    for (int i = 0; i < s->ndbs; i++) free(s->db[i].path), free(s->db[i].label);
    free(s->db);
    for (int i = 0; i < s->nruns; i++) run_free(&s->run[i]);
    free(s->run);
    for (int g = 0; g < s->ngroups; g++) {
        free(s->group[g].run);
        free(s->group[g].label);
        free(s->group[g].seeds);
        web_group_bands_free(&s->group[g]);
    }
    free(s->group);
    for (int i = 0; i < s->nmetrics; i++) free(s->metric[i]);
    free(s->metric);
    ana_series_keys_free(s->label_key, s->nlabel_keys);
    *s = (web_study_t){0};
}
