/* Cluster topologies over the network of sim/network.h: who is connected to whom by which
 * links, and the route of links a message between two endpoints takes.
 *
 * Two kinds:
 *   - flat:    P workers, each with an uplink and a downlink into one non-blocking switch
 *              (the sim_star_t of network.h).  No hosts.
 *   - cluster: N nodes x G GPU workers.  Each worker has a pair of intra-node links to its
 *              node's host (up: worker -> host, down: host -> worker; PCIe/NVLink class).
 *              Each node has a NIC with a transmit and a receive link into a switch.  The
 *              host itself is the hub of its node: a message from a worker to another
 *              worker of the same node crosses the sender's up link and the receiver's down
 *              link (staged through host memory; no GPU peer-to-peer path is modelled), and a
 *              message leaving the node crosses the NIC.  The host is also an endpoint, the
 *              place where LSGD's communicator runs.
 *
 * Oversubscription k > 1 (cluster only): the switch's core carries only N/k NIC-rates at
 * once.  It is modelled as one extra link per node, the node's share of the core, of
 * bandwidth nic/k, that every message leaving the node also crosses.  That share is exact
 * when all nodes send at once (as they do in an allreduce) and pessimistic when only a few
 * do: the core's unused capacity is not lent to busy nodes.  k = 1 (full bisection) adds no
 * links.
 *
 * Endpoints are numbered: workers 0 .. P-1 (worker g of node a is a*G + g, node-major, so
 * rank-ordered collectives keep neighbours on the same node), then hosts P .. P+N-1.
 *
 * Ownership: sim_topo_t is caller-allocated plain data naming link ids of one sim_net_t
 * (which the caller owns and which must outlive any use of the routes). */
#ifndef SGDSIM_SIM_TOPOLOGY_H
#define SGDSIM_SIM_TOPOLOGY_H

#include <stdint.h>

#include "sim/network.h"

#define SIM_ROUTE_MAX 6 /* longest route: up, NIC tx, core share, NIC rx, down */

typedef enum { SIM_TOPO_FLAT, SIM_TOPO_CLUSTER } sim_topo_kind_t;

typedef struct sim_topo_spec {
    sim_topo_kind_t kind;
    int nodes;               /* cluster: N >= 1; flat: ignored */
    int gpus_per_node;       /* cluster: G >= 1; flat: ignored */
    int workers;             /* flat: P >= 1; cluster: must equal N*G */
    double link_Bps;         /* flat: every link, bytes/s > 0 */
    int64_t link_latency_ns; /* flat: every link, ns >= 0 */
    double intra_Bps;        /* cluster: worker <-> host links, bytes/s > 0 */
    int64_t intra_latency_ns;
    double nic_Bps;          /* cluster: NIC transmit and receive links, bytes/s > 0 */
    int64_t nic_latency_ns;  /* per NIC link: a node-to-node message crosses two */
    double oversubscription; /* cluster: >= 1; 1 = full bisection */
} sim_topo_spec_t;

typedef struct sim_topo {
    sim_topo_spec_t spec;
    int workers;    /* P */
    int nodes;      /* N (flat: P, one worker per "node", no hosts) */
    int gpn;        /* G (flat: 1) */
    sim_star_t star;    /* flat only */
    int up0, down0;     /* cluster: worker i's up/down links are up0 + i, down0 + i */
    int tx0, rx0;       /* cluster: node a's NIC links are tx0 + a, rx0 + a */
    int core0;          /* cluster with oversubscription > 1: node a's core share; else -1 */
} sim_topo_t;

/* Adds the topology's links to n and describes them in *t.  Invalid specs are broken
 * invariants (the scenario loader validates user values). */
void sim_topo_init(sim_topo_t *t, sim_net_t *n, const sim_topo_spec_t *spec);

/* Endpoint of node a's host (cluster only). */
int sim_topo_host(const sim_topo_t *t, int node);
/* Node of an endpoint (worker or host). */
int sim_topo_node_of(const sim_topo_t *t, int endpoint);

/* Writes the route from endpoint `from` to endpoint `to` (distinct) into route[] and returns
 * its length (1 .. SIM_ROUTE_MAX). */
int sim_topo_route(const sim_topo_t *t, int from, int to, int route[SIM_ROUTE_MAX]);

#endif
