/* The scenario loader's sections other than the model (scenario_sections.h): cluster, data,
 * batch, optimizer, timing, run control, topology and network, numerics.  Defaults and units:
 * docs/scenario.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cJSON.h>

#include "common/json.h"
#include "config/scenario_sections.h"
#include "sim/collective.h"
#include "sim/dist.h"

char *scn_resolve_path(const char *base_dir, const char *p)
{
    if (p[0] == '/' || !base_dir || !base_dir[0] || strcmp(base_dir, ".") == 0)
        return sgd_xstrdup(p);
    size_t n = strlen(base_dir) + strlen(p) + 2;
    char *out = sgd_xmalloc(n);
    snprintf(out, n, "%s/%s", base_dir, p);
    return out;
}

int scn_parse_cluster(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t c;
    static const char *const keys[] = {"workers", "time_factor", NULL};
    /* Any int32 is accepted here; whether that many workers fit in memory is checked, with
     * an estimate, before the run allocates them (algorithms/runner.c). */
    if (sgd_jobj_child(root, "cluster", &c, err) || sgd_jobj_check_keys(&c, keys, err) ||
        sgd_jobj_int(&c, "workers", 4, 1, INT32_MAX, &s->workers, err) ||
        sim_dist_parse(&c, "time_factor", 1.0, &s->time_factor, err))
        return -1;
    return 0;
}

/* data.cache and data.cache_dir, read through a context without a resolved object: they are
 * checked like every field but left out of resolved_json (scenario.h says why). */
static int parse_data_cache(const sgd_jobj_t *d, const char *base_dir, scn_t *s,
                            sgd_err_t *err)
{
    sgd_jobj_t unhashed = *d;
    unhashed.out = NULL;
    const char *dir;
    if (sgd_jobj_bool(&unhashed, "cache", true, &s->data.cache, err) ||
        sgd_jobj_str(&unhashed, "cache_dir", "", &dir, err))
        return -1;
    if (dir[0]) s->data.cache_dir = scn_resolve_path(base_dir, dir);
    return 0;
}

int scn_parse_data(const sgd_jobj_t *root, const char *base_dir, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t d;
    static const char *const keys[] = {"source", "train_images", "train_labels",
                                       "test_images", "test_labels", "train_size",
                                       "validation", "validation_size", "n_train",
                                       "n_validation", "dim", "classes", "separation",
                                       "cache", "cache_dir", "partition", NULL};
    static const char *const sources[] = {"idx", "synthetic", NULL};
    static const char *const val_from[] = {"test", "train_tail", NULL};
    int src, vf;
    if (sgd_jobj_child(root, "data", &d, err) || sgd_jobj_check_keys(&d, keys, err) ||
        sgd_jobj_enum(&d, "source", sources, SCN_DATA_SYNTHETIC, &src, err))
        return -1;
    s->data.source = (scn_data_source_t)src;
    if (s->data.source == SCN_DATA_IDX) {
        const char *ti, *tl, *vi, *vl;
        if (sgd_jobj_str(&d, "train_images", NULL, &ti, err) ||
            sgd_jobj_str(&d, "train_labels", NULL, &tl, err) ||
            sgd_jobj_str(&d, "test_images", "", &vi, err) ||
            sgd_jobj_str(&d, "test_labels", "", &vl, err) ||
            sgd_jobj_int(&d, "train_size", 0, 0, INT32_MAX, &s->data.train_size, err) ||
            sgd_jobj_enum(&d, "validation", val_from, SCN_VAL_TEST, &vf, err) ||
            sgd_jobj_int(&d, "validation_size", 0, 0, INT32_MAX, &s->data.val_size, err) ||
            parse_data_cache(&d, base_dir, s, err))
            return -1;
        s->data.val_from = (scn_val_from_t)vf;
        if (s->data.val_from == SCN_VAL_TEST && (!vi[0] || !vl[0]))
            return sgd_errf(err, "%s: validation \"test\" needs test_images and test_labels",
                            d.path);
        if (s->data.val_from == SCN_VAL_TRAIN_TAIL && s->data.val_size == 0)
            return sgd_errf(err, "%s.validation_size: must be >= 1 with validation "
                                 "\"train_tail\"", d.path);
        s->data.train_images = scn_resolve_path(base_dir, ti);
        s->data.train_labels = scn_resolve_path(base_dir, tl);
        if (vi[0]) s->data.test_images = scn_resolve_path(base_dir, vi);
        if (vl[0]) s->data.test_labels = scn_resolve_path(base_dir, vl);
        for (const char *const *k = (const char *const[]){"n_train", "n_validation", "dim",
                                                         "classes", "separation", NULL};
             *k; k++)
            if (sgd_jobj_has(&d, *k))
                return sgd_errf(err, "%s.%s: only valid with source \"synthetic\"", d.path, *k);
    } else {
        int64_t dim, classes;
        if (sgd_jobj_int(&d, "n_train", 4096, 1, INT32_MAX, &s->data.synth_train, err) ||
            sgd_jobj_int(&d, "n_validation", 1024, 1, INT32_MAX, &s->data.synth_val, err) ||
            sgd_jobj_int(&d, "dim", 32, 1, 1 << 20, &dim, err) ||
            sgd_jobj_int(&d, "classes", 10, 2, 1 << 16, &classes, err) ||
            sgd_jobj_num(&d, "separation", 1.0, 0.0, false, 1e6, &s->data.synth_separation,
                         err))
            return -1;
        s->data.synth_dim = (int)dim;
        s->data.synth_classes = (int)classes;
        for (const char *const *k = (const char *const[]){"train_images", "train_labels",
                                                         "test_images", "test_labels",
                                                         "train_size", "validation",
                                                         "validation_size", "cache",
                                                         "cache_dir", NULL};
             *k; k++)
            if (sgd_jobj_has(&d, *k))
                return sgd_errf(err, "%s.%s: only valid with source \"idx\"", d.path, *k);
    }
    return scn_parse_partition(&d, s, err);
}

