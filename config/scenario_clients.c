/* The scenario loader's federated-learning sections (scenario_sections.h): data.partition
 * (models/partition.h) and the clients section (sim/client_behaviour.h).  Neither is written
 * to the resolved configuration when it is absent, so every scenario without them keeps its
 * run key.  Defaults and units: docs/scenario.md ("data.partition", "clients"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"
#include "config/scenario_sections.h"
#include "sim/dist.h"

/* Refuses each of keys[] that the scheme (or process) `what` does not read. */
static int refuse_keys(const sgd_jobj_t *o, const char *const *keys, const char *what,
                       sgd_err_t *err)
{
    for (; *keys; keys++)
        if (sgd_jobj_has(o, *keys))
            return sgd_errf(err, "%s.%s: not read with %s", o->path, *keys, what);
    return 0;
}

/* The scheme's parameters; the others' keys refused. */
static int parse_scheme_params(const sgd_jobj_t *p, partition_spec_t *sp, sgd_err_t *err)
{
    char what[64];
    snprintf(what, sizeof what, "scheme \"%s\"", partition_scheme_names[sp->scheme]);
    switch (sp->scheme) {
    case PARTITION_IID:
        return refuse_keys(p, (const char *const[]){"alpha", "sigma", "shards_per_client",
                                                   "min_samples", NULL},
                           what, err);
    case PARTITION_SHARDS: {
        int64_t spc;
        if (refuse_keys(p, (const char *const[]){"alpha", "sigma", "min_samples", NULL}, what,
                        err) ||
            sgd_jobj_int(p, "shards_per_client", 2, 1, INT32_MAX, &spc, err))
            return -1;
        sp->shards_per_client = (int)spc;
        return 0;
    }
    case PARTITION_DIRICHLET:
    case PARTITION_QUANTITY_DIRICHLET:
        if (refuse_keys(p, (const char *const[]){"sigma", "shards_per_client", NULL}, what,
                        err) ||
            sgd_jobj_num(p, "alpha", 0.5, 0.0, true, PARTITION_ALPHA_MAX, &sp->alpha, err))
            return -1;
        break;
    case PARTITION_QUANTITY_LOGNORMAL:
        if (refuse_keys(p, (const char *const[]){"alpha", "shards_per_client", NULL}, what,
                        err) ||
            sgd_jobj_num(p, "sigma", 1.0, 0.0, false, PARTITION_SIGMA_MAX, &sp->sigma, err))
            return -1;
        break;
    }
    return sgd_jobj_int(p, "min_samples", 0, 0, INT32_MAX, &sp->min_samples, err);
}

int scn_parse_partition(const sgd_jobj_t *data, scn_t *s, sgd_err_t *err)
{
    static const char *const keys[] = {"scheme", "alpha", "sigma", "shards_per_client",
                                       "min_samples", NULL};
    if (!sgd_jobj_has(data, "partition")) return 0;
    sgd_jobj_t p;
    int scheme;
    if (sgd_jobj_child(data, "partition", &p, err) || sgd_jobj_check_keys(&p, keys, err) ||
        sgd_jobj_enum(&p, "scheme", partition_scheme_names, PARTITION_IID, &scheme, err))
        return -1;
    s->partition = (scn_partition_t){.given = true, .spec = {.scheme = (partition_scheme_t)scheme}};
    return parse_scheme_params(&p, &s->partition.spec, err);
}

/* A required distribution: present, then parsed as sim_dist_parse reads one. */
static int required_dist(const sgd_jobj_t *c, const char *key, const char *why, sim_dist_t *d,
                         sgd_err_t *err)
{
    if (!sgd_jobj_has(c, key)) return sgd_errf(err, "%s.%s: required %s", c->path, key, why);
    return sim_dist_parse(c, key, 0.0, d, err);
}

/* A file the section names, resolved like the data files. */
static int parse_file(const sgd_jobj_t *c, const char *key, const char *base_dir, char **out,
                      sgd_err_t *err)
{
    const char *path;
    if (sgd_jobj_str(c, key, NULL, &path, err)) return -1;
    if (!path[0]) return sgd_errf(err, "%s.%s: expected a file name, got \"\"", c->path, key);
    *out = scn_resolve_path(base_dir, path);
    return 0;
}

