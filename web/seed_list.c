/* A configuration's seeds as a count and compact ranges (web/seed_list.h). */
#include "web/seed_list.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/strbuf.h"

#define EN_DASH "\xe2\x80\x93"  /* U+2013 */
#define ELLIPSIS "\xe2\x80\xa6" /* U+2026 */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A piece: seeds first..last, consecutive. */
typedef struct piece {
    int64_t first, last;
} piece_t;

static void put_piece(sgd_strbuf_t *b, const piece_t *p, bool first)
{
    if (!first) sgd_strbuf_puts(b, ", ");
    if (p->last - p->first >= 2) /* three seeds or more: a range */
        sgd_strbuf_printf(b, "%lld" EN_DASH "%lld", (long long)p->first, (long long)p->last);
    else if (p->last != p->first)
        sgd_strbuf_printf(b, "%lld, %lld", (long long)p->first, (long long)p->last);
    else
        sgd_strbuf_printf(b, "%lld", (long long)p->first);
}

/* The runs of consecutive values of the sorted v[0..n) into pieces (room for n); returns
 * their number, and in *written how many items they are written as (a pair of seeds is
 * written as two). */
static int split_runs(const int64_t *v, int n, piece_t *pieces, int *written)
{
    int np = 0;
    *written = 0;
    for (int i = 0; i < n; i++) {
        if (np && v[i] != INT64_MIN && v[i] - 1 == pieces[np - 1].last)
            pieces[np - 1].last = v[i];
        else
            pieces[np++] = (piece_t){v[i], v[i]};
    }
    for (int k = 0; k < np; k++) *written += pieces[k].last - pieces[k].first == 1 ? 2 : 1;
    return np;
}

char *web_seed_list(const int64_t *seeds, int n)
{
    if (n < 1) return NULL;
    int64_t *v = sgd_xcalloc((size_t)n, sizeof *v);
    memcpy(v, seeds, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    sgd_strbuf_t b = {0};
    if (n == 1) {
        sgd_strbuf_printf(&b, "seed %lld", (long long)v[0]);
        free(v);
        return sgd_strbuf_take(&b);
    }
    piece_t *pieces = sgd_xcalloc((size_t)n, sizeof *pieces);
    int written, np = split_runs(v, n, pieces, &written);
    sgd_strbuf_printf(&b, "%d seeds: ", n);
    if (written <= WEB_SEED_LIST_PIECES) {
        for (int k = 0; k < np; k++) put_piece(&b, &pieces[k], k == 0);
    } else { /* the first seeds, then the last piece: where the list starts and ends */
        for (int k = 0, shown = 0; shown < WEB_SEED_LIST_HEAD; k++) {
            piece_t p = pieces[k];
            if (p.last - p.first == 1 && shown == WEB_SEED_LIST_HEAD - 1) p.last = p.first;
            put_piece(&b, &p, k == 0);
            shown += p.last - p.first == 1 ? 2 : 1;
        }
        sgd_strbuf_puts(&b, ", " ELLIPSIS ", ");
        put_piece(&b, &pieces[np - 1], true);
    }
    free(pieces);
    free(v);
    return sgd_strbuf_take(&b);
}
