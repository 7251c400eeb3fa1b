/* Checkpoints of the slots' clients and FedAvg's rounds (ps_clients.h, ps_slots.c), called by
 * the family's checkpoints (ps_ckpt.c) where they save each slot and the driver: what a
 * slot's client and its task are, the round under way, and the checks restore makes of
 * them -- every client index below lambda (a slot's own in fixed mode, a busy one when
 * sampled), each busy client in exactly one slot, task indices and steps a task can have,
 * times not negative, a round's counts consistent with the pushes buffered. */
#include "algorithms/ps_state.h"

/* A slot's client and its task, where the run keeps them (ps_pop_extended). */
void ps_slot_save(const ps_t *p, const ps_client_t *c, sgd_ckw_t *w)
{
    sgd_ckw_i64(w, c->id);
    sgd_ckw_i64(w, c->task);
    sgd_ckw_i64(w, c->task_steps);
    sgd_ckw_i64(w, c->task_start);
    if (p->pop.behaviour) sim_client_avail_save(&c->avail, w);
}

/* What save_slot wrote for slot k: a client in range (its own in fixed mode; a sampled one
 * must be marked busy), a task index and steps a task can have, a time. */
void ps_slot_restore(ps_t *p, int64_t k, ps_client_t *c, sgd_ckr_t *r)
{
    c->id = sgd_ckr_i64(r);
    c->task = sgd_ckr_i64(r);
    c->task_steps = sgd_ckr_i64(r);
    c->task_start = sgd_ckr_i64(r);
    if (p->pop.behaviour) sim_client_avail_restore(&c->avail, r);
    if (r->failed) return;
    const bool id_ok = p->pop.sampling ? c->id >= -1 && c->id < p->lambda &&
                                             (c->id < 0 || p->pop.busy[c->id] == 1)
                                       : c->id == k;
    const int64_t max_steps = p->o->local.count * (p->ctx->train->n + 1);
    if (!id_ok || c->task < 0 || c->task > UINT32_MAX || c->task_steps < 0 ||
        c->task_steps > max_steps || c->task_start < 0)
        sgd_ckr_fail(r, "slot %lld: client %lld, task %lld of %lld steps started at %lld ns",
                     (long long)k, (long long)c->id, (long long)c->task,
                     (long long)c->task_steps, (long long)c->task_start);
    else if (p->pop.behaviour && c->id >= 0 && c->avail.client != (uint64_t)c->id)
        sgd_ckr_fail(r, "slot %lld: client %lld holds client %llu's availability cursor",
                     (long long)k, (long long)c->id, (unsigned long long)c->avail.client);
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

