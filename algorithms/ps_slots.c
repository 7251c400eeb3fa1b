/* Slots with sampling or a clients section (ps_clients.h), and FedAvg's rounds.
 *
 * A slot is filled with a client -- sampled (ps_pop_pick), or its own client i in fixed mode
 * once that client is online -- whose device it takes (compute factor: cluster.time_factor of
 * the client times the behaviour model's factor; its link in the star: the client's
 * bandwidth), and which then fetches.  Each task's fate is asked of the behaviour model when
 * the task starts computing (sim_client_task, keyed by the client's task index): a task that
 * fails ends at the time the model says with event ps.dropout, and its slot frees without a
 * push.  A slot that finds nobody waits: sampling, clients.retry_s; fixed, until its client's
 * next change of state.
 *
 * Rounds (FedAvg, PS_PROTO_ROUNDS).  A round samples c = clients_per_round clients into slots
 * 0 .. selected - 1 (a slot whose draws found nobody stays empty this round; a round that
 * found nobody starts again after clients.retry_s), and each fetches the current version.  The
 * round ends when every selected client has pushed or dropped out: with at least one push the
 * server makes the update of the pushes it took in, and the next round starts at once; a round
 * in which every client dropped out makes no update (it is counted) and the next starts. */
#include "algorithms/ps_state.h"
#include "sim/rng.h"

int64_t ps_client_samples(const ps_t *p, int64_t i)
{
    return ps_pop_samples(&p->pop, i);
}

/* cluster.time_factor of client i: the first draw of its speed stream, as in fixed mode. */
static double speed_factor(ps_t *p, int64_t i)
{
    sim_rng_reseed(p->pop.scratch, p->s->seed, SIM_STREAM_SPEED, (uint64_t)i);
    return sim_dist_sample(&p->s->time_factor, p->pop.scratch);
}

void ps_slot_device(ps_t *p, int k)
{
    ps_client_t *c = &p->cl[k];
    double factor = speed_factor(p, c->id);
    if (p->pop.behaviour) {
        const sim_client_device_t d = sim_client_device(&p->pop.model, (uint64_t)c->id);
        factor *= d.compute_factor;
        sim_star_set_endpoint_bandwidth(&p->timed.star, p->timed.net, k + 1, d.bandwidth_Bps);
    }
    c->timed.time_factor = factor;
}

void ps_slot_streams(ps_t *p, int k)
{
    ps_client_t *c = &p->cl[k];
    ps_task_stream(c->timed.compute_rng, p->s->seed, SIM_STREAM_COMPUTE, c->id, c->task);
    ps_task_stream(c->timed.io_rng, p->s->seed, SIM_STREAM_IO, c->id, c->task);
}

/* Client i takes slot k: its availability cursor, its device. */
static void assign(ps_t *p, int k, int64_t i)
{
    ps_client_t *c = &p->cl[k];
    c->id = i;
    if (p->pop.behaviour) sim_client_avail_start(&p->pop.model, (uint64_t)i, &c->avail);
    ps_slot_device(p, k);
}

static void schedule_retry(ps_t *p, uint32_t entity, int64_t at)
{
    if (at < SIM_TIME_BEYOND_NS)
        sim_engine_schedule(p->ctx->engine, at, p->slots.ev_retry, entity, 0, NULL);
}

static int64_t retry_at(const ps_t *p, int64_t now)
{
    return sim_time_add(now, sim_seconds_to_ns(p->pop.retry_s));
}

/* Slot k takes its next client at now and fetches for it, or waits (file comment). */
static void fill(ps_t *p, int k, int64_t now)
{
    ps_client_t *c = &p->cl[k];
    if (p->pop.sampling) {
        const int64_t i = ps_pop_pick(&p->pop, now);
        if (i < 0) {
            schedule_retry(p, (uint32_t)k, retry_at(p, now));
            return;
        }
        assign(p, k, i);
    } else if (!sim_client_online(&p->pop.model, &c->avail, now)) {
        p->pop.stats.waits++;
        schedule_retry(p, (uint32_t)k, sim_client_next_change(&p->pop.model, &c->avail, now));
        return;
    }
    ps_fetch_opportunity(p, k, now);
}

/* ---- rounds ---------------------------------------------------------------------------- */

