/* Event timelines: a run's simulated activity written as Chrome trace-event JSON, which
 * Perfetto (ui.perfetto.dev) and chrome://tracing open.
 *
 * What is recorded:
 *   - spans -- "client 3 computed from t0 to t1" -- on tracks: one track per simulated
 *     entity, grouped by kind (workers, servers, clients, network links), optionally with
 *     typed arguments (update index, parameter version, staleness, bytes ...) that the
 *     viewer shows next to the span;
 *   - flows: an arrow from a point inside a span of one track to a point inside a span of
 *     another (a push to the update it became), written as a "ph": "s" / "ph": "f" pair with
 *     the same "cat" and "id", the end bound to its enclosing span ("bp": "e");
 *   - counters: numeric series over time ("ph": "C"), one counter track per name and kind
 *     (the server's queue length, staleness, bytes in flight);
 *   - notes and warnings, written into the file's otherData.
 * Algorithms and the network call these where they schedule the activity; with a NULL trace
 * every call is a no-op, so instrumentation costs one line and nothing when tracing is off.
 * Times are virtual nanoseconds (written as microseconds with three decimals, exactly).
 *
 * Algorithms record what they schedule, often before it happens.  An event is therefore
 * written only once it is final: when it ends no later than the run can end (the runner
 * calls sim_trace_settle at every update), or when the run has ended (sim_trace_run_end),
 * which cuts a span that crosses the end to end there, marked with the arg
 * "cut_at_run_end": true, and leaves out what begins after it (counted in otherData).
 * A track's events keep the order they were recorded in (a flow is on the track it ends on,
 * recorded when its end is); tracks are interleaved by when their events became final.
 *
 * Messages (sim_trace_message, called by the network for each link a message occupies) are
 * written at one of two levels: `message`, one span per message per link with its kind and
 * group and detail args; or `step` (the default), where the messages a link carries one
 * after another with the same kind and group -- a collective's messages of one update, a
 * client's push -- are one span named after their kind, with their count, bytes, the time
 * the link was busy with them and the time they waited for links.
 *
 * Huge runs stay usable: only spans overlapping the window [t0_ns, t1_ns], counter samples
 * and flows whose two ends lie in it are kept, and at most max_events events (spans, counter
 * samples, flows) are written; the rest are counted as dropped (reported in the file's
 * otherData and by sim_trace_dropped), as are, with a limit set, events recorded while
 * max(max_events, 65536) wait to be final (which bounds the memory held).  The file is a
 * function of the run only, so the same run gives the same bytes.
 *
 * Ownership: sim_trace_open returns a trace owned by the caller, finished and freed by
 * sim_trace_close (which also reports a failed write).  Names, keys and strings passed in
 * are copied or written before the call returns. */
#ifndef SGDSIM_SIM_TRACE_H
#define SGDSIM_SIM_TRACE_H

#include <stdint.h>

#include "common/error.h"

typedef struct sim_trace sim_trace_t;

/* Track kinds; each is one "process" in the viewer, its entities the "threads". */
typedef enum {
    SIM_TRACK_WORKER = 1, /* workers of synchronous algorithms, clients of asynchronous ones */
    SIM_TRACK_SERVER = 2, /* parameter servers */
    SIM_TRACK_LINK = 3,   /* network links: the messages occupying them (sim_trace_message) */
    SIM_TRACK_COMMUNICATOR = 4, /* LSGD's per-node communicators */
} sim_track_kind_t;

/* How a link's messages are written (sim_trace_message); 0 is the default. */
typedef enum {
    SIM_TRACE_LEVEL_STEP = 0,    /* consecutive messages of one kind and group: one span */
    SIM_TRACE_LEVEL_MESSAGE = 1, /* one span per message */
} sim_trace_level_t;

typedef struct sim_trace_opts {
    int64_t t0_ns, t1_ns; /* window of virtual time kept; t1_ns = INT64_MAX for no end */
    uint64_t max_events;  /* most events (spans, counter samples, flows) written; 0 = no limit */
    sim_trace_level_t level;
} sim_trace_opts_t;

/* One typed key/value argument of a span or one series of a counter sample. */
typedef enum { SIM_TRACE_INT, SIM_TRACE_DOUBLE, SIM_TRACE_STR } sim_trace_type_t;
typedef struct sim_trace_arg {
    const char *key;
    sim_trace_type_t type;
    union {
        int64_t i;     /* SIM_TRACE_INT */
        double d;      /* SIM_TRACE_DOUBLE; written as null when not finite */
        const char *s; /* SIM_TRACE_STR */
    };
} sim_trace_arg_t;

#define SIM_TRACE_I(k, v) ((sim_trace_arg_t){.key = (k), .type = SIM_TRACE_INT, .i = (int64_t)(v)})
#define SIM_TRACE_D(k, v) ((sim_trace_arg_t){.key = (k), .type = SIM_TRACE_DOUBLE, .d = (double)(v)})
#define SIM_TRACE_S(k, v) ((sim_trace_arg_t){.key = (k), .type = SIM_TRACE_STR, .s = (v)})

/* Starts the trace for `path` and writes the header.  The file is written beside `path`
 * (common/outpath.h: created with O_EXCL | O_NOFOLLOW) and renamed over it by
 * sim_trace_close, so a reader never sees half a trace and a planted link is never
 * followed; a device such as /dev/full is written in place.  Errors name the path. */
