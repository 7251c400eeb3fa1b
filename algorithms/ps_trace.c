/* The parameter-server family's timeline (sim/trace.h): what ps.c's clients, server and
 * links do, recorded where the schedule decides it.
 *
 * Nothing here is read back by the schedule and nothing draws a random number, so a traced
 * run is the same run.  Tracks: "client k" (fetch, io, compute, push, then queued / served /
 * wait update at the server; no wait under fetch "after_push"; with sampling or a clients
 * section the track is a slot, its compute spans name the registered client, and a task cut
 * short is one "dropped" span from its start), "server" (one service span
 * per push it takes in, named "update" when that push completes an update), the star's links
 * (their messages, sim_net_set_trace, each a push or fetch of one client and parameter
 * version); flows from each push to its update; counters: the server's queue, the staleness
 * of each update and the bytes in flight.  The uniform driver has no clock: its pushes and
 * updates are 1 ns spans at their iteration's time (iteration i at i + 1 ns). */
#include <stdbool.h>
#include <stdint.h>

#include "algorithms/ps_state.h"
#include "sim/trace.h"

#define PS_SERVER_TRACK 0u

sim_trace_t *ps_trace_of(const ps_t *p) { return p->ctx->trace; }

static int64_t midpoint(int64_t t0, int64_t t1) { return t0 + (t1 - t0) / 2; }

void ps_trace_client(const ps_t *p, int k, const char *name, int64_t t0, int64_t t1,
                     const sim_trace_arg_t *args, int nargs)
{
    sim_trace_span_args(ps_trace_of(p), SIM_TRACK_WORKER, (uint32_t)k, name, t0, t1, args, nargs);
}

/* Star endpoint 0 is the server, endpoint k + 1 client k. */
static void trace_name_links(const ps_t *p, sim_trace_t *t)
{
    const sim_star_t *st = &p->timed.star;
    char name[64];
    sim_trace_name_track(t, SIM_TRACK_LINK, (uint32_t)st->uplink0, "server uplink (fetches)");
    sim_trace_name_track(t, SIM_TRACK_LINK, (uint32_t)st->downlink0, "server downlink (pushes)");
    for (int64_t k = 0; k < p->nslots; k++) {
        snprintf(name, sizeof name, "client %lld uplink", (long long)k);
        sim_trace_name_track(t, SIM_TRACK_LINK, (uint32_t)(st->uplink0 + k + 1), name);
        snprintf(name, sizeof name, "client %lld downlink", (long long)k);
        sim_trace_name_track(t, SIM_TRACK_LINK, (uint32_t)(st->downlink0 + k + 1), name);
    }
}

void ps_trace_tracks(ps_t *p)
{
    sim_trace_t *t = ps_trace_of(p);
    if (!t) return;
    char name[48];
    for (int64_t k = 0; k < p->nslots; k++) {
        snprintf(name, sizeof name, "client %lld", (long long)k);
        sim_trace_name_track(t, SIM_TRACK_WORKER, (uint32_t)k, name);
    }
    sim_trace_name_track(t, SIM_TRACK_SERVER, PS_SERVER_TRACK, "server");
    if (p->o->driver == PS_DRIVER_UNIFORM) {
        sim_trace_note(t, "time_axis", "iterations: driver \"uniform\" has no clock; 1 ns of "
                                       "trace time is one iteration");
        sim_trace_warn(t, "driver \"uniform\" has no clock: the timeline's spans are "
                          "iterations (1 ns = 1 iteration), not time");
        return;
    }
    sim_trace_note(t, "time_axis", "virtual time");
    sim_net_set_trace(p->timed.net, t);
    trace_name_links(p, t);
}

void ps_trace_in_flight(const ps_t *p, int64_t now)
{
    const sim_trace_arg_t v[] = {SIM_TRACE_I("push", p->trace.push_bytes),
                                 SIM_TRACE_I("fetch", p->trace.fetch_bytes)};
    sim_trace_counter(ps_trace_of(p), SIM_TRACK_LINK, "bytes in flight", now, v, 2);
}