static void round_start(ps_t *p, int64_t now)
{
    p->round.selected = p->round.done = 0;
    for (int64_t k = 0; k < p->nslots; k++) {
        const int64_t i = ps_pop_pick(&p->pop, now);
        if (i >= 0) assign(p, (int)p->round.selected++, i);
    }
    if (p->round.selected == 0) {
        schedule_retry(p, PS_ROUND_ENTITY, retry_at(p, now));
        return;
    }
    p->pop.stats.rounds++;
    for (int64_t k = 0; k < p->round.selected; k++) ps_fetch_opportunity(p, (int)k, now);
}

/* One more selected client is done (slot k); the last one ends the round. */
static void round_done(ps_t *p, int k, int64_t now, bool pushed)
{
    p->pop.busy[p->cl[k].id] = 0;
    p->cl[k].id = -1;
    if (++p->round.done < p->round.selected) {
        if (pushed) ps_trace_receive(p, k, now, false, 0);
        return;
    }
    const int64_t n = p->sched.nbuf;
    if (n == 0) {
        p->pop.stats.rounds_empty++;
        round_start(p, now);
        return;
    }
    const int64_t version = p->srv.version;
    const bool more = ps_schedule_update(p, now);
    if (pushed) ps_trace_receive(p, k, now, p->srv.version != version, n);
    else ps_trace_closed(p, k, now, n);
    p->sched.nbuf = 0;
    if (more) round_start(p, now);
}

void ps_round_pushed(ps_t *p, int k, int64_t now)
{
    round_done(p, k, now, true);
}

/* ---- slots ------------------------------------------------------------------------------ */

void ps_slot_free(ps_t *p, int k, int64_t now)
{
    if (p->pop.sampling) {
        p->pop.busy[p->cl[k].id] = 0;
        p->cl[k].id = -1;
    }
    fill(p, k, now);
}

bool ps_slot_drops(ps_t *p, int k, int64_t now, int64_t duration)
{
    ps_client_t *c = &p->cl[k];
    c->task_start = now;
    const sim_client_task_t f =
        sim_client_task(&p->pop.model, &c->avail, (uint64_t)c->task, now, duration);
    if (f.completes) return false;
    sim_engine_schedule(p->ctx->engine, f.end_ns, p->slots.ev_dropout, (uint32_t)k, 0, NULL);
    return true;
}

static void on_dropout(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    ps_t *p = arg;
    const int k = (int)ev->entity;
    ps_client_t *c = &p->cl[k];
    p->pop.stats.dropped++;
    p->pop.stats.lost_ns += ev->t_ns - c->task_start;
    const sim_trace_arg_t who[] = {SIM_TRACE_I("client", c->id)};
    ps_trace_client(p, k, "dropped", c->task_start, ev->t_ns, who, 1);
    if (p->o->rule->protocol == PS_PROTO_ROUNDS) round_done(p, k, ev->t_ns, false);
    else ps_slot_free(p, k, ev->t_ns);
}

static void on_retry(sim_engine_t *e, const sim_event_t *ev, void *arg)
{
    (void)e;
    ps_t *p = arg;
    if (ev->entity == PS_ROUND_ENTITY) round_start(p, ev->t_ns);
    else fill(p, (int)ev->entity, ev->t_ns);
}

void ps_slots_register(ps_t *p)
{
    sim_engine_t *e = p->ctx->engine;
    p->slots.ev_dropout = sim_engine_register(e, "ps.dropout", on_dropout, p);
    p->slots.ev_retry = sim_engine_register(e, "ps.retry", on_retry, p);
}

/* The first events.  Sampling: every slot takes a client that fetches (rounds: the first
 * round).  Fixed: client i starts computing on the initial parameters as without a clients
 * section, once it is online. */
void ps_slots_start(ps_t *p)
{
    if (p->o->rule->protocol == PS_PROTO_ROUNDS) {
        round_start(p, 0);
        return;
    }
    for (int64_t k = 0; k < p->nslots; k++) {
        ps_client_t *c = &p->cl[k];
        if (p->pop.sampling) {
            fill(p, (int)k, 0);
            continue;
        }
        assign(p, (int)k, k);
        if (sim_client_online(&p->pop.model, &c->avail, 0)) ps_compute_next(p, (int)k, 0);
        else fill(p, (int)k, 0);
    }
}
