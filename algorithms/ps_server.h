/* Parameter server state shared by the parameter-server family (ps.c): versioned parameters,
 * reference-counted snapshots of the versions clients hold, the staleness and parameter-age
 * histograms and the fetch/push traffic counters.
 *
 * Versions.  The server's parameters (the runner's single parameter array) carry a timestamp
 * that grows by 1 with every applied update.  A client that fetches receives a snapshot of the
 * current version; every client that fetches the same version shares one snapshot, so memory
 * grows with the number of distinct versions in use, not with the number of clients.  A
 * snapshot is freed (its buffer recycled) when its last holder releases it and the server has
 * moved on.  Staleness of a gradient = server version when it is applied - version of the
 * snapshot it was computed on: counted from the parameters the client really holds (its
 * `age`), except under B-FASGD's skipped_fetch_tau "fred", whose counted tau is smaller;
 * both are recorded.
 *
 * Deferred numerics.  ps_step.c may schedule updates before it computes them (to evaluate several
 * clients' gradients in one backend call): `version` is then the timestamp the schedule has
 * reached and `applied` the version the parameter array holds.  A snapshot taken while
 * applied < version is filled when ps_server_applied() brings the parameters to its version;
 * until then it is pinned.  Pins keep a buffer physically alive without making it a holder:
 * `live` and `peak_live` count snapshots with holders (refs), so they, like every statistic,
 * do not depend on how far the numerics lag.
 *
 * Memory.  A snapshot (its header and its nparams floats, 64-byte aligned) is one block of a
 * slab (common/slab.h): the pages of many snapshots are populated in one kernel call rather
 * than faulted in one at a time as each new version is first copied, and a dead snapshot's
 * block is the next one reused.  Nothing is returned before ps_server_free, so the memory
 * stays at the peak of snapshots alive or pinned at once.  What a snapshot holds never
 * depends on which block it got.
 *
 * Ownership: ps_server_init/ps_server_free on a caller-allocated ps_server_t that borrows the
 * parameter array; snapshots are owned by the server and lent by reference count. */
#ifndef SGDSIM_ALGORITHMS_PS_SERVER_H
#define SGDSIM_ALGORITHMS_PS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ckbuf.h"
#include "common/slab.h"

typedef struct ps_snap {
    int64_t version;       /* server timestamp this copy was taken at */
    int64_t refs;          /* holders: clients and pending gradient requests */
    int64_t pins;          /* deferred numerics that will still read or fill it */
    bool dead;             /* no holder left (counted out of live), buffer kept for pins */
    float *data;           /* nparams floats, in the same slab block; filled once
                              applied >= version */
} ps_snap_t;

/* A histogram of non-negative integers (staleness, parameter age) with their count and sum. */
typedef struct ps_hist {
    int64_t *bins;         /* bins[x]: how many x were added */
    int64_t len;           /* valid bins */
    int64_t n;             /* values added */
    double sum;            /* their sum, for the mean */
} ps_hist_t;

typedef struct ps_traffic {
    uint64_t sent_msgs, sent_bytes, skipped_msgs, skipped_bytes;
} ps_traffic_t;

typedef struct ps_server {
    float *params;         /* nparams, borrowed: the current parameters */
    size_t nparams;
    int64_t version;       /* timestamp: updates scheduled so far */
    int64_t applied;       /* version the parameter array holds (<= version) */
    ps_snap_t *current;    /* snapshot of `version`, or NULL until someone fetches it */
    ps_snap_t **unfilled;  /* snapshots of versions > applied, by version, from unfilled_head */
    int64_t nunfilled, unfilled_head, unfilled_cap;
    sgd_slab_t snaps;      /* every snapshot's block; dead ones on its free list */
    int64_t live, peak_live; /* snapshots alive now / at most at once */

    ps_hist_t tau;         /* staleness of every gradient applied (counted, damped) */
    ps_hist_t age;         /* the age of its parameters: version applied at - version it
                              was computed on (equal to tau unless FRED's counting) */

    ps_traffic_t fetch, push;
} ps_server_t;

void ps_server_init(ps_server_t *s, float *params, size_t nparams);
void ps_server_free(ps_server_t *s);

/* A new reference to the snapshot of the current version (copied on the first fetch of a
 * version, shared after that; copied when the parameters reach that version if they lag).
 * Release it with ps_snap_release. */
ps_snap_t *ps_server_snapshot(ps_server_t *s);
/* Takes another reference to a snapshot already held. */
ps_snap_t *ps_snap_ref(ps_snap_t *p);
void ps_snap_release(ps_server_t *s, ps_snap_t *p);

/* Pins keep a snapshot's buffer (not its place in live) until the matching unpin. */
void ps_snap_pin(ps_snap_t *p);
void ps_snap_unpin(ps_server_t *s, ps_snap_t *p);

/* Call when an update is scheduled: timestamp + 1; the old version's snapshot lives on while
 * anybody holds it. */
void ps_server_bump(ps_server_t *s);
/* Call after the parameter array received the next scheduled update (applied + 1 <= version):
 * fills the snapshots taken of that version. */
void ps_server_applied(ps_server_t *s);
/* The buffer the next ps_server_applied would copy the parameters into -- the snapshot taken
 * of version applied + 1 while the parameters lagged, when somebody will read it -- or NULL.
 * An update pass that writes the new parameters there as well saves ps_server_applied a pass
 * over them: it then calls ps_server_applied_filled with that buffer, which is not copied
 * into again. */
float *ps_server_next_fill(const ps_server_t *s);
void ps_server_applied_filled(ps_server_t *s, const float *filled);

/* Records one applied gradient's staleness and its parameters' age (both >= 0, asserted). */
void ps_server_record(ps_server_t *s, int64_t tau, int64_t age);

/* Adds x >= 0 (asserted) to h, growing its bins as needed. */
void ps_hist_add(ps_hist_t *h, int64_t x);
/* Smallest x with at least q of the values at or below it (q in (0, 1]); -1 when empty. */
int64_t ps_hist_quantile(const ps_hist_t *h, double q);
/* The mean of the values added, 0 when none. */
double ps_hist_mean(const ps_hist_t *h);
void ps_hist_free(ps_hist_t *h);

/* Checkpoints (ps_ckpt.c), of a server whose parameters have caught up with its schedule
 * (applied == version: no snapshot unfilled or pinned).  ps_server_save writes the
 * counters -- version, peak_live, both histograms, the traffic -- and ps_server_restore
 * reads them into a server just initialised (-1 with the reader failed when they do not
 * fit: the version of a settled server is the run's `updates`).  The snapshots are the caller's to save, each once by version: ps_server_revive
 * brings one back (the current one when its version is the server's), with no holder yet
 * and its data to be filled; holders then take references (ps_snap_hold). */
void ps_server_save(const ps_server_t *s, sgd_ckw_t *w);
int ps_server_restore(ps_server_t *s, int64_t updates, sgd_ckr_t *r);
ps_snap_t *ps_server_revive(ps_server_t *s, int64_t version);
/* A reference to a revived snapshot (which may have none yet). */
ps_snap_t *ps_snap_hold(ps_snap_t *p);

#endif