int scn_parse_batch(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t b;
    static const char *const keys[] = {"per_worker", "sampling", NULL};
    static const char *const samplings[] = {"shuffle", "sequential", NULL};
    int sampling;
    if (sgd_jobj_child(root, "batch", &b, err) || sgd_jobj_check_keys(&b, keys, err) ||
        sgd_jobj_int(&b, "per_worker", 32, 1, 1 << 20, &s->batch_per_worker, err) ||
        sgd_jobj_enum(&b, "sampling", samplings, 0, &sampling, err))
        return -1;
    s->sampling = (scn_sampling_t)sampling;
    return 0;
}

int scn_parse_optimizer(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t o, sch;
    static const char *const keys[] = {"lr", "momentum", "weight_decay", "nesterov",
                                       "schedule", NULL};
    static const char *const sch_keys[] = {"scaling", "ref_batch", "warmup_updates",
                                           "warmup_start_factor", "milestones", "gamma", NULL};
    static const char *const scalings[] = {"none", "linear", NULL};
    int scaling;
    lr_schedule_t *lr = &s->lr;
    if (sgd_jobj_child(root, "optimizer", &o, err) || sgd_jobj_check_keys(&o, keys, err) ||
        sgd_jobj_num(&o, "lr", 0.1, 0.0, true, HUGE_VAL, &lr->base_lr, err) ||
        sgd_jobj_num(&o, "momentum", 0.0, 0.0, false, 0.999999, &s->sgd.momentum, err) ||
        sgd_jobj_num(&o, "weight_decay", 0.0, 0.0, false, 1e3, &s->sgd.weight_decay, err) ||
        sgd_jobj_bool(&o, "nesterov", false, &s->sgd.nesterov, err) ||
        sgd_jobj_child(&o, "schedule", &sch, err) || sgd_jobj_check_keys(&sch, sch_keys, err) ||
        sgd_jobj_enum(&sch, "scaling", scalings, 0, &scaling, err) ||
        sgd_jobj_int(&sch, "ref_batch", 256, 1, INT32_MAX, &lr->ref_batch, err) ||
        sgd_jobj_int(&sch, "warmup_updates", 0, 0, INT64_MAX, &lr->warmup_updates, err) ||
        sgd_jobj_num(&sch, "warmup_start_factor", 0.0, 0.0, false, 1.0,
                     &lr->warmup_start_lr_factor, err) ||
        sgd_jobj_num(&sch, "gamma", 0.1, 0.0, true, 1.0, &lr->gamma, err))
        return -1;
    lr->scale_kind = scaling == 0 ? LR_SCALE_NONE : LR_SCALE_LINEAR;
    if (s->sgd.nesterov && s->sgd.momentum == 0.0)
        return sgd_errf(err, "%s.nesterov: needs momentum > 0", o.path);

    char path[SGD_JPATH_MAX];
    sgd_jpath_join(path, sizeof path, sch.path, "milestones");
    const cJSON *ms = sch.in ? cJSON_GetObjectItemCaseSensitive(sch.in, "milestones") : NULL;
    lr->nmilestones = 0;
    if (ms) {
        if (!cJSON_IsArray(ms) || cJSON_GetArraySize(ms) > LR_MAX_MILESTONES) {
            char desc[96];
            sgd_json_describe(ms, desc, sizeof desc);
            return sgd_errf(err, "%s: expected an array of at most %d update indices, got %s",
                            path, LR_MAX_MILESTONES, desc);
        }
        int i = 0;
        for (const cJSON *e = ms->child; e; e = e->next, i++) {
            char desc[96];
            sgd_json_describe(e, desc, sizeof desc);
            if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) ||
                e->valuedouble < 1 || e->valuedouble >= 9007199254740992.0)
                return sgd_errf(err, "%s[%d]: expected integer >= 1, got %s", path, i, desc);
            lr->milestones[i] = (int64_t)e->valuedouble;
            if (i > 0 && lr->milestones[i] <= lr->milestones[i - 1])
                return sgd_errf(err, "%s[%d]: milestones must increase, got %s after %lld",
                                path, i, desc, (long long)lr->milestones[i - 1]);
        }
        lr->nmilestones = i;
    }
    if (sch.out) {
        cJSON *arr = cJSON_CreateArray();
        for (int i = 0; i < lr->nmilestones; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)lr->milestones[i]));
        cJSON_AddItemToObject(sch.out, "milestones", arr);
    }
    return 0;
}

