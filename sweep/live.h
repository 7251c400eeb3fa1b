/* The live progress display of a sweep on a terminal: one status line on stderr, redrawn a
 * few times a second, with each running point's updates done of its total and the sweep's
 * updates done of all points' totals.
 *
 * Each point's child `sgdsim run --progress-fd N` writes "DONE TOTAL\n" lines into a pipe
 * (non-blocking on its side: a full pipe drops a line, it never stalls the run); the pool
 * (sweep/exec.c) creates the pipe before it starts the child and hands every event here.
 * Only when stderr is a terminal and the sweep is not --quiet: sweep_live_start returns
 * NULL otherwise and every other function accepts NULL and does nothing, so logs and tests
 * see exactly the lines they always saw. */
#ifndef SGDSIM_SWEEP_LIVE_H
#define SGDSIM_SWEEP_LIVE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sweep_live sweep_live_t;

/* A display for `nslots` concurrent points and `total_updates` updates in all; NULL when
 * stderr is not a terminal or `quiet`. */
sweep_live_t *sweep_live_start(bool quiet, int nslots, int64_t total_updates);

/* Before slot `slot` starts point `point` (its index in the plan): a pipe whose write end
 * (*child_fd, to pass as --progress-fd) the child inherits; -1 when there is no display or
 * no pipe could be made (the point then runs without progress). */
int sweep_live_open(sweep_live_t *l, int slot, int point, int64_t updates);

/* After fork: the parent's copy of the write end is closed. */
void sweep_live_started(sweep_live_t *l, int slot);

/* Slot `slot`'s point ended; `completed`: it ran all its updates. */
void sweep_live_ended(sweep_live_t *l, int slot, bool completed);

/* A point that was found done at launch counts as done. */
void sweep_live_skipped(sweep_live_t *l, int64_t updates);

/* Reads what the children wrote and redraws the line (at most every 0.2 s). */
void sweep_live_poll(sweep_live_t *l);

/* Erases the status line, so that an ordinary line can be printed; the next poll redraws. */
void sweep_live_clear(sweep_live_t *l);

/* Erases the line and frees the display. */
void sweep_live_end(sweep_live_t *l);

#endif
