/* The flat and cluster topologies declared in topology.h: link layout and routes. */
#include "sim/topology.h"

#include <math.h>

#include "common/error.h"

void sim_topo_init(sim_topo_t *t, sim_net_t *n, const sim_topo_spec_t *spec)
{
    *t = (sim_topo_t){.spec = *spec, .core0 = -1};
    if (spec->kind == SIM_TOPO_FLAT) {
        SGD_ASSERT(spec->workers >= 1);
        t->workers = t->nodes = spec->workers;
        t->gpn = 1;
        sim_star_init(&t->star, n, spec->workers, spec->link_Bps, spec->link_latency_ns);
        return;
    }
    SGD_ASSERT(spec->nodes >= 1 && spec->gpus_per_node >= 1);
    SGD_ASSERT(spec->workers == spec->nodes * spec->gpus_per_node);
    SGD_ASSERT(isfinite(spec->oversubscription) && spec->oversubscription >= 1.0);
    t->workers = spec->workers;
    t->nodes = spec->nodes;
    t->gpn = spec->gpus_per_node;
    t->up0 = sim_net_nlinks(n);
    for (int i = 0; i < t->workers; i++)
        sim_net_add_link(n, spec->intra_Bps, spec->intra_latency_ns);
    t->down0 = sim_net_nlinks(n);
    for (int i = 0; i < t->workers; i++)
        sim_net_add_link(n, spec->intra_Bps, spec->intra_latency_ns);
    t->tx0 = sim_net_nlinks(n);
    for (int a = 0; a < t->nodes; a++) sim_net_add_link(n, spec->nic_Bps, spec->nic_latency_ns);
    t->rx0 = sim_net_nlinks(n);
    for (int a = 0; a < t->nodes; a++) sim_net_add_link(n, spec->nic_Bps, spec->nic_latency_ns);
    if (spec->oversubscription > 1.0) {
        /* The core's latency is folded into the NIC links' (one switch hop). */
        t->core0 = sim_net_nlinks(n);
        for (int a = 0; a < t->nodes; a++)
            sim_net_add_link(n, spec->nic_Bps / spec->oversubscription, 0);
    }
}

int sim_topo_host(const sim_topo_t *t, int node)
{
    SGD_ASSERT(t->spec.kind == SIM_TOPO_CLUSTER && node >= 0 && node < t->nodes);
    return t->workers + node;
}

int sim_topo_node_of(const sim_topo_t *t, int endpoint)
{
    SGD_ASSERT(endpoint >= 0);
    if (endpoint < t->workers) return endpoint / t->gpn;
    SGD_ASSERT(t->spec.kind == SIM_TOPO_CLUSTER && endpoint < t->workers + t->nodes);
    return endpoint - t->workers;
}

int sim_topo_route(const sim_topo_t *t, int from, int to, int route[SIM_ROUTE_MAX])
{
    SGD_ASSERT(from != to);
    if (t->spec.kind == SIM_TOPO_FLAT) return sim_star_route(&t->star, from, to, route);
    int na = sim_topo_node_of(t, from), nb = sim_topo_node_of(t, to);
    int len = 0;
    if (from < t->workers) route[len++] = t->up0 + from;
    if (na != nb) {
        route[len++] = t->tx0 + na;
        if (t->core0 >= 0) route[len++] = t->core0 + na;
        route[len++] = t->rx0 + nb;
    }
    if (to < t->workers) route[len++] = t->down0 + to;
    SGD_ASSERT(len >= 1); /* host to itself is excluded by from != to */
    return len;
}