int scn_parse_timing(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t c, io, n;
    static const char *const ckeys[] = {"kind", "time_s", "device_gflops", "update_time_s",
                                        NULL};
    static const char *const kinds[] = {"time", "flops", NULL};
    static const char *const iokeys[] = {"time_s", NULL};
    static const char *const nkeys[] = {"bandwidth_gbps", "latency_us", "fidelity",
                                        "allreduce", "granularity", "bucket_bytes", NULL};
    static const char *const fidelities[] = {"message", "analytic", NULL};
    static const char *const grans[] = {"fused", "per_tensor", NULL};
    int kind, fid, gran;
    double gbps, lat_us;
    if (sgd_jobj_child(root, "compute", &c, err) || sgd_jobj_check_keys(&c, ckeys, err) ||
        sgd_jobj_enum(&c, "kind", kinds, 0, &kind, err))
        return -1;
    s->compute_kind = (scn_compute_kind_t)kind;
    if (s->compute_kind == SCN_COMPUTE_TIME) {
        if (sgd_jobj_has(&c, "device_gflops"))
            return sgd_errf(err, "%s.device_gflops: only valid with kind \"flops\"", c.path);
        if (sim_dist_parse(&c, "time_s", 0.01, &s->compute_time_s, err)) return -1;
    } else {
        if (sgd_jobj_has(&c, "time_s"))
            return sgd_errf(err, "%s.time_s: only valid with kind \"time\"", c.path);
        if (sgd_jobj_num_req(&c, "device_gflops", 0.0, true, 1e9, &s->device_gflops, err))
            return -1;
    }
    if (sim_dist_parse(&c, "update_time_s", 0.0, &s->update_time_s, err)) return -1;

    if (sgd_jobj_child(root, "io", &io, err) || sgd_jobj_check_keys(&io, iokeys, err) ||
        sim_dist_parse(&io, "time_s", 0.0, &s->io_time_s, err))
        return -1;

    if (sgd_jobj_child(root, "network", &n, err) || sgd_jobj_check_keys(&n, nkeys, err) ||
        sgd_jobj_num(&n, "bandwidth_gbps", 10.0, 0.0, true, 1e9, &gbps, err) ||
        sgd_jobj_num(&n, "latency_us", 5.0, 0.0, false, 1e9, &lat_us, err) ||
        sgd_jobj_enum(&n, "fidelity", fidelities, 0, &fid, err) ||
        sgd_jobj_enum(&n, "allreduce", sim_allreduce_names, SIM_AR_RING, &s->allreduce_alg,
                      err) ||
        sgd_jobj_enum(&n, "granularity", grans, SCN_GRAN_FUSED, &gran, err) ||
        sgd_jobj_int(&n, "bucket_bytes", 25 << 20, 1, INT64_MAX / 2, &s->bucket_bytes, err))
        return -1;
    s->granularity = (scn_granularity_t)gran;
    s->bandwidth_Bps = gbps * 1e9 / 8.0;
    s->latency_ns = llround(lat_us * 1e3);
    s->fidelity = (scn_fidelity_t)fid;
    return 0;
}

