/* The runs' series in binary, gzip-compressed: how a page carries a study's metric rows.
 * A million rows written as JSON numbers are 40 MB of text that the browser must read and
 * tokenize every time the page opens (docs/performance.md, "Results browser at scale");
 * as bytes they are a quarter of that, read exactly (the bits of each double), and decoded
 * by the page only when it draws runs.
 *
 * The document, before compression (every number little-endian, whatever the host):
 *
 *   "sgdpack1"  8 bytes
 *   S           float64: the number of series
 *   sections, each stored byte-plane by byte-plane (all first bytes of its elements, then
 *   all second bytes, ...: the bytes that vary little end up together, where deflate
 *   finds them):
 *     HEAD  float64 x 5S: per series its run index, metric index, rows in the database,
 *           points written, flags (1: it has virtual times; 2: its values are single
 *           precision)
 *     U     float64, per point of every series in order: the update index minus the
 *           previous point's (the first point's whole)
 *     T     float64, per point of the series with virtual times: the time in ns minus the
 *           previous point's (the first point's whole)
 *     V8    float64, the values of the double-precision series (NaN, +Inf or -Inf for a
 *           non-finite row, as its kind says)
 *     V4    float32, the values of the single-precision series (about 7 significant
 *           digits: what a drawing needs)
 *
 * U and T hold the steps of the page's running sum in doubles (web/pack.c, step): updates
 * and times come back exact integers while they and their steps stay below 2^53 in
 * magnitude (104 days of virtual time in ns), and for any other int64 as the nearest double
 * give or take a rounding of the larger of the point and the previous one; errors never
 * accumulate.  web/pack.js reads it; docs/results.md describes it. */
#ifndef SGDSIM_WEB_PACK_H
#define SGDSIM_WEB_PACK_H

#include <stdbool.h>

#include "common/strbuf.h"
#include "results/rdb_read.h"

typedef struct web_pack web_pack_t;

web_pack_t *web_pack_new(void);

/* Adds the points idx[0..n) of s (run index run, metric index metric): with its virtual
 * times when clock, in single precision when single and every finite value fits one (else
 * in double precision, so nothing is lost but digits). */
void web_pack_add(web_pack_t *p, int run, int metric, const rdb_series_t *s, bool clock,
                  const int *idx, int n, bool single);

/* The document, gzip-compressed, into out; frees p. */
void web_pack_finish(web_pack_t *p, sgd_strbuf_t *out);

#endif
