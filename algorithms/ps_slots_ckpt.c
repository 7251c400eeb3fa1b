/* Checkpoints of the slots' clients and FedAvg's rounds (ps_clients.h, ps_slots.c), called by
 * the family's checkpoints (ps_ckpt.c) where they save each slot and the driver: what a
 * slot's client and its task are, the round under way, and the checks restore makes of
 * them -- every client index below lambda (a slot's own in fixed mode, a busy one when
 * sampled), each busy client in exactly one slot, task indices and steps a task can have,
 * times not negative and not after now, a round's counts consistent with the pushes
 * buffered -- and of the events found pending (ps_check.c): a dropout for a slot whose
 * client runs a task, a retry for a slot that waits (a round's, when a round found
 * nobody). */
#include <stdio.h>

#include "algorithms/ps_state.h"

/* Whether a slot's availability cursor is saved: a renewal process's is where its walk is
 * (and its stream); FedScale's trace answers from the trace alone, so its cursor is placed
 * again on restore, and "always" has none to speak of but is saved like a renewal's. */
static bool saves_cursor(const ps_t *p)
{
    return p->pop.behaviour && p->pop.model.avail != SIM_AVAIL_TRACE;
}

/* A slot's client and its task, where the run keeps them (ps_pop_extended). */
void ps_slot_save(const ps_t *p, const ps_client_t *c, sgd_ckw_t *w)
{
    sgd_ckw_i64(w, c->id);
    sgd_ckw_i64(w, c->task);
    sgd_ckw_i64(w, c->task_steps);
    sgd_ckw_i64(w, c->task_start);
    if (saves_cursor(p)) sim_client_avail_save(&c->avail, w);
}

/* What save_slot wrote for slot k: a client in range (its own in fixed mode; a sampled one
 * must be marked busy), a task index and steps a task can have, a time. */
void ps_slot_restore(ps_t *p, int64_t k, ps_client_t *c, sgd_ckr_t *r)
{
    c->id = sgd_ckr_i64(r);
    c->task = sgd_ckr_i64(r);
    c->task_steps = sgd_ckr_i64(r);
    c->task_start = sgd_ckr_i64(r);
    if (saves_cursor(p)) sim_client_avail_restore(&c->avail, r);
    if (r->failed) return;
    const bool id_ok = p->pop.sampling ? c->id >= -1 && c->id < p->lambda &&
                                             (c->id < 0 || p->pop.busy[c->id] == 1)
                                       : c->id == k;
    const int64_t max_steps = p->o->local.count * (p->ctx->train->n + 1);
    if (!id_ok || c->task < 0 || c->task > UINT32_MAX || c->task_steps < 0 ||
        c->task_steps > max_steps || c->task_start < 0 ||
        c->task_start > sim_engine_now(p->ctx->engine))
        sgd_ckr_fail(r, "slot %lld: client %lld, task %lld of %lld steps started at %lld ns",
                     (long long)k, (long long)c->id, (long long)c->task,
                     (long long)c->task_steps, (long long)c->task_start);
    else if (saves_cursor(p) && c->id >= 0 && c->avail.client != (uint64_t)c->id)
        sgd_ckr_fail(r, "slot %lld: client %lld holds client %llu's availability cursor",
                     (long long)k, (long long)c->id, (unsigned long long)c->avail.client);
    else if (p->pop.behaviour && !saves_cursor(p) && c->id >= 0)
        sim_client_avail_start(&p->pop.model, (uint64_t)c->id, &c->avail);
}

/* Sampling: every busy client is in exactly one slot. */
void ps_slots_check_busy(const ps_t *p, sgd_ckr_t *r)
{
    if (r->failed || !p->pop.sampling) return;
    int64_t busy = 0, held = 0;
    for (int64_t i = 0; i < p->lambda; i++) busy += p->pop.busy[i];
    for (int64_t k = 0; k < p->nslots; k++) {
        held += p->cl[k].id >= 0;
        for (int64_t j = 0; j < k && p->cl[k].id >= 0; j++)
            if (p->cl[j].id == p->cl[k].id) {
                sgd_ckr_fail(r, "client %lld in slots %lld and %lld", (long long)p->cl[k].id,
                             (long long)j, (long long)k);
                return;
            }
    }
    if (busy != held)
        sgd_ckr_fail(r, "%lld clients busy, %lld in slots", (long long)busy, (long long)held);
}

void ps_round_save(const ps_t *p, sgd_ckw_t *w)
{
    if (p->o->rule->protocol != PS_PROTO_ROUNDS) return;
    sgd_ckw_tag(w, "round");
    sgd_ckw_i64(w, p->round.selected);
    sgd_ckw_i64(w, p->round.done);
}

/* A round: at most C clients selected, fewer done than selected (the last one ends it), and
 * its pushes in the buffer no more than those done. */