int scn_parse_run_control(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t st, ev;
    static const char *const skeys[] = {"updates", "vtime_s", NULL};
    static const char *const ekeys[] = {"every", "train_loss_every", NULL};
    double vtime_s;
    if (sgd_jobj_child(root, "stop", &st, err) || sgd_jobj_check_keys(&st, skeys, err) ||
        sgd_jobj_int(&st, "updates", 100, 1, INT64_MAX / 2, &s->stop_updates, err) ||
        sgd_jobj_num(&st, "vtime_s", 0.0, 0.0, false, SIM_VTIME_MAX_S, &vtime_s, err))
        return -1;
    s->stop_vtime_ns = sim_seconds_to_ns(vtime_s);
    if (sgd_jobj_child(root, "eval", &ev, err) || sgd_jobj_check_keys(&ev, ekeys, err) ||
        sgd_jobj_int(&ev, "every", 50, 0, INT64_MAX, &s->eval_every, err) ||
        sgd_jobj_int(&ev, "train_loss_every", 1, 1, INT64_MAX, &s->train_loss_every, err))
        return -1;
    return 0;
}

/* A link class of the cluster topology: {"bandwidth_gbps": > 0, "latency_us": >= 0}. */
static int parse_link(const sgd_jobj_t *t, const char *key, double def_gbps, double def_us,
                      double *Bps, int64_t *latency_ns, sgd_err_t *err)
{
    sgd_jobj_t l;
    static const char *const keys[] = {"bandwidth_gbps", "latency_us", NULL};
    double gbps, us;
    if (sgd_jobj_child(t, key, &l, err) || sgd_jobj_check_keys(&l, keys, err) ||
        sgd_jobj_num(&l, "bandwidth_gbps", def_gbps, 0.0, true, 1e9, &gbps, err) ||
        sgd_jobj_num(&l, "latency_us", def_us, 0.0, false, 1e9, &us, err))
        return -1;
    *Bps = gbps * 1e9 / 8.0;
    *latency_ns = llround(us * 1e3);
    return 0;
}

