/* `sgdsim report --json`: the seed statistics of a results database for programs. */
#ifndef SGDSIM_RENDER_REPORT_JSON_H
#define SGDSIM_RENDER_REPORT_JSON_H

#include "render/report_data.h"
#include "results/rdb.h"

/* Prints the statistics of db's runs that opts keeps as one JSON object on stdout (see
 * report_json.c); the exit code. */
int report_json(rdb_t *db, const char *path, const rep_opts_t *opts);

#endif