void ps_round_restore(ps_t *p, sgd_ckr_t *r)
{
    if (p->o->rule->protocol != PS_PROTO_ROUNDS) return;
    sgd_ckr_tag(r, "round");
    p->round.selected = sgd_ckr_i64(r);
    p->round.done = sgd_ckr_i64(r);
    if (!r->failed &&
        (p->round.selected < 0 || p->round.selected > p->nslots || p->round.done < 0 ||
         (p->round.selected > 0 && p->round.done >= p->round.selected) ||
         p->sched.nbuf > p->round.done))
        sgd_ckr_fail(r, "a round with %lld of %lld clients done and %lld pushes buffered",
                     (long long)p->round.done, (long long)p->round.selected,
                     (long long)p->sched.nbuf);
}

/* Each slot's device follows from its client (the links' bandwidths are not saved). */
void ps_slots_restore_devices(ps_t *p)
{
    if (p->o->driver != PS_DRIVER_TIMED || !(p->pop.sampling || p->pop.behaviour)) return;
    for (int64_t k = 0; k < p->nslots; k++)
        if (p->cl[k].id >= 0) ps_slot_device(p, (int)k);
}


/* ---- the events pending ---------------------------------------------------------------- */

/* One more event of `count[entity]`'s kind for a slot in range (arg unused). */
static bool count_slot(const ps_t *p, int32_t *count, const sim_event_t *ev, char *why,
                       size_t size)
{
    if (ev->entity < (uint64_t)p->nslots && ev->arg == 0) {
        count[ev->entity]++;
        return true;
    }
    snprintf(why, size, "slot %u of %lld", ev->entity, (long long)p->nslots);
    return false;
}

static bool check_dropout(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    ps_t *p = arg;
    return count_slot(p, p->ck.dropout, ev, why, size);
}

/* A slot's retry, or a round's (rounds only). */
static bool check_retry(void *arg, const sim_event_t *ev, char *why, size_t size)
{
    ps_t *p = arg;
    if (ev->entity == PS_ROUND_ENTITY && ev->arg == 0 &&
        p->o->rule->protocol == PS_PROTO_ROUNDS) {
        p->ck.round_retry++;
        return true;
    }
    return count_slot(p, p->ck.retry, ev, why, size);
}

void ps_slots_set_checks(ps_t *p)
{
    p->ck.dropout = SGD_ARENA_NEW(&p->arena, p->nslots, int32_t);
    p->ck.retry = SGD_ARENA_NEW(&p->arena, p->nslots, int32_t);
    sim_engine_set_check(p->ctx->engine, p->slots.ev_dropout, check_dropout);
    sim_engine_set_check(p->ctx->engine, p->slots.ev_retry, check_retry);
}

void ps_slots_reset_checks(ps_t *p)
{
    p->ck.round_retry = 0;
    for (int64_t k = 0; k < p->nslots; k++) p->ck.dropout[k] = p->ck.retry[k] = 0;
}

int64_t ps_slot_expected_places(const ps_t *p, int64_t k)
{
    const ps_client_t *c = &p->cl[k];
    if (p->o->rule->protocol == PS_PROTO_ROUNDS && c->id < 0) return 0; /* not in this round */
    /* fixed mode: a client offline for good (a trace client without windows) waits with no
     * event at all */
    if (p->pop.behaviour && !p->pop.sampling && !c->avail.online &&
        c->avail.until_ns >= SIM_TIME_BEYOND_NS && p->ck.retry[k] == 0 &&
        p->ck.compute[k] == 0 && p->ck.fetch[k] == 0 && p->ck.push[k] == 0)
        return 0;
    return 1;
}

int64_t ps_slot_pending(const ps_t *p, int64_t k)
{
    return p->ck.dropout ? p->ck.dropout[k] + p->ck.retry[k] : 0;
}

/* Sampling: an empty slot waits for its retry (rounds: slots wait for the next round); a
 * dropout is pending only for a slot whose client runs a task; a round that found nobody
 * waits for its retry, and only then. */
int ps_slots_verify(const ps_t *p, sgd_err_t *err)
{
    if (!p->ck.dropout) return 0;
    const bool rounds = p->o->rule->protocol == PS_PROTO_ROUNDS;
    for (int64_t k = 0; k < p->nslots; k++) {
        const ps_client_t *c = &p->cl[k];
        if (p->ck.dropout[k] > 0 && c->id < 0)
            return sgd_errf(err, "parameter server: slot %lld: a dropout pending without a "
                                 "client", (long long)k);
        if (p->pop.sampling && !rounds && (c->id < 0) != (p->ck.retry[k] == 1))
            return sgd_errf(err, "parameter server: slot %lld: %s with %d retries pending",
                            (long long)k, c->id < 0 ? "empty" : "holding a client",
                            p->ck.retry[k]);
        if (rounds && p->ck.retry[k] != 0)
            return sgd_errf(err, "parameter server: slot %lld: a retry pending in a round",
                            (long long)k);
    }
    if (p->ck.round_retry != (rounds && p->round.selected == 0 ? 1 : 0))
        return sgd_errf(err, "parameter server: %lld round retries pending with %lld clients "
                             "in the round", (long long)p->ck.round_retry,
                        (long long)p->round.selected);
    return 0;
}