/* After cluster and network: G must divide the workers, and each kind takes only its keys. */
int scn_parse_topology(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t t, n;
    static const char *const keys[] = {"kind", "gpus_per_node", "nodes", "intra", "nic",
                                       "oversubscription", NULL};
    static const char *const kinds[] = {"flat", "cluster", NULL};
    int kind;
    scn_topology_t *tp = &s->topo;
    if (sgd_jobj_child(root, "topology", &t, err) || sgd_jobj_check_keys(&t, keys, err) ||
        sgd_jobj_enum(&t, "kind", kinds, SCN_TOPO_FLAT, &kind, err))
        return -1;
    tp->kind = (scn_topo_kind_t)kind;
    if (tp->kind == SCN_TOPO_FLAT) {
        for (const char *const *k = keys + 1; *k; k++)
            if (sgd_jobj_has(&t, *k))
                return sgd_errf(err, "%s.%s: only valid with kind \"cluster\" (a flat "
                                     "topology is the network section's star)", t.path, *k);
        tp->gpus_per_node = 1;
        tp->nodes = s->workers;
        return 0;
    }
    if (sgd_jobj_child(root, "network", &n, err)) return -1;
    for (const char *const *k = (const char *const[]){"bandwidth_gbps", "latency_us", NULL};
         *k; k++)
        if (sgd_jobj_has(&n, *k))
            return sgd_errf(err, "%s.%s: not used with topology.kind \"cluster\" (set "
                                 "topology.intra and topology.nic)", n.path, *k);
    /* The flat star's defaults were filled in before the topology was known: the resolved
     * configuration lists only what the run uses. */
    if (n.out) {
        cJSON_DeleteItemFromObjectCaseSensitive(n.out, "bandwidth_gbps");
        cJSON_DeleteItemFromObjectCaseSensitive(n.out, "latency_us");
    }
    if (sgd_jobj_int(&t, "gpus_per_node", 4, 1, 1 << 16, &tp->gpus_per_node, err)) return -1;
    if (s->workers % tp->gpus_per_node != 0)
        return sgd_errf(err, "%s.gpus_per_node: %lld GPUs per node does not divide "
                             "cluster.workers = %lld", t.path, (long long)tp->gpus_per_node,
                        (long long)s->workers);
    int64_t nodes = s->workers / tp->gpus_per_node;
    if (sgd_jobj_int(&t, "nodes", nodes, 1, INT32_MAX, &tp->nodes, err)) return -1;
    if (tp->nodes != nodes)
        return sgd_errf(err, "%s.nodes: %lld node%s x %lld GPU%s per node = %lld workers, but "
                             "cluster.workers = %lld", t.path, (long long)tp->nodes,
                        tp->nodes == 1 ? "" : "s", (long long)tp->gpus_per_node,
                        tp->gpus_per_node == 1 ? "" : "s",
                        (long long)(tp->nodes * tp->gpus_per_node), (long long)s->workers);
    /* Defaults: PCIe 3.0 x16 (~12 GB/s per direction in practice) and a 25 GbE NIC. */
    if (parse_link(&t, "intra", 96.0, 1.0, &tp->intra_Bps, &tp->intra_latency_ns, err) ||
        parse_link(&t, "nic", 25.0, 2.5, &tp->nic_Bps, &tp->nic_latency_ns, err) ||
        sgd_jobj_num(&t, "oversubscription", 1.0, 1.0, false, 1e6, &tp->oversubscription,
                     err))
        return -1;
    return 0;
}

/* numerics: the kernel request is checked against the kernels OpenBLAS knows and stored in
 * OpenBLAS's spelling; whether this machine runs it is decided by scn_resolve_numerics(). */
int scn_parse_numerics(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err)
{
    sgd_jobj_t n;
    static const char *const keys[] = {"blas_core", "threads", NULL};
    const char *core;
    if (sgd_jobj_child(root, "numerics", &n, err) || sgd_jobj_check_keys(&n, keys, err) ||
        sgd_jobj_str(&n, "blas_core", "auto", &core, err) ||
        sgd_jobj_int(&n, "threads", 0, 0, SCN_THREADS_MAX, &s->numerics.threads, err))
        return -1;
    const blas_kernel_t *k = blas_kernel_find(core);
    if (!k && strcasecmp(core, "auto") != 0) {
        char known[512];
        blas_kernel_list(known, sizeof known);
        return sgd_errf(err, "%s.blas_core: unknown OpenBLAS kernel \"%s\" (known: auto, %s)",
                        n.path, core, known);
    }
    if (k && k->x86_32_only)
        return sgd_errf(err, "%s.blas_core: %s is a 32-bit x86 kernel; x86_64 builds of "
                             "OpenBLAS run Prescott when asked for it", n.path, k->name);
    const char *canonical = k ? k->name : "auto";
    snprintf(s->numerics.blas_core, sizeof s->numerics.blas_core, "%s", canonical);
    if (n.out)
        cJSON_ReplaceItemInObjectCaseSensitive(n.out, "blas_core", cJSON_CreateString(canonical));
    return 0;
}
