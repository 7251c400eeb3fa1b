/* Network model: links, messages over routes of links, and a star topology.  Collectives
 * over these links are in sim/collective.h.
 *
 * Message model.  A message of `bytes` over a route of links
 *   - starts at max(t_ns, free_at_ns of every link on the route): links serialise, so a
 *     message waits until every link it needs has finished transmitting earlier messages;
 *   - occupies every link of the route for sim_transfer_ns(bytes, min bandwidth on the
 *     route) from its start (cut-through: the bytes stream through all hops at once at the
 *     bottleneck rate, rather than being stored and forwarded hop by hop);
 *   - arrives at start + that duration + the sum of the route's latencies.
 * Latency is propagation, not occupancy: a link may start its next message as soon as the
 * last byte of the previous one has left.  Reservations are made in the order callers make
 * them (first come, first served in call order), which the event engine makes deterministic.
 *
 * Ownership: sim_net_create returns a network owned by the caller (sim_net_destroy);
 * sim_star_t is caller-allocated plain data referring to link ids of one network. */
#ifndef SGDSIM_SIM_NETWORK_H
#define SGDSIM_SIM_NETWORK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/ckbuf.h"
#include "common/error.h"
#include "sim/trace.h"

typedef struct sim_link {
    double bandwidth_Bps; /* bytes per second, > 0 */
    int64_t latency_ns;   /* propagation delay added to every message, ns, >= 0 */
    int64_t free_at_ns;   /* the link transmits reserved messages until this time, ns */
    uint64_t messages;    /* messages reserved on this link so far */
    uint64_t bytes;       /* bytes reserved on this link so far */
} sim_link_t;

/* Time to push `bytes` through a link of bandwidth_Bps (> 0): exactly ceil(bytes * 1e9 /
 * bandwidth_Bps) ns, where bandwidth_Bps is taken as the exact value of the double.  It is
 * computed in integer arithmetic, so it is exact (no double rounding), monotone
 * non-decreasing in bytes and non-increasing in bandwidth; rounding up means a non-empty
 * message always takes at least 1 ns.  0 bytes take 0 ns; results beyond the horizon
 * saturate at SIM_TIME_BEYOND_NS (sim/dist.h). */
int64_t sim_transfer_ns(uint64_t bytes, double bandwidth_Bps);

typedef struct sim_net sim_net_t;

sim_net_t *sim_net_create(void);
void sim_net_destroy(sim_net_t *n);

/* Records every reserved message on its links' tracks (SIM_TRACK_LINK, link id) of trace t
 * (sim/trace.h, sim_trace_message: its bytes, the time it waited for its links, and what the
 * caller of sim_net_reserve_tagged says it is; borrowed, NULL = off). */
void sim_net_set_trace(sim_net_t *n, sim_trace_t *t);

/* Whether a trace is set: callers build a message's tag only then. */
bool sim_net_traced(const sim_net_t *n);

/* Adds an idle link; bandwidth_Bps must be finite and > 0, latency_ns >= 0 (the scenario
 * loader validates user values; here they are invariants).  Returns its id: 0, 1, 2, ... */
int sim_net_add_link(sim_net_t *n, double bandwidth_Bps, int64_t latency_ns);

int sim_net_nlinks(const sim_net_t *n);

/* Gives link `id` a new bandwidth (finite, > 0) for the messages reserved from now on: one
 * already reserved keeps the times it was given (a device's link while that device holds
 * it, sim_star_set_endpoint_bandwidth).  Checkpoints do not save bandwidths (see below), so
 * whoever changes one sets it again after a restore. */
void sim_net_set_bandwidth(sim_net_t *n, int id, double bandwidth_Bps);

/* Read-only view of link `id`; valid until the next sim_net_add_link. */
const sim_link_t *sim_net_link(const sim_net_t *n, int id);

/* Reserves a message of `bytes` ready to leave at t_ns over route[0..nroute) (nroute >= 1,
 * each link at most once) per the model above, updating the links' free_at_ns and counters.
 * Returns the arrival time, ns. */
int64_t sim_net_reserve(sim_net_t *n, const int *route, int nroute, uint64_t bytes,
                        int64_t t_ns);

/* sim_net_reserve of a message that the timeline shows as `tag` says (NULL: untagged); the
 * tag changes nothing else. */
int64_t sim_net_reserve_tagged(sim_net_t *n, const int *route, int nroute, uint64_t bytes,
                               int64_t t_ns, const sim_trace_msg_t *tag);

/* Checkpoints: every link's state (free_at_ns and its counters), restored into a network
 * built as the saved one was (the same number of links; bandwidths and latencies come from
 * the scenario, which the checkpoint's header pins). */
void sim_net_save(const sim_net_t *n, sgd_ckw_t *w);
int sim_net_restore(sim_net_t *n, sgd_ckr_t *r, sgd_err_t *err);
/* After a restore: no link is busy past `latest` (sim_engine_latest: a message booked on a
 * link arrives by an event still pending).  0, or -1 with err naming the link. */
int sim_net_check_times(const sim_net_t *n, int64_t latest, sgd_err_t *err);

/* Star: p endpoints, endpoint i with an uplink (its transmit side) and a downlink (its
 * receive side) into a non-blocking switch, all links of the same bandwidth and latency.
 * A message from i to j uses uplink i then downlink j, so its latency is 2 * latency_ns and
 * it contends only with traffic leaving i or entering j. */
typedef struct sim_star {
    int p;         /* endpoints */
    int uplink0;   /* uplink of endpoint i is link uplink0 + i */
    int downlink0; /* downlink of endpoint i is link downlink0 + i */
} sim_star_t;

/* Adds the star's 2p links to n (ids contiguous) and describes them in *s.  p >= 1. */
void sim_star_init(sim_star_t *s, sim_net_t *n, int p, double bandwidth_Bps,
                   int64_t latency_ns);

/* Writes the route from endpoint `from` to endpoint `to` (from != to) and returns its
 * length, 2. */
int sim_star_route(const sim_star_t *s, int from, int to, int route[2]);

/* Endpoint i's uplink and downlink take bandwidth_Bps (sim_net_set_bandwidth): a message
 * from or to i then runs at the lower of that and the other end's. */
void sim_star_set_endpoint_bandwidth(const sim_star_t *s, sim_net_t *n, int i,
                                     double bandwidth_Bps);

#endif
