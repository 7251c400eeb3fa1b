/* Timing a pair of CPU benchmark calls fairly (bench_mlp_grad, bench_cnn_grad): each call is
 * repeated until it takes at least a minimum time, and the two are timed alternately, so
 * both see the same machine conditions (other processes, clock frequency) and their ratio
 * stays fair; each figure is the best of several repetitions. */
#ifndef SGDSIM_BENCH_BENCH_TIMING_H
#define SGDSIM_BENCH_BENCH_TIMING_H

typedef struct bench_pair {
    void (*a)(void *work), (*b)(void *work); /* the two calls, on the same work */
    void *work;
    double (*clock)(void); /* seconds */
    double min_seconds;    /* each repetition runs at least this long */
    int reps;              /* timed repetitions; the best one is reported */
} bench_pair_t;

/* Best seconds per call of p->a into *ta and of p->b into *tb. */
void bench_time_pair(const bench_pair_t *p, double *ta, double *tb);

#endif
