/* --where and --label of `sgdsim plot` (see plot_select.h for their grammar). */
#include "cli/plot_select.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "render/text.h"
#include "common/error.h"
#include "common/number.h"

/* The characters of a key: the same as --by's, so a key never holds SQL or a quote. */
static const char key_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789_.";

/* The operator at s (longest first); its length, 0 for none. */
static size_t read_op(const char *s, rdb_op_t *op)
{
    static const struct { const char *text; rdb_op_t op; } ops[] = {
        {"<=", RDB_OP_LE}, {">=", RDB_OP_GE}, {"!=", RDB_OP_NE},
        {"=", RDB_OP_EQ},  {"<", RDB_OP_LT},  {">", RDB_OP_GT},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strncmp(s, ops[i].text, strlen(ops[i].text)) == 0) {
            *op = ops[i].op;
            return strlen(ops[i].text);
        }
    return 0;
}

/* The literal: a plain decimal (common/number.h: "0x10" is text, not 16), true/false, or
 * text. */
static void read_literal(char *lit, rdb_cond_t *c)
{
    double v;
    c->text = lit;
    c->is_number = true;
    if (sgd_parse_decimal(lit, &v)) c->number = v;
    else if (strcmp(lit, "true") == 0) c->number = 1;
    else if (strcmp(lit, "false") == 0) c->number = 0;
    else c->is_number = false;
}

/* One term "KEY OP LITERAL" (term is cut in place) into c; shown is the whole --where
 * value, escaped, for messages. */
static int read_term(rdb_t *db, char *term, const char *shown, rdb_cond_t *c)
{
    size_t klen = strspn(term, key_chars);
    size_t olen = read_op(term + klen, &c->op);
    rdb_op_t second;
    if (klen == 0 || olen == 0 || read_op(term + klen + olen, &second)) { /* not "==" */
        char *t = rnd_text_escape(term);
        int rc = cli_bad_input("plot: --where %s: \"%s\": expected KEY OP VALUE, KEY made of "
                               "letters, digits, _ and . and OP one of = != < <= > >=",
                               shown, t);
        free(t);
        return rc;
    }
    if (!term[klen + olen]) {
        term[klen] = '\0';
        return cli_bad_input("plot: --where %s: \"%s\" has no value to compare with", shown,
                             term);
    }
    read_literal(term + klen + olen, c);
    term[klen] = '\0';
    c->key = term;
    if (!rdb_curve_key_known(db, c->key))
        return cli_bad_input("plot: --where %s: \"%s\" is neither a column of runs "
                             "(algorithm, workers, seed, ...) nor a configuration key of "
                             "any run (cluster.workers, optimizer.lr, ...)", shown, c->key);
    return SGD_EXIT_OK;
}

/* The total length of the values, and how many terms they hold at most. */
static size_t values_size(const cli_list_t *values, int *nterms)
{
    size_t size = 0;
    *nterms = 0;
    for (int i = 0; i < values->n; i++) {
        size += strlen(values->v[i]) + 1;
        for (const char *s = values->v[i]; *s; s++) *nterms += *s == ',';
        (*nterms)++;
    }
    return size;
}

int plot_where_parse(rdb_t *db, const cli_list_t *values, plot_where_t *w)
{
    int nterms;
    size_t size = values_size(values, &nterms);
    memset(w, 0, sizeof *w);
    if (values->n == 0) return SGD_EXIT_OK;
    w->text = sgd_xmalloc(size);
    w->conds = sgd_xcalloc((size_t)nterms, sizeof *w->conds);
    char *at = w->text;
    for (int i = 0; i < values->n; i++) {
        char *shown = rnd_text_escape(values->v[i]);
        strcpy(at, values->v[i]);
        char *term = at;
        at += strlen(at) + 1;
        int rc = SGD_EXIT_OK;
        for (char *next; !rc && term; term = next) {
            next = strchr(term, ',');
            if (next) *next++ = '\0';
            rc = read_term(db, term, shown, &w->conds[w->n++]);
        }
        free(shown);
        if (rc) return rc;
    }
    return SGD_EXIT_OK;
}

void plot_where_free(plot_where_t *w)
{
    free(w->conds);
    free(w->text);
    memset(w, 0, sizeof *w);
}

/* One --label value (cut in place) into l. */
static int read_label(char *s, const char *const *keys, int nkeys, plot_label_t *l)
{
    char *shown = rnd_text_escape(s);
    char *eq = strchr(s, '=');
    int rc = SGD_EXIT_OK;
    if (!eq) {
        rc = cli_bad_input("plot: --label %s: expected KEY=TEXT or KEY:VALUE=TEXT", shown);
    } else {
        *eq = '\0';
        l->text = eq + 1;
        char *colon = strchr(s, ':');
        if (colon) *colon = '\0';
        l->key = s;
        l->value = colon ? colon + 1 : NULL;
        bool known = false;
        for (int k = 0; k < nkeys; k++) known = known || strcmp(keys[k], s) == 0;
        if (!known)
            rc = cli_bad_input("plot: --label %s: \"%s\" is not a key of --by (the legend "
                               "shows only those)", shown, nkeys ? l->key : "");
    }
    free(shown);
    return rc;
}

int plot_labels_parse(const cli_list_t *values, const char *const *keys, int nkeys,
                      plot_labels_t *l)
{
    int nterms;
    size_t size = values_size(values, &nterms);
    memset(l, 0, sizeof *l);
    if (values->n == 0) return SGD_EXIT_OK;
    if (nkeys == 0)
        return cli_bad_input("plot: --label needs --by KEY,...: without it the legend shows "
                             "run ids");
    l->text = sgd_xmalloc(size);
    l->v = sgd_xcalloc((size_t)values->n, sizeof *l->v);
    char *at = l->text;
    for (int i = 0; i < values->n; i++) {
        strcpy(at, values->v[i]);
        int rc = read_label(at, keys, nkeys, &l->v[l->n++]);
        if (rc) return rc;
        at += strlen(values->v[i]) + 1;
    }
    return SGD_EXIT_OK;
}

void plot_labels_free(plot_labels_t *l)
{
    free(l->v);
    free(l->text);
    memset(l, 0, sizeof *l);
}
