/* Zip groups of a sweep (sweep/zip.h): checking the file's and the command line's groups
 * against the final axes and numbering the dimensions. */
#include "sweep/zip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a group came from, for messages: "x.json: sweep.zip[1]" or "--zip a,b". */
typedef struct zip_origin {
    char name[SGD_ERR_MAX / 2];
} zip_origin_t;

static int axis_index(const sweep_axis_shape_t *axes, int naxes, const char *key)
{
    for (int a = 0; a < naxes; a++)
        if (strcmp(axes[a].key, key) == 0) return a;
    return -1;
}

/* Joins axis `a` to the group whose first axis is `lead`: same length, not zipped before. */
static int join_group(const sweep_axis_shape_t *axes, int a, int lead, int *group_of,
                      const zip_origin_t *origins, int g, sgd_err_t *err)
{
    if (group_of[a] >= 0)
        return sgd_errf(err, "%s: %s is already zipped by %s; an axis can be in one zip "
                             "group only", origins[g].name, axes[a].key,
                        origins[group_of[a]].name);
    if (axes[a].nvalues != axes[lead].nvalues)
        return sgd_errf(err, "%s: %s has %d value%s but %s has %d; zipped axes advance "
                             "together and need as many values each", origins[g].name,
                        axes[lead].key, axes[lead].nvalues, axes[lead].nvalues == 1 ? "" : "s",
                        axes[a].key, axes[a].nvalues);
    group_of[a] = g;
    return 0;
}

/* A group of the file (keys already checked against its own axes by the loader). */
static int file_group(const scn_sweep_zip_t *z, const sweep_axis_shape_t *axes, int naxes,
                      int *group_of, const zip_origin_t *origins, int g, sgd_err_t *err)
{
    int lead = axis_index(axes, naxes, z->keys[0]);
    SGD_ASSERT(lead >= 0); /* the command line only replaces the block's axes */
    for (int k = 0; k < z->nkeys; k++) {
        int a = axis_index(axes, naxes, z->keys[k]);
        SGD_ASSERT(a >= 0);
        if (join_group(axes, a, lead, group_of, origins, g, err)) return -1;
    }
    return 0;
}

/* A --zip KEY1,KEY2,... argument. */
static int arg_group(const char *arg, const sweep_axis_shape_t *axes, int naxes,
                     int *group_of, const zip_origin_t *origins, int g, sgd_err_t *err)
{
    char *copy = sgd_xstrdup(arg), *save = NULL;
    int nkeys = 0, lead = -1, rc = 0;
    for (const char *c = arg; *c; c++) nkeys += *c == ',';
    nkeys++;
    if (nkeys < 2 || strstr(arg, ",,") || arg[0] == ',' || arg[strlen(arg) - 1] == ',')
        rc = sgd_errf(err, "--zip %s: expected two or more axis keys separated by commas, "
                           "e.g. --zip batch.per_worker,cluster.workers", arg);
    for (char *k = rc ? NULL : strtok_r(copy, ",", &save); k && !rc;
         k = strtok_r(NULL, ",", &save)) {
        int a = axis_index(axes, naxes, k);
        if (a < 0) {
            rc = sgd_errf(err, "--zip %s: %s is not an axis of this sweep (the scenario's "
                               "\"sweep\" block or a --set list)", arg, k);
        } else if (lead >= 0 && group_of[a] == g) {
            rc = sgd_errf(err, "--zip %s: %s is given twice", arg, k);
        } else {
            if (lead < 0) lead = a;
            rc = join_group(axes, a, lead, group_of, origins, g, err);
        }
    }
    free(copy);
    return rc;
}

/* Numbers the dimensions in the order of their first axis. */
static void number_dims(const sweep_axis_shape_t *axes, int naxes, const int *group_of,
                        int ngroups, int *dim_of, int *dim_len, int *ndims)
{
    int *dim_of_group = sgd_xcalloc((size_t)ngroups + 1, sizeof *dim_of_group);
    for (int g = 0; g < ngroups; g++) dim_of_group[g] = -1;
    *ndims = 0;
    for (int a = 0; a < naxes; a++) {
        int g = group_of[a];
        if (g >= 0 && dim_of_group[g] >= 0) {
            dim_of[a] = dim_of_group[g];
            continue;
        }
        dim_of[a] = *ndims;
        dim_len[*ndims] = axes[a].nvalues;
        if (g >= 0) dim_of_group[g] = *ndims;
        (*ndims)++;
    }
    free(dim_of_group);
}

int sweep_dims(const char *path, const scn_t *base, const char *const *zips, int nzips,
               const sweep_axis_shape_t *axes, int naxes, int *dim_of, int *dim_len,
               int *ndims, sgd_err_t *err)
{
    int ngroups = base->nsweep_zip + nzips, rc = 0;
    int *group_of = sgd_xcalloc((size_t)naxes + 1, sizeof *group_of);
    zip_origin_t *origins = sgd_xcalloc((size_t)ngroups + 1, sizeof *origins);
    for (int a = 0; a < naxes; a++) group_of[a] = -1;
    for (int g = 0; g < base->nsweep_zip; g++)
        snprintf(origins[g].name, sizeof origins[g].name, "%s: sweep.zip[%d]", path, g);
    for (int i = 0; i < nzips; i++)
        snprintf(origins[base->nsweep_zip + i].name, sizeof origins[0].name, "--zip %s",
                 zips[i]);
    for (int g = 0; g < base->nsweep_zip && !rc; g++)
        rc = file_group(&base->sweep_zip[g], axes, naxes, group_of, origins, g, err);
    for (int i = 0; i < nzips && !rc; i++)
        rc = arg_group(zips[i], axes, naxes, group_of, origins, base->nsweep_zip + i, err);
    if (!rc) number_dims(axes, naxes, group_of, ngroups, dim_of, dim_len, ndims);
    free(origins);
    free(group_of);
    return rc;
}