static int parse_availability(const sgd_jobj_t *c, const char *base_dir, scn_clients_t *cl,
                              sgd_err_t *err)
{
    int avail;
    if (sgd_jobj_enum(c, "availability", sim_client_avail_names, SIM_AVAIL_ALWAYS, &avail,
                      err))
        return -1;
    cl->avail = (sim_avail_kind_t)avail;
    switch (cl->avail) {
    case SIM_AVAIL_ALWAYS:
        return refuse_keys(c, (const char *const[]){"online_s", "offline_s", "trace", NULL},
                           "availability \"always\"", err);
    case SIM_AVAIL_RENEWAL:
        if (refuse_keys(c, (const char *const[]){"trace", NULL}, "availability \"renewal\"",
                        err) ||
            required_dist(c, "online_s", "with availability \"renewal\"", &cl->online_s, err) ||
            required_dist(c, "offline_s", "with availability \"renewal\"", &cl->offline_s, err))
            return -1;
        if (!(sim_dist_mean(&cl->online_s) >= SIM_CLIENT_PERIOD_MEAN_MIN_S) ||
            !(sim_dist_mean(&cl->offline_s) >= SIM_CLIENT_PERIOD_MEAN_MIN_S))
            return sgd_errf(err, "%s.%s: the mean period must be at least %g s", c->path,
                            sim_dist_mean(&cl->online_s) >= SIM_CLIENT_PERIOD_MEAN_MIN_S
                                ? "offline_s"
                                : "online_s",
                            SIM_CLIENT_PERIOD_MEAN_MIN_S);
        return 0;
    case SIM_AVAIL_TRACE:
        return refuse_keys(c, (const char *const[]){"online_s", "offline_s", NULL},
                           "availability \"trace\"", err) ||
                       parse_file(c, "trace", base_dir, &cl->trace, err)
                   ? -1
                   : 0;
    }
    return 0;
}

/* The devices: two laws, or FedScale's capacity file instead of them.  The bandwidth's
 * default is the network's (at most the largest distribution parameter). */
static int parse_devices(const sgd_jobj_t *c, const char *base_dir, const scn_t *s,
                         scn_clients_t *cl, sgd_err_t *err)
{
    if (sgd_jobj_has(c, "device_trace"))
        return refuse_keys(c, (const char *const[]){"compute_factor", "bandwidth_Bps", NULL},
                           "device_trace (the file gives each device's)", err) ||
                       parse_file(c, "device_trace", base_dir, &cl->device_trace, err)
                   ? -1
                   : 0;
    const double net = s->bandwidth_Bps < SIM_DIST_PARAM_MAX ? s->bandwidth_Bps
                                                             : SIM_DIST_PARAM_MAX;
    return sim_dist_parse(c, "compute_factor", 1.0, &cl->compute_factor, err) ||
                   sim_dist_parse(c, "bandwidth_Bps", net, &cl->bandwidth_Bps, err)
               ? -1
               : 0;
}

int scn_parse_clients(const sgd_jobj_t *root, const char *base_dir, scn_t *s, sgd_err_t *err)
{
    static const char *const keys[] = {"availability", "online_s", "offline_s", "trace",
                                       "dropout_p", "compute_factor", "bandwidth_Bps",
                                       "device_trace", "retry_s", NULL};
    if (!sgd_jobj_has(root, "clients")) return 0;
    sgd_jobj_t c;
    scn_clients_t *cl = &s->clients;
    cl->given = true;
    if (sgd_jobj_child(root, "clients", &c, err) || sgd_jobj_check_keys(&c, keys, err) ||
        parse_availability(&c, base_dir, cl, err) ||
        sgd_jobj_num(&c, "dropout_p", 0.0, 0.0, false, 0.999999, &cl->dropout_p, err) ||
        parse_devices(&c, base_dir, s, cl, err) ||
        sgd_jobj_num(&c, "retry_s", 1.0, 0.0, true, 1e6, &cl->retry_s, err))
        return -1;
    return 0;
}
