/* Which runs `sgdsim compare` sets side by side (compare_match.h): the key lists of
 * --match-on and --ignore, each side's finished runs with their parsed configurations, and
 * the match signatures, sorted so that a baseline run finds its candidates by binary
 * search. */
#include "cli/compare_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/json.h"
#include "results/rdb_read.h"

/* ---- key lists ------------------------------------------------------------------------ */

/* A key path: words of letters, digits and '_' joined by single dots. */
static bool key_well_formed(const char *k, size_t len)
{
    static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_";
    if (len == 0 || k[0] == '.' || k[len - 1] == '.') return false;
    for (size_t i = 0; i < len; i++)
        if (k[i] == '.' ? k[i + 1] == '.' : !strchr(word, k[i])) return false;
    return true;
}

static int keys_append(cmp_keys_t *keys, const char *opt, const char *value)
{
    for (const char *p = value;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (!key_well_formed(p, len))
            return cli_bad_input("compare: %s %s: expected configuration keys (like "
                                 "optimizer.lr) separated by commas", opt, value);
        keys->v = sgd_xrealloc(keys->v, (size_t)(keys->n + 1) * sizeof *keys->v);
        keys->v[keys->n] = sgd_xmalloc(len + 1);
        memcpy(keys->v[keys->n], p, len);
        keys->v[keys->n++][len] = '\0';
        if (!comma) return SGD_EXIT_OK;
        p = comma + 1;
    }
}

int cmp_keys_parse(const cli_list_t *values, const char *opt, cmp_keys_t *keys)
{
    int rc = SGD_EXIT_OK;
    for (int i = 0; i < values->n && rc == SGD_EXIT_OK; i++)
        rc = keys_append(keys, opt, values->v[i]);
    return rc;
}

void cmp_keys_free(cmp_keys_t *keys)
{
    for (int i = 0; i < keys->n; i++) free(keys->v[i]);
    free(keys->v);
    *keys = (cmp_keys_t){0};
}

static bool keys_have(const cmp_keys_t *keys, const char *k)
{
    for (int i = 0; i < keys->n; i++)
        if (strcmp(keys->v[i], k) == 0) return true;
    return false;
}

/* ---- key paths in a configuration ----------------------------------------------------- */

/* The object member at dotted path `path` of `root` (objects only), or NULL. */
static cJSON *config_at(cJSON *root, const char *path)
{
    cJSON *node = root;
    for (const char *p = path; node && *p;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        char name[SGD_JPATH_MAX];
        if (!cJSON_IsObject(node) || len >= sizeof name) return NULL;
        memcpy(name, p, len);
        name[len] = '\0';
        node = cJSON_GetObjectItemCaseSensitive(node, name);
        p = dot ? dot + 1 : p + len;
    }
    return node;
}

/* Removes the member at `path` of `root`, if there is one. */
static void config_remove(cJSON *root, const char *path)
{
    const char *dot = strrchr(path, '.');
    cJSON *parent = root;
    if (dot) {
        char head[SGD_JPATH_MAX];
        size_t len = (size_t)(dot - path);
        if (len >= sizeof head) return;
        memcpy(head, path, len);
        head[len] = '\0';
        parent = config_at(root, head);
    }
    if (cJSON_IsObject(parent))
        cJSON_DeleteItemFromObjectCaseSensitive(parent, dot ? dot + 1 : path);
}

static bool side_has_key(const cmp_side_t *s, const char *k)
{
    for (int i = 0; i < s->n; i++)
        if (config_at(s->run[i].config, k)) return true;
    return false;
}

static int check_keys(const cmp_keys_t *keys, const char *opt, const cmp_side_t *b,
                      const cmp_side_t *c)
{
    for (int i = 0; i < keys->n; i++)
        if (!side_has_key(b, keys->v[i]) && !side_has_key(c, keys->v[i]))
            return cli_bad_input("compare: %s %s: no finished run of %s or %s has this "
                                 "configuration key", opt, keys->v[i], b->path, c->path);
    return SGD_EXIT_OK;
}

int cmp_match_check(const cmp_match_t *m, const cmp_side_t *b, const cmp_side_t *c)
{
    for (int i = 0; i < m->ignore.n; i++) {
        const char *k = m->ignore.v[i];
        if (keys_have(&m->match_on, k))
            return cli_bad_input("compare: --ignore %s: the key is also in --match-on", k);
        /* --match-on leaves out every other key already: ignoring one would do nothing. */
        if (m->match_on.n && strcmp(k, "seed") != 0)
            return cli_bad_input("compare: --ignore %s: with --match-on only the seed can be "
                                 "ignored (the other keys are not matched on)", k);
    }
    int rc = check_keys(&m->match_on, "--match-on", b, c);
    return rc ? rc : check_keys(&m->ignore, "--ignore", b, c);
}

/* ---- loading a side ------------------------------------------------------------------- */

static char *column_dup(sqlite3_stmt *st, int col)
{
    const char *t = (const char *)sqlite3_column_text(st, col);
    return sgd_xstrdup(t ? t : "");
}

