/* Zip groups of a sweep: axes that advance together instead of being crossed.
 *
 * A sweep's axes (sweep/plan.h) are grouped into dimensions: an axis that is in no zip group
 * is a dimension of its own; the axes of one group (the scenario's "sweep"."zip" list, or a
 * --zip KEY1,KEY2 argument) form one dimension, whose i-th value sets the i-th value of each
 * of its axes.  The sweep is the cartesian product of the dimensions, which come in the
 * order of their first axis, so a sweep without zip groups has one dimension per axis and
 * the order it always had. */
#ifndef SGDSIM_SWEEP_ZIP_H
#define SGDSIM_SWEEP_ZIP_H

#include "common/error.h"
#include "config/scenario.h"

/* The axes as the planner holds them: key and number of values, in canonical order. */
typedef struct sweep_axis_shape {
    const char *key;
    int nvalues;
} sweep_axis_shape_t;

/* Groups the naxes axes into dimensions: dim_of[a] is axis a's dimension, dim_len[d] its
 * number of values, *ndims how many (dim_of and dim_len hold naxes entries).  The groups are
 * base's "zip" list (scenario file `path`) and then the --zip arguments zips[0..nzips)
 * ("KEY1,KEY2,..."). Errors name the argument or the JSON path: a group of fewer than two
 * keys, a key that is not an axis, a key in two groups, axes of unequal length. */
int sweep_dims(const char *path, const scn_t *base, const char *const *zips, int nzips,
               const sweep_axis_shape_t *axes, int naxes, int *dim_of, int *dim_len,
               int *ndims, sgd_err_t *err);

#endif