/* Pushes waiting in the server's queue (the one being served not counted). */
void ps_trace_queue(const ps_t *p, int64_t now)
{
    const sim_trace_arg_t v[] = {SIM_TRACE_I("waiting", p->timed.qlen - p->timed.busy)};
    sim_trace_counter(ps_trace_of(p), SIM_TRACK_SERVER, "server queue", now, v, 1);
}

/* Timed: client k loads its minibatch for io ns, then computes for comp ns; with sampling or
 * a clients section the span names the registered client in the slot. */
void ps_trace_compute(const ps_t *p, int k, int64_t now, int64_t comp, int64_t io)
{
    if (!ps_trace_of(p)) return;
    const sim_trace_arg_t v[] = {SIM_TRACE_I("version", p->cl[k].snap->version),
                                 SIM_TRACE_I("client", p->cl[k].id)};
    const bool named = p->pop.sampling || p->pop.behaviour;
    if (io > 0) ps_trace_client(p, k, "io", now, now + io, NULL, 0);
    ps_trace_client(p, k, "compute", now + io, now + io + comp, v, named ? 2 : 1);
}

/* Timed: books client k's push or fetch (kind) of parameter version `version` on the star,
 * tagged for the timeline when it is traced.  Returns the arrival time. */
int64_t ps_trace_reserve(const ps_t *p, const int route[2], uint64_t bytes, int64_t now,
                         const char *kind, int k, int64_t version)
{
    if (!ps_trace_of(p)) return sim_net_reserve(p->timed.net, route, 2, bytes, now);
    const sim_trace_arg_t group[] = {SIM_TRACE_I("client", k), SIM_TRACE_I("version", version)};
    const sim_trace_msg_t tag = {kind, group, 2, NULL, 0};
    return sim_net_reserve_tagged(p->timed.net, route, 2, bytes, now, &tag);
}

/* Timed: when a message of `bytes` just reserved on `route` started to move.  Per
 * network.h it occupies every link of the route from then until the links' free_at_ns, for
 * its transfer time at the route's bottleneck bandwidth; before, it waited for the links. */
int64_t ps_trace_moved_at(const ps_t *p, const int route[2], uint64_t bytes)
{
    const sim_link_t *a = sim_net_link(p->timed.net, route[0]);
    const sim_link_t *b = sim_net_link(p->timed.net, route[1]);
    double bw = a->bandwidth_Bps < b->bandwidth_Bps ? a->bandwidth_Bps : b->bandwidth_Bps;
    return a->free_at_ns - sim_transfer_ns(bytes, bw);
}

/* Client k's push, sent at t0, moving from `moved` (after waiting for the links) and at the
 * server at t1 (uniform: t0 = moved, t1 = t0 + 1); a flow leaves from it. */
void ps_trace_push(ps_t *p, int k, int64_t t0, int64_t moved, int64_t t1, uint64_t bytes)
{
    sim_trace_t *t = ps_trace_of(p);
    if (!t) return;
    ps_client_t *c = &p->cl[k];
    c->push.flow = ++p->trace.next_flow; /* it travels with the push into the buffer */
    const sim_trace_arg_t v[] = {SIM_TRACE_I("version", c->push.version),
                                 SIM_TRACE_I("gradients", c->push.nreq),
                                 SIM_TRACE_I("bytes", bytes),
                                 SIM_TRACE_I("reapply", c->push.reapply)};
    if (moved > t0) ps_trace_client(p, k, "wait link", t0, moved, NULL, 0);
    ps_trace_client(p, k, "push", moved, t1, v, 4);
    sim_trace_flow_start(t, SIM_TRACK_WORKER, (uint32_t)k, "push to update", c->push.flow,
                         midpoint(moved, t1));
    if (p->o->driver == PS_DRIVER_UNIFORM) return;
    p->trace.push_bytes += bytes;
    ps_trace_in_flight(p, t0);
}

/* Client k's fetch of `snap`: the reply leaves at t0, moves from `moved`, arrives at t1 (with
 * sampling or a clients section: the registered client, and t0 -- when it was chosen). */
