/* FedScale's device traces, read from the files FedScale publishes (docs/federated.md,
 * "FedScale's traces"): the device capacity file `client_device_capacity` and the
 * availability trace `client_behave_trace`, both Python pickles of a dict keyed by an integer
 * client id.  They are read by the strict data-only reader of sim/pickle.h: nothing in them
 * is ever run.
 *
 *   capacity   {id: {'computation': ms per sample, 'communication': kbit/s}, ...}
 *   trace      {id: {'active': [s, ...], 'inactive': [s, ...], 'finish_time': s,
 *                    'duration': ..., 'model': ...}, ...}
 *
 * FedScale's code gives the units: 'computation' is a device's inference latency in ms per
 * sample (a training step costs 3 x batch x steps x computation / 1000 s), 'communication' a
 * bandwidth that a model size in kbit (bytes / 1024 x 8) divides into seconds, so bytes per
 * second = 128 x communication.  In the trace, a client is online when t mod finish_time
 * lies in some window [active[k], inactive[k]]; times are seconds.  'duration' and 'model'
 * are not used (FedScale's simulator does not read them either).
 *
 * What is refused, each with a message naming the file and the client (its id) and field:
 * a file that is not a pickle of that shape (sim/pickle.h's refusals included), a key that
 * is not an int or appears twice, a missing or mistyped field, a number that is NaN,
 * infinite, negative or (capacity) zero, 'active' and 'inactive' of different lengths,
 * windows that end before they start, overlap or are out of order, windows beyond
 * finish_time, finish_time <= 0 or beyond sgdsim's horizon, and files over 256 MiB.
 *
 * Ownership: the load functions fill caller-owned structs whose arrays are freed by the
 * matching _free. */
#ifndef SGDSIM_SIM_FEDSCALE_H
#define SGDSIM_SIM_FEDSCALE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

/* The largest file either loader reads. */
#define SIM_FEDSCALE_MAX_BYTES ((int64_t)256 << 20)

typedef struct sim_fedscale_device {
    int64_t id;            /* the client id (the dict's key) */
    double compute_ms;     /* 'computation': inference ms per sample, > 0 */
    double bandwidth_kbps; /* 'communication': kbit/s (1 kbit = 1024 bits in FedScale), > 0 */
} sim_fedscale_device_t;

typedef struct sim_fedscale_capacity {
    int64_t n;                   /* devices, >= 1, in file order */
    sim_fedscale_device_t *dev;  /* n of them */
    double mean_compute_ms;      /* the mean of compute_ms over the file (summed in order) */
} sim_fedscale_capacity_t;

/* Reads a capacity file.  Returns 0, or -1 with a message starting with the path. */
int sim_fedscale_capacity_load(const char *path, sim_fedscale_capacity_t *out, sgd_err_t *err);
void sim_fedscale_capacity_free(sim_fedscale_capacity_t *c);

/* Bytes per second of a FedScale bandwidth: 128 x kbit/s (1024 bits / 8). */
double sim_fedscale_bytes_per_s(double bandwidth_kbps);

typedef struct sim_fedscale_trace {
    int64_t n;          /* clients, >= 1, in file order */
    int64_t *id;        /* n client ids */
    int64_t *period_ns; /* n periods ('finish_time') */
    int64_t *first;     /* n + 1: client k's windows are win[first[k] .. first[k + 1]) */
    int64_t *win;       /* 2 per window: online on [win[2j], win[2j + 1]) ns within a period,
                         * sorted, non-empty, neither overlapping nor touching (windows
                         * that touch in the file are merged, empty ones dropped) */
} sim_fedscale_trace_t;

/* Reads an availability trace.  Returns 0, or -1 with a message starting with the path. */
int sim_fedscale_trace_load(const char *path, sim_fedscale_trace_t *out, sgd_err_t *err);
void sim_fedscale_trace_free(sim_fedscale_trace_t *t);

/* Whether trace client k (0 <= k < n) is online at t_ns >= 0: t mod period in a window. */
bool sim_fedscale_trace_online(const sim_fedscale_trace_t *t, int64_t k, int64_t t_ns);

/* The first time after t_ns at which client k's state changes (across the wrap of the
 * period too); SIM_TIME_BEYOND_NS if never (no windows, or one covering the whole period).
 * O(log windows). */
int64_t sim_fedscale_trace_next_change(const sim_fedscale_trace_t *t, int64_t k,
                                       int64_t t_ns);

#endif
