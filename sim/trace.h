/* Event timelines: a run's simulated activity written as Chrome trace-event JSON, which
 * Perfetto (ui.perfetto.dev) and chrome://tracing open.
 *
 * What is recorded are spans — "worker 3 computed from t0 to t1" — on tracks: one track per
 * simulated entity, grouped by kind (workers, servers, clients, network links).  Algorithms
 * and the network call sim_trace_span() where they schedule the activity; with a NULL trace
 * every call is a no-op, so instrumentation costs one line and nothing when tracing is off.
 * Times are virtual nanoseconds (written as microseconds with three decimals, exactly).
 *
 * Huge runs stay usable: only spans overlapping the window [t0_ns, t1_ns] are kept, and at
 * most max_events spans are written; the rest are counted as dropped (reported in the file's
 * otherData and by sim_trace_dropped).  The file is a function of the run only (spans are
 * written in the order the simulation records them), so the same run gives the same bytes.
 *
 * Ownership: sim_trace_open returns a trace owned by the caller, finished and freed by
 * sim_trace_close (which also reports a failed write).  Names passed in are copied or
 * written before the call returns. */
#ifndef SGDSIM_SIM_TRACE_H
#define SGDSIM_SIM_TRACE_H

#include <stdint.h>

#include "common/error.h"

typedef struct sim_trace sim_trace_t;

/* Track kinds; each is one "process" in the viewer, its entities the "threads". */
typedef enum {
    SIM_TRACK_WORKER = 1, /* workers of synchronous algorithms, clients of asynchronous ones */
    SIM_TRACK_SERVER = 2, /* parameter servers */
    SIM_TRACK_LINK = 3,   /* network links: one span per message occupying the link */
    SIM_TRACK_COMMUNICATOR = 4, /* LSGD's per-node communicators */
} sim_track_kind_t;

typedef struct sim_trace_opts {
    int64_t t0_ns, t1_ns; /* window of virtual time kept; t1_ns = INT64_MAX for no end */
    uint64_t max_events;  /* most spans written; 0 = no limit */
} sim_trace_opts_t;

/* Creates (truncates) `path` and writes the header.  Errors name the path. */
int sim_trace_open(const char *path, const sim_trace_opts_t *opts, sim_trace_t **out,
                   sgd_err_t *err);

/* Names a track ("uplink 3"); without a name a track is called "<kind> <id>".  Call before
 * the track's first span.  No-op when t is NULL. */
void sim_trace_name_track(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name);

/* Records that track (kind, id) did `name` from t0_ns to t1_ns (t1_ns >= t0_ns).  No-op
 * when t is NULL. */
void sim_trace_span(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                    int64_t t0_ns, int64_t t1_ns);

uint64_t sim_trace_written(const sim_trace_t *t); /* spans written */
uint64_t sim_trace_dropped(const sim_trace_t *t); /* spans in the window beyond max_events */

/* Writes the footer, closes the file and frees t (NULL allowed).  Returns -1 with a message
 * naming the path when any write failed (disk full ...). */
int sim_trace_close(sim_trace_t *t, sgd_err_t *err);

#endif