/* The statement's current row as a run; 0, or the exit code after the message. */
static int read_run(const cmp_side_t *s, sqlite3_stmt *st, cmp_run_t *r)
{
    *r = (cmp_run_t){.id = sqlite3_column_int64(st, 0), .workers = sqlite3_column_int64(st, 4),
                     .seed = sqlite3_column_int64(st, 5), .vtime_ns = sqlite3_column_int64(st, 7)};
    r->run_key = column_dup(st, 1);
    r->scenario = column_dup(st, 2);
    r->algorithm = column_dup(st, 3);
    r->status = column_dup(st, 6);
    r->blas_core = column_dup(st, 8);
    const char *json = (const char *)sqlite3_column_text(st, 9);
    r->config = json ? cJSON_Parse(json) : NULL;
    if (!cJSON_IsObject(r->config))
        return cli_bad_input("compare: %s: run %lld: its configuration (runs.config_json) is "
                             "not a JSON object", s->path, (long long)r->id);
    return SGD_EXIT_OK;
}

int cmp_side_load(cmp_side_t *s)
{
    sqlite3_stmt *st = NULL;
    sgd_err_t err = {{0}};
    if (rdb_read_prepare_finished_configs(s->db, &st, &err))
        return cli_bad_input("compare: %s", err.msg);
    int rc = SGD_EXIT_OK, cap = 0, step;
    while (rc == SGD_EXIT_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (s->n == cap) {
            cap = cap ? 2 * cap : 16;
            s->run = sgd_xrealloc(s->run, (size_t)cap * sizeof *s->run);
        }
        rc = read_run(s, st, &s->run[s->n++]);
    }
    if (rc == SGD_EXIT_OK && step != SQLITE_DONE)
        rc = cli_bad_input("compare: %s: cannot read runs", s->path);
    sqlite3_finalize(st);
    return rc;
}

void cmp_side_free(cmp_side_t *s)
{
    for (int i = 0; i < s->n; i++) {
        cmp_run_t *r = &s->run[i];
        free(r->run_key), free(r->scenario), free(r->algorithm), free(r->status);
        free(r->blas_core), free(r->sig);
        cJSON_Delete(r->config);
    }
    free(s->run);
    free(s->by_sig);
    s->run = NULL, s->by_sig = NULL, s->n = 0;
}

/* ---- signatures ----------------------------------------------------------------------- */

/* --ignore alone: the canonical configuration without the ignored and unhashed keys. */
static char *sig_without(const cJSON *config, const cmp_keys_t *ignore)
{
    cJSON *copy = cJSON_Duplicate(config, true);
    SGD_ASSERT(copy);
    for (int i = 0; i < ignore->n; i++) config_remove(copy, ignore->v[i]);
    for (int i = 0; sgd_config_unhashed[i]; i++) config_remove(copy, sgd_config_unhashed[i]);
    char *sig = sgd_json_print(copy, true);
    cJSON_Delete(copy);
    return sig;
}

/* --match-on: an object of the matched keys' values (by path; an absent key is left out)
 * and the seed's unless ignored. */
static char *sig_of_keys(cJSON *config, const cmp_match_t *m)
{
    cJSON *o = cJSON_CreateObject();
    SGD_ASSERT(o);
    for (int i = 0; i <= m->match_on.n; i++) {
        const char *k = i < m->match_on.n ? m->match_on.v[i] : "seed";
        if (i == m->match_on.n && (keys_have(&m->match_on, k) || keys_have(&m->ignore, k)))
            break;
        cJSON *v = config_at(config, k);
        if (v) cJSON_AddItemToObject(o, k, cJSON_Duplicate(v, true));
    }
    char *sig = sgd_json_print(o, true);
    cJSON_Delete(o);
    return sig;
}

static int by_sig_order(const void *x, const void *y)
{
    const cmp_run_t *a = *(const cmp_run_t *const *)x, *b = *(const cmp_run_t *const *)y;
    int order = strcmp(a->sig, b->sig);
    return order ? order : (a->id > b->id) - (a->id < b->id); /* qsort is not stable */
}

void cmp_side_sign(cmp_side_t *s, const cmp_match_t *m)
{
    s->by_sig = sgd_xcalloc((size_t)s->n + 1, sizeof *s->by_sig);
    for (int i = 0; i < s->n; i++) {
        cmp_run_t *r = &s->run[i];
        free(r->sig);
        r->sig = m->match_on.n ? sig_of_keys(r->config, m)
                 : m->ignore.n ? sig_without(r->config, &m->ignore)
                               : sgd_xstrdup(r->run_key);
        s->by_sig[i] = r;
    }
    qsort(s->by_sig, (size_t)s->n, sizeof *s->by_sig, by_sig_order);
}

int cmp_side_find(const cmp_side_t *s, const char *sig, int *first)
{
    int lo = 0, hi = s->n; /* the first index whose signature is >= sig */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(s->by_sig[mid]->sig, sig) < 0) lo = mid + 1;
        else hi = mid;
    }
    int end = lo;
    while (end < s->n && strcmp(s->by_sig[end]->sig, sig) == 0) end++;
    *first = lo;
    return end - lo;
}

/* ---- in words ------------------------------------------------------------------------- */

static void append_keys(char *buf, size_t size, const cmp_keys_t *keys)
{
    for (int i = 0; i < keys->n; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s", i ? ", " : "", keys->v[i]);
    }
}

void cmp_match_describe(const cmp_match_t *m, char *buf, size_t size)
{
    buf[0] = '\0';
    if (m->match_on.n) {
        snprintf(buf, size, "on ");
        append_keys(buf, size, &m->match_on);
        if (!keys_have(&m->match_on, "seed") && !keys_have(&m->ignore, "seed")) {
            size_t len = strlen(buf);
            snprintf(buf + len, size - len, ", seed");
        }
    } else if (m->ignore.n) {
        snprintf(buf, size, "on the configuration without ");
        append_keys(buf, size, &m->ignore);
    } else {
        snprintf(buf, size, "by run key");
    }
}
