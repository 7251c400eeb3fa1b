/* LSGD's checkpoints (alg.h, alg_ckpt_ops_t): the synchronous machinery's state (sync.h),
 * every worker's place in its iteration, the nodes' timeline times, and the collectives --
 * their message-level state, or the closed form's counters. */
#include "algorithms/lsgd_state.h"

static void save_i64s(sgd_ckw_t *w, const int64_t *v, int n)
{
    for (int i = 0; i < n; i++) sgd_ckw_i64(w, v[i]);
}

static void restore_i64s(sgd_ckr_t *r, int64_t *v, int n)
{
    for (int i = 0; i < n; i++) v[i] = sgd_ckr_i64(r);
}

static void save_workers_and_nodes(const lsgd_t *l, sgd_ckw_t *w)
{
    for (int i = 0; i < l->p; i++) {
        const lsgd_worker_t *k = &l->w[i];
        sgd_ckw_u64(w, (uint64_t)k->loaded | (uint64_t)k->have_update << 1 |
                           (uint64_t)k->stepping << 2);
        sgd_ckw_i64(w, k->iter);
        sgd_ckw_i64(w, k->t_reduce_ns);
        sgd_ckw_i64(w, k->t_bcast_ns);
    }
    save_i64s(w, l->comm_t0_ns, l->n);
    for (int a = 0; a < l->n; a++) {
        const struct lsgd_node_times *t = &l->times[a];
        const int64_t v[4] = {t->comm_in, t->worker_in, t->result, t->posted};
        save_i64s(w, v, 4);
    }
}

static void restore_workers_and_nodes(lsgd_t *l, sgd_ckr_t *r)
{
    for (int i = 0; i < l->p && !r->failed; i++) {
        lsgd_worker_t *k = &l->w[i];
        uint64_t flags = sgd_ckr_count(r, 7, "worker flags");
        *k = (lsgd_worker_t){.loaded = flags & 1, .have_update = (flags >> 1) & 1,
                             .stepping = (flags >> 2) & 1};
        k->iter = sgd_ckr_i64(r);
        k->t_reduce_ns = sgd_ckr_i64(r);
        k->t_bcast_ns = sgd_ckr_i64(r);
    }
    restore_i64s(r, l->comm_t0_ns, l->n);
    for (int a = 0; a < l->n; a++) {
        int64_t v[4];
        restore_i64s(r, v, 4);
        l->times[a] = (struct lsgd_node_times){v[0], v[1], v[2], v[3]};
    }
}

static int lsgd_save(const void *state, sgd_ckw_t *w, sgd_err_t *err)
{
    const lsgd_t *l = state;
    if (alg_sync_save(&l->y, w, err)) return -1;
    sgd_ckw_tag(w, "lsgd");
    save_workers_and_nodes(l, w);
    sgd_ckw_i64(w, l->ncomputed);
    sgd_ckw_i64(w, l->nstepped);
    sgd_ckw_u64(w, l->exchanges);
    if (l->analytic) {
        sgd_ckw_i64(w, l->comms_entered);
        for (int a = 0; a < l->n; a++) {
            sgd_ckw_i64(w, l->node_entered[a]);
            sgd_ckw_i64(w, l->node_last_entry[a]);
            sgd_ckw_u64(w, l->node_has_result[a]);
            sgd_ckw_i64(w, l->node_posted[a]);
        }
        return 0;
    }
    for (int a = 0; a < l->n; a++) {
        sim_coll_save(l->node_reduce[a], w);
        sim_coll_save(l->node_bcast[a], w);
    }
    sim_coll_save(l->inter, w);
    return 0;
}

/* The analytic fidelity's counters, each checked against what it counts. */
static void restore_analytic(lsgd_t *l, sgd_ckr_t *r)
{
    l->comms_entered = (int)sgd_ckr_count(r, (uint64_t)l->n, "communicators entered");
    for (int a = 0; a < l->n && !r->failed; a++) {
        l->node_entered[a] = (int)sgd_ckr_count(r, (uint64_t)l->g, "workers entered");
        l->node_last_entry[a] = sgd_ckr_i64(r);
        l->node_has_result[a] = sgd_ckr_count(r, 1, "node result") != 0;
        l->node_posted[a] = (int)sgd_ckr_count(r, (uint64_t)l->g, "workers posted");
    }
}

static int lsgd_restore(void *state, sgd_ckr_t *r, sgd_err_t *err)
{
    lsgd_t *l = state;
    if (alg_sync_restore(&l->y, r, err)) return -1;
    sgd_ckr_tag(r, "lsgd");
    restore_workers_and_nodes(l, r);
    l->ncomputed = (int)sgd_ckr_count(r, (uint64_t)l->p, "gradients computed");
    l->nstepped = (int)sgd_ckr_count(r, (uint64_t)l->p, "workers stepped");
    l->exchanges = sgd_ckr_u64(r);
    if (l->analytic) restore_analytic(l, r);
    if (sgd_ckr_check(r, "lsgd", err)) return -1;
    if (l->analytic) return 0;
    for (int a = 0; a < l->n; a++)
        if (sim_coll_restore(l->node_reduce[a], r, err) ||
            sim_coll_restore(l->node_bcast[a], r, err))
            return -1;
    return sim_coll_restore(l->inter, r, err);
}

static size_t lsgd_state_size(const void *state)
{
    const lsgd_t *l = state;
    return alg_sync_state_size(&l->y) + (size_t)l->p * 32 + (size_t)l->n * 64 + 64;
}

const alg_ckpt_ops_t lsgd_ckpt_ops = {
    .state_size = lsgd_state_size, .save = lsgd_save, .restore = lsgd_restore,
    .backend_state = true};