int sim_trace_open(const char *path, const sim_trace_opts_t *opts, sim_trace_t **out,
                   sgd_err_t *err);

/* Names a track ("uplink 3"); without a name a track is called "<kind> <id>".  Call before
 * the track's first event.  No-op when t is NULL. */
void sim_trace_name_track(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name);

/* Records that track (kind, id) did `name` from t0_ns to t1_ns (t1_ns >= t0_ns), with
 * args[0..nargs) (args may be NULL when nargs is 0).  No-op when t is NULL. */
void sim_trace_span_args(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                         int64_t t0_ns, int64_t t1_ns, const sim_trace_arg_t *args, int nargs);

/* sim_trace_span_args without arguments. */
void sim_trace_span(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                    int64_t t0_ns, int64_t t1_ns);

/* What a message is, for its span (never read by the simulation).  kind names it ("push",
 * "allreduce"); group says what it is part of ({"update": 3}, {"client": 2, "version":
 * 17}): at the step level a link's consecutive messages of the same kind and group are one
 * span; detail are args of the message alone ({"call": 4, "step": 1, "from": "worker 0",
 * "to": "worker 1"}), written at the message level only. */
typedef struct sim_trace_msg {
    const char *kind;
    const sim_trace_arg_t *group;
    int ngroup;
    const sim_trace_arg_t *detail;
    int ndetail;
} sim_trace_msg_t;

/* Records that a message of `bytes` occupied link `link` (track SIM_TRACK_LINK, link) from
 * t0_ns to t1_ns, after waiting waited_ns for its links; msg may be NULL (a message without
 * a tag: always its own span, "message", with its bytes and wait).  Messages on one link
 * must not overlap (network.h).  No-op when t is NULL. */
void sim_trace_message(sim_trace_t *t, uint32_t link, int64_t t0_ns, int64_t t1_ns,
                       uint64_t bytes, int64_t waited_ns, const sim_trace_msg_t *msg);

/* Flows.  sim_trace_flow_start opens flow `flow` (an id unique among the open flows) at t_ns
 * on track (kind, id); sim_trace_flow_end closes it at t_ns >= the start's time, on any
 * track, and only then is the pair written -- when both ends lie in the window and the
 * event limit allows -- so a file never holds half a flow.  Each end's t_ns must lie inside
 * a span of its track (the viewer attaches the arrow to the span enclosing t_ns; choose a
 * time strictly inside it where the span is longer than 1 ns).  Ending a flow that was never
 * started is a broken invariant; flows still open at close are counted in otherData
 * ("flows_unfinished").  No-ops when t is NULL. */
void sim_trace_flow_start(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, const char *name,
                          uint64_t flow, int64_t t_ns);
void sim_trace_flow_end(sim_trace_t *t, sim_track_kind_t kind, uint32_t id, uint64_t flow,
                        int64_t t_ns);

/* Records the value of each series[0..nseries) (SIM_TRACE_INT or finite SIM_TRACE_DOUBLE)
 * of counter `name` of kind's process at t_ns; the viewer draws it as a step function.
 * No-op when t is NULL. */
void sim_trace_counter(sim_trace_t *t, sim_track_kind_t kind, const char *name, int64_t t_ns,
                       const sim_trace_arg_t *series, int nseries);

/* Adds key: value (a string) to the file's otherData; a later note with the same key
 * replaces it.  No-op when t is NULL. */
void sim_trace_note(sim_trace_t *t, const char *key, const char *value);

/* Adds `text` to otherData's "warnings" and prints it on stderr ("sgdsim: trace: text"), once
 * per distinct text.  No-op when t is NULL. */
void sim_trace_warn(sim_trace_t *t, const char *text);

/* Marks t as the trace of a run resumed from a checkpoint: it covers the run from there on,
 * and otherData's "resumed" says so (`note`: from where).  A flow whose start was recorded
 * before the checkpoint (in the trace of the run that wrote it) is then left out when it
 * ends, and counted as "flows_started_before_resume".  No-op when t is NULL. */
void sim_trace_resumed(sim_trace_t *t, const char *note);

/* The run will not end before t_ns (non-decreasing; the runner calls it with each update's
 * time): events ending by then are written.  No-op when t is NULL. */
void sim_trace_settle(sim_trace_t *t, int64_t t_ns);

/* The run ended at end_ns: every event held back is written -- a span or message crossing
 * end_ns cut there and marked "cut_at_run_end": true, a span or message starting after it,
 * a flow ending or a counter sample after it left out -- and otherData gets "run_end_ns",
 * "spans_cut_at_run_end" and "events_after_run_end" (each message on each link counted);
 * whatever is recorded later is left out too.  Only the first call counts.  A trace closed
 * without it writes every event whole and has no "run_end_ns".  No-op when t is NULL. */
void sim_trace_run_end(sim_trace_t *t, int64_t end_ns);

uint64_t sim_trace_written(const sim_trace_t *t); /* events written (or merging: admitted) */
uint64_t sim_trace_dropped(const sim_trace_t *t); /* events in the window beyond max_events */

/* Writes the footer, closes the file and frees t (NULL allowed).  Returns -1 with a message
 * naming the path when any write failed (disk full ...). */
int sim_trace_close(sim_trace_t *t, sgd_err_t *err);

/* Closes and frees t (NULL allowed) without putting anything at its path: for a run refused
 * before it began, whose trace would describe nothing that happened. */
void sim_trace_discard(sim_trace_t *t);

#endif