void ps_trace_fetch(ps_t *p, int k, int64_t t0, int64_t moved, int64_t t1,
                    const ps_snap_t *snap)
{
    if (!ps_trace_of(p)) return;
    const sim_trace_arg_t v[] = {SIM_TRACE_I("version", snap->version),
                                 SIM_TRACE_I("bytes", p->msg_bytes),
                                 SIM_TRACE_I("client", p->cl[k].id), SIM_TRACE_I("sent_ns", t0)};
    const bool named = p->pop.sampling || p->pop.behaviour;
    if (moved > t0) ps_trace_client(p, k, "wait link", t0, moved, NULL, 0);
    ps_trace_client(p, k, "fetch", moved, t1, v, named ? 4 : 2);
    p->trace.fetch_bytes += p->msg_bytes;
    ps_trace_in_flight(p, t0);
}

/* The update the server just made from the n pushes of p->sched.pushes (p->sched.buf, not yet
 * emptied, holds their flows), shown as the span [u0, u1] of the server's track (written
 * before the flows that end in it, so that a viewer reading events in file order at equal
 * times finds it open); under fetch "after_update" the clients that waited for the rest of
 * the update get a "wait update" span; the staleness counter gets a sample. */
static void trace_update(const ps_t *p, int k, int64_t n, int64_t u0, int64_t u1)
{
    sim_trace_t *t = ps_trace_of(p);
    int64_t tau_max = 0;
    double tau_sum = 0;
    for (int64_t b = 0; b < n; b++) {
        tau_sum += (double)p->sched.pushes[b].tau;
        if (p->sched.pushes[b].tau > tau_max) tau_max = p->sched.pushes[b].tau;
    }
    const sim_trace_arg_t v[] = {SIM_TRACE_I("update", p->srv.version),
                                 SIM_TRACE_I("client", k), SIM_TRACE_I("pushes", n),
                                 SIM_TRACE_D("staleness_mean", tau_sum / (double)n),
                                 SIM_TRACE_I("staleness_max", tau_max)};
    sim_trace_span_args(t, SIM_TRACK_SERVER, PS_SERVER_TRACK, "update", u0, u1, v, 5);
    const bool waited =
        p->o->driver == PS_DRIVER_TIMED && p->o->fetch == PS_FETCH_AFTER_UPDATE;
    for (int64_t b = 0; b < n; b++) {
        const int32_t j = p->sched.pushes[b].client;
        const ps_client_t *c = &p->cl[j];
        sim_trace_flow_end(t, SIM_TRACK_SERVER, PS_SERVER_TRACK, p->sched.buf[b].push.flow,
                           midpoint(u0, u1));
        if (waited && j != k && c->trace.t_served < u1)
            ps_trace_client(p, j, "wait update", c->trace.t_served, u1, NULL, 0);
    }
    const sim_trace_arg_t tau[] = {SIM_TRACE_D("mean", tau_sum / (double)n),
                                   SIM_TRACE_I("max", tau_max)};
    sim_trace_counter(t, SIM_TRACK_SERVER, "staleness", u1, tau, 2);
}

/* The server took client k's push in at `now` (timed: after serving it since
 * trace.service_t0); `made` says whether that completed an update, of n pushes. */
void ps_trace_receive(const ps_t *p, int k, int64_t now, bool made, int64_t n)
{
    sim_trace_t *t = ps_trace_of(p);
    if (!t) return;
    bool timed = p->o->driver == PS_DRIVER_TIMED;
    int64_t u0 = timed ? p->trace.service_t0 : now, u1 = timed ? now : now + 1;
    if (timed) ps_trace_client(p, k, "served", u0, u1, NULL, 0);
    if (made) {
        trace_update(p, k, n, u0, u1);
    } else if (timed) {
        const sim_trace_arg_t v[] = {SIM_TRACE_I("client", k)};
        sim_trace_span_args(t, SIM_TRACK_SERVER, PS_SERVER_TRACK, "service", u0, u1, v, 1);
    }
}

/* Rounds: the round's last client dropped out at `now`, which ended the round with the
 * update of the n pushes taken in before (no service span: no push arrived). */
void ps_trace_closed(const ps_t *p, int k, int64_t now, int64_t n)
{
    if (ps_trace_of(p)) trace_update(p, k, n, now, now);
}
