/* The CLI's side of common/outpath.h: the inputs a scenario brings (its file and the data
 * files it names) and the refusal every writing command prints, with exit code 2, before
 * it writes anything (docs/results.md, "Files sgdsim writes"). */
#ifndef SGDSIM_CLI_OUTPATH_H
#define SGDSIM_CLI_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "common/outpath.h"
#include "config/scenario.h"

/* Most inputs cli_outpath_scenario_inputs gives. */
#define CLI_OUTPATH_SCENARIO_MAX 5

/* The scenario file and, when s is not NULL, the IDX files it names, into in; returns how
 * many (at most CLI_OUTPATH_SCENARIO_MAX). */
size_t cli_outpath_scenario_inputs(const char *scenario, const scn_t *s,
                                   sgd_outpath_input_t *in);

/* 0 when target may be written; else prints "sgdsim: CMD: OPT TARGET: is ... ; refusing to
 * overwrite it" and returns SGD_EXIT_BAD_INPUT.  opt may be "" (a positional argument);
 * db: target is a SQLite database (its companions are checked too). */
int cli_outpath_refuse(const char *cmd, const char *opt, const char *target, bool db,
                       const sgd_outpath_input_t *in, size_t n);

/* The same for an open file descriptor (--progress-fd N). */
int cli_outpath_refuse_fd(const char *cmd, const char *opt, int fd,
                          const sgd_outpath_input_t *in, size_t n);

#endif
