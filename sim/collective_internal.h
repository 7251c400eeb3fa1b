/* What the two halves of collective.h share: a schedule's layout, built by collective.c
 * (schedules and their closed-form cost) and executed by collective_exec.c (message-level
 * execution, with its checkpoints).  Not for use outside sim/. */
#ifndef SGDSIM_SIM_COLLECTIVE_INTERNAL_H
#define SGDSIM_SIM_COLLECTIVE_INTERNAL_H

#include <stdint.h>

#include "sim/collective.h"

/* One operation of a rank's program: post a send, or wait for a receive.  `slot` indexes
 * the receiver's per-sender counters (for a send: the destination's slot for this rank);
 * `step` is the schedule's step it belongs to (for the timeline). */
typedef struct sched_op {
    int32_t peer;
    int32_t slot;
    uint32_t mul, den;
    int32_t step;
    uint8_t is_send;
} sched_op_t;

struct sim_sched {
    int nranks, nsteps, steps_cap;
    int *step_off; /* messages of step s: msgs[step_off[s] .. step_off[s+1]) */
    sim_sched_msg_t *msgs;
    int nmsgs, msgs_cap;
    /* per-rank programs, derived once the steps are complete */
    int *op_off; /* ops of rank r: ops[op_off[r] .. op_off[r+1]) */
    sched_op_t *ops;
    int nslots;  /* (receiver, sender) pairs that ever carry a message */
    int32_t *slot_src; /* nslots: the sender of each slot */
};

/* Elements in a message of fraction mul/den of nelems (the fraction rounded up per part). */
uint64_t sched_msg_elems(uint32_t mul, uint32_t den, uint64_t nelems);

/* The bottleneck bandwidth (bytes/s) and the summed latency of route[0..len) in n. */
void sched_route_params(const sim_net_t *n, const int *route, int len, double *bw,
                        int64_t *lat);

#endif
