/* Collectives over a topology (sim/topology.h): reduce, broadcast and allreduce, as message
 * schedules that run message by message over the network, or charged in closed form.
 *
 * A schedule is a list of steps over ranks 0..n-1; each step is a list of messages
 * (src, dst, size), the size a fixed fraction of the call's vector: ceil(nelems / den) * mul
 * elements (so padding works as in real implementations: a ring splits the vector into n
 * equal chunks).  Algorithms:
 *   allreduce  ring                2(n-1) steps: reduce-scatter then allgather, one chunk of
 *                                  ceil(v/n) per rank per step to rank i+1;
 *              recursive_doubling  log2(n) steps, the whole vector exchanged with rank i^2^s;
 *              rsag                Rabenseifner's reduce-scatter (recursive halving, partner
 *                                  distance 1, 2, 4, ..., halves of the vector) then allgather
 *                                  (recursive doubling, distances back down to 1), 2 log2(n)
 *                                  steps, as MPICH's default for long vectors;
 *              for n not a power of two, recursive_doubling and rsag first fold the r = n -
 *              2^floor(log2 n) extra ranks in (rank 2i sends its vector to 2i+1, i < r), and
 *              send the result back at the end (MPICH's scheme): two more steps.
 *   reduce,    star                one step: every rank sends the vector to the root 0
 *   broadcast                      (broadcast: the root sends it to every rank);
 *              binomial            ceil(log2 n) steps of a binomial tree rooted at 0.
 *
 * Message level (sim_coll_t).  Each rank runs the schedule as a small program: for each step
 * it posts its sends (non-blocking: reserved on the network at once, per sim_net_reserve's
 * model), then waits for its receives of that step; after the last step it waits until all
 * its own sends are locally complete -- their last byte has left, so the buffer may be
 * reused (MPI_Waitall) -- then starts the next call of the sequence (one
 * call per tensor or per bucket), and after the last call it is done.  A rank acts only
 * after it entered (sim_coll_enter), so a process busy elsewhere delays whoever waits for it,
 * as in MPI.  Messages arriving before the receiver reaches its receive are kept (counted per
 * sender; links are first come first served, so messages between a pair stay in order).
 * Summation time is not modelled.
 *
 * Closed form (sim_sched_analytic_ns).  Lockstep alpha-beta: the steps run one after the
 * other, all ranks in step; a step costs the largest, over its messages, of the route's
 * latency plus the busiest link of the route's total occupancy in that step (the sum over
 * the step's messages crossing that link of their transfer times at their route's
 * bottleneck bandwidth).  With one message per link per step and equal routes this is
 * alpha + bytes/beta per step, the textbook formula.  It equals the message-level time on an
 * idle network whenever the ranks really move in lockstep (tested): allreduces on a network
 * whose hops are all alike (ring for any rank count, the others for powers of two), rooted
 * star collectives, binomial trees on powers of two (one call).  Elsewhere the two differ,
 * either way: a ring across nodes charges every step the slowest (NIC) hop while messages
 * pipeline through the fast intra-node hops at message level; ranks that sit out a step
 * start early at message level and may contend with it.  bench/ reports the gaps.
 *
 * Ownership: schedules are created and destroyed by the caller; a sim_coll_t borrows the
 * engine, network, topology and schedule, which must outlive it, and copies the endpoint and
 * call-size arrays. */
#ifndef SGDSIM_SIM_COLLECTIVE_H
#define SGDSIM_SIM_COLLECTIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine.h"
#include "sim/network.h"
#include "sim/topology.h"

typedef enum { SIM_AR_RING, SIM_AR_RECURSIVE_DOUBLING, SIM_AR_RSAG } sim_allreduce_alg_t;
typedef enum { SIM_ROOTED_STAR, SIM_ROOTED_BINOMIAL } sim_rooted_alg_t;

/* Names as written in scenarios, indexed by the enums above; NULL-terminated. */
extern const char *const sim_allreduce_names[];
extern const char *const sim_rooted_names[];

typedef struct sim_sched_msg {
    int32_t src, dst; /* ranks */
    uint32_t mul, den; /* elements = ceil(nelems / den) * mul */
} sim_sched_msg_t;

typedef struct sim_sched sim_sched_t;

/* Messages the allreduce schedule of `nranks` ranks would hold, computed without building
 * it (to refuse absurd sizes before allocating: a ring over P ranks has 2P(P-1)). */
uint64_t sim_sched_allreduce_size(sim_allreduce_alg_t alg, int nranks);

