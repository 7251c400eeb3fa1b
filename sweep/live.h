/* The live progress display of a sweep on a terminal: one status line on stderr, redrawn a
 * few times a second, with each running point's updates done of its total and the sweep's
 * updates done of all points' totals.
 *
 * Each point's child `sgdsim run --progress-fd N` writes "DONE TOTAL\n" lines into a pipe
 * (non-blocking on its side: a full pipe drops a line, it never stalls the run); the pool
 * (sweep/exec.c) creates the pipe before it starts the child and hands every event here.
 * Only when stderr is a terminal and the sweep is not --quiet: cli_sweep_live_start returns
 * NULL otherwise and every other function accepts NULL and does nothing, so logs and tests
 * see exactly the lines they always saw. */
#ifndef SGDSIM_SWEEP_LIVE_H
#define SGDSIM_SWEEP_LIVE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_sweep_live cli_sweep_live_t;

/* A display for `nslots` concurrent points and `total_updates` updates in all; NULL when
 * stderr is not a terminal or `quiet`. */
cli_sweep_live_t *cli_sweep_live_start(bool quiet, int nslots, int64_t total_updates);

/* Before slot `slot` starts point `point` (its index in the plan): a pipe whose write end
 * (*child_fd, to pass as --progress-fd) the child inherits; -1 when there is no display or
 * no pipe could be made (the point then runs without progress). */
int cli_sweep_live_open(cli_sweep_live_t *l, int slot, int point, int64_t updates);

/* After fork: the parent's copy of the write end is closed. */
void cli_sweep_live_started(cli_sweep_live_t *l, int slot);

/* Slot `slot`'s point ended; `completed`: it ran all its updates. */
void cli_sweep_live_ended(cli_sweep_live_t *l, int slot, bool completed);

/* A point that was found done at launch counts as done. */
void cli_sweep_live_skipped(cli_sweep_live_t *l, int64_t updates);

/* Reads what the children wrote and redraws the line (at most every 0.2 s). */
void cli_sweep_live_poll(cli_sweep_live_t *l);

/* Erases the status line, so that an ordinary line can be printed; the next poll redraws. */
void cli_sweep_live_clear(cli_sweep_live_t *l);

/* Erases the line and frees the display. */
void cli_sweep_live_end(cli_sweep_live_t *l);

#endif
