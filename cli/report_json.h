/* `sgdsim report --json`: the seed statistics of a results database for programs. */
#ifndef SGDSIM_CLI_REPORT_JSON_H
#define SGDSIM_CLI_REPORT_JSON_H

#include "results/rdb.h"

/* Prints db's statistics as one JSON object on stdout (see report_json.c); the exit code. */
int report_json(rdb_t *db, const char *path);

#endif