sim_sched_t *sim_sched_allreduce(sim_allreduce_alg_t alg, int nranks);
sim_sched_t *sim_sched_reduce(sim_rooted_alg_t alg, int nranks);    /* root = rank 0 */
sim_sched_t *sim_sched_broadcast(sim_rooted_alg_t alg, int nranks); /* root = rank 0 */
void sim_sched_destroy(sim_sched_t *s);

int sim_sched_nranks(const sim_sched_t *s);
int sim_sched_nsteps(const sim_sched_t *s);
/* Messages of step `step` (a view valid while s lives); *count receives their number. */
const sim_sched_msg_t *sim_sched_step(const sim_sched_t *s, int step, int *count);

/* Elements carried by message m for a call of nelems elements. */
uint64_t sim_sched_msg_elems(const sim_sched_msg_t *m, uint64_t nelems);

/* Messages and bytes one call of nelems elements sends in total. */
void sim_sched_traffic(const sim_sched_t *s, uint64_t nelems, uint32_t elem_bytes,
                       uint64_t *messages, uint64_t *bytes);

/* Closed-form (lockstep alpha-beta) time of one call, per the model above, with rank i at
 * endpoint endpoints[i] of topology t whose links are in n.  1 rank -> 0. */
int64_t sim_sched_analytic_ns(const sim_sched_t *s, const sim_topo_t *t, const sim_net_t *n,
                              const int *endpoints, uint64_t nelems, uint32_t elem_bytes);

/* Called when `rank` finished its whole sequence of calls, at t_ns, from an engine event. */
typedef void (*sim_coll_rank_done_fn)(void *ctx, int rank, int64_t t_ns);

typedef struct sim_coll sim_coll_t;

/* A message-level collective: schedule s over ranks at endpoints[0..nranks), run as the
 * sequence of ncalls >= 1 calls of call_elems[c] elements each, every time a rank enters.
 * Registers two event types with the engine (name is used in their names). */
sim_coll_t *sim_coll_create(sim_engine_t *e, sim_net_t *n, const sim_topo_t *t,
                            const sim_sched_t *s, const int *endpoints,
                            const uint64_t *call_elems, int ncalls, uint32_t elem_bytes,
                            sim_coll_rank_done_fn done, void *ctx, const char *name);

/* Rank enters its next round of the call sequence at t_ns >= now (it acts from an event at
 * t_ns).  Entering again before done was called for its previous round is a broken
 * invariant. */
void sim_coll_enter(sim_coll_t *c, int rank, int64_t t_ns);

/* Rendezvous protocol (off by default: eager).  Eager: a send goes on the wire when posted,
 * and the receiver finds it when it gets to its receive (MPI's eager protocol for small
 * messages, or a receiver with a buffer always posted).  Rendezvous: a send waits until the
 * receiver has posted the matching receive -- reached it in its program -- and only then
 * moves (MPI's protocol for large messages: the data goes straight into the receiver's
 * buffer).  So a rank busy elsewhere (a worker decoding JPEGs) holds back the data sent to
 * it.  Set before the first message. */
void sim_coll_set_rendezvous(sim_coll_t *c, bool on);

/* Timeline (sim/trace.h; only when the network has a trace): tags every message this
 * collective sends with kind "allreduce", "reduce" or "broadcast" and group {round_key:
 * the sender's round} -- a rank's k-th entry is its round k, which the algorithms enter once
 * per update, so they name it "update" -- and, at the message level, with "call" (of the
 * sequence), "step" (of the schedule), "from" and "to" (rank_names[0..nranks)).  The strings
 * are copied.  Without it the collective's messages are untagged. */
void sim_coll_set_trace(sim_coll_t *c, const char *kind, const char *round_key,
                        const char *const *rank_names);

uint64_t sim_coll_messages(const sim_coll_t *c);
uint64_t sim_coll_bytes(const sim_coll_t *c);

/* Checkpoints: every rank's place in its program and its round, the per-slot message
 * counters, the rendezvous queues and the traffic counters; restored into a collective created as the
 * saved one was (same schedule, so the same ranks and slots). */
void sim_coll_save(const sim_coll_t *c, sgd_ckw_t *w);
int sim_coll_restore(sim_coll_t *c, sgd_ckr_t *r, sgd_err_t *err);

/* After a restore and sim_engine_check_pending (whose checks of this collective's events
 * count its pending entries and wake-ups): every rank that waits for a wake-up has one
 * pending, and none has its sends done after every pending event.  0, or -1 with err. */
int sim_coll_verify(const sim_coll_t *c, sgd_err_t *err);
/* After the same: whether rank is in the collective, or has its entry pending (its owner
 * is then not doing anything else). */
bool sim_coll_holds(const sim_coll_t *c, int rank);

void sim_coll_destroy(sim_coll_t *c);

#endif
