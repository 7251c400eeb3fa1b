/* The metric table (metric.h): one line per metric. */
#include "common/metric.h"

#include <stddef.h>
#include <string.h>

#define LOWER SGD_METRIC_LOWER
#define HIGHER SGD_METRIC_HIGHER
#define NEUTRAL SGD_METRIC_NEUTRAL
#define WINDOW SGD_METRIC_WINDOW
#define LAST SGD_METRIC_LAST
#define RUN SGD_METRIC_RUN
#define CLOCK true
#define SUMMARY true

/* One metric: name, unit, better, needs a clock, a run's value (agg), in run's summary,
 * plot label (after "name: "), meaning. */
#define M(name, unit, better, clock, agg, summary, label, meaning)                            \
    {name, unit, better, clock, agg, summary, name ": " label, meaning},

const sgd_metric_t sgd_metrics[] = {
    M("train_loss", "nats", LOWER, false, WINDOW, SUMMARY, "training loss (cross-entropy, nats)",
      "mean loss of the update's global minibatch, every eval.train_loss_every updates")
    M("lr", "", NEUTRAL, false, WINDOW, false, "learning rate",
      "learning rate the update used, with train_loss (alone in a cost-only run)")
    M("val_loss", "nats", LOWER, false, WINDOW, SUMMARY, "validation loss (cross-entropy, nats)",
      "validation mean loss, at update 0, every eval.every updates and at the end")
    M("val_error", "fraction", LOWER, false, WINDOW, SUMMARY,
      "validation error (fraction misclassified)", "validation error rate, with val_loss")
    M("images_per_s", "samples/s", HIGHER, CLOCK, LAST, false,
      "samples per second of virtual time",
      "steady-state throughput of a complete synchronous run, (updates - 1) P b / "
      "(t(last update) - t(update 1)), once at the end")
    M("vtime_s", "s", LOWER, CLOCK, RUN, false, "virtual time (s)",
      "virtual time of the run's last update (runs.vtime_ns): no metric rows")
    M("norm_mean", "", NEUTRAL, false, WINDOW, false, "the normaliser's mean statistic",
      "parameter-server rules with a normaliser: its statistic v, every eval.every updates")
    M("staleness_mean", "updates", NEUTRAL, false, LAST, false, "mean staleness (updates)",
      "parameter-server family: mean tau over every applied gradient, as counted (the tau "
      "that is damped), at the last update")
    M("staleness_p50", "updates", NEUTRAL, false, LAST, false, "median staleness (updates)",
      "parameter-server family: median tau, at the last update")
    M("staleness_p99", "updates", NEUTRAL, false, LAST, false,
      "99th percentile of staleness (updates)",
      "parameter-server family: 99th percentile of tau, at the last update")
    M("staleness_max", "updates", NEUTRAL, false, LAST, false, "largest staleness (updates)",
      "parameter-server family: largest tau, at the last update")
    M("version_age_mean", "updates", NEUTRAL, false, LAST, false,
      "mean age of the parameters (updates)",
      "B-FASGD with skipped_fetch_tau \"fred\": mean true age of the parameters each "
      "gradient was computed on, at the last update")
    M("version_age_max", "updates", NEUTRAL, false, LAST, false,
      "largest age of the parameters (updates)",
      "B-FASGD with skipped_fetch_tau \"fred\": largest true age of the parameters, at the "
      "last update")
    M("snapshots_peak", "versions", NEUTRAL, false, LAST, false,
      "most parameter versions held at once",
      "parameter-server family: most distinct parameter versions held at once, at the last "
      "update")
    M("fetch_sent", "messages", NEUTRAL, false, LAST, false, "fetches sent (cumulative)",
      "parameter-server family: fetches sent so far, every eval.every updates and at the "
      "last update")
    M("fetch_skipped", "messages", NEUTRAL, false, LAST, false, "fetches skipped (cumulative)",
      "parameter-server family: fetches B-FASGD's gate skipped so far, as fetch_sent")
    M("push_sent", "messages", NEUTRAL, false, LAST, false, "pushes sent (cumulative)",
      "parameter-server family: pushes sent so far, as fetch_sent")
    M("push_skipped", "messages", NEUTRAL, false, LAST, false, "pushes skipped (cumulative)",
      "parameter-server family: pushes B-FASGD's gate skipped so far, as fetch_sent")
    M("clients_participated", "clients", NEUTRAL, false, LAST, false,
      "clients that started a task (cumulative)",
      "federated clients: distinct clients that started a task so far, every eval.every "
      "updates and at the last update")
    M("clients_contributed", "clients", NEUTRAL, false, LAST, false,
      "clients with a push taken in (cumulative)",
      "federated clients: distinct clients with a push the server took in, as "
      "clients_participated")
    M("contributions_mean", "pushes", NEUTRAL, false, LAST, false,
      "pushes taken in per contributing client",
      "federated clients: mean pushes taken in per contributing client, as "
      "clients_participated")
    M("contributions_max", "pushes", NEUTRAL, false, LAST, false,
      "most pushes taken in from one client",
      "federated clients: most pushes taken in from one client, as clients_participated")
    M("tasks_dropped", "tasks", NEUTRAL, false, LAST, false, "tasks dropped (cumulative)",
      "federated clients: tasks cut short by a client going offline or the dropout coin, as "
      "clients_participated")
    M("dropped_compute_s", "s", NEUTRAL, CLOCK, LAST, false,
      "compute lost to dropped tasks (virtual s)",
      "federated clients: virtual compute time of the dropped tasks until they ended, as "
      "clients_participated")
    M("bytes_up_per_client", "bytes", NEUTRAL, false, LAST, false,
      "bytes pushed per participating client",
      "federated clients: push bytes sent over the clients that took part, as "
      "clients_participated")
    M("bytes_down_per_client", "bytes", NEUTRAL, false, LAST, false,
      "bytes fetched per participating client",
      "federated clients: fetch bytes sent over the clients that took part, as "
      "clients_participated")
    M("slot_waits", "waits", NEUTRAL, false, LAST, false, "slot waits (cumulative)",
      "federated clients: times a slot found no client to draw, or a client waited to come "
      "online, as clients_participated")
    M("rounds", "rounds", NEUTRAL, false, LAST, false, "FedAvg rounds started (cumulative)",
      "fedavg: rounds started, as clients_participated")
    M("rounds_empty", "rounds", NEUTRAL, false, LAST, false,
      "FedAvg rounds ended without a push (cumulative)",
      "fedavg: rounds that ended without a push, as clients_participated")
    {NULL, NULL, NEUTRAL, false, WINDOW, false, NULL, NULL},
};

const sgd_metric_t *sgd_metric_find(const char *name)
{
    for (const sgd_metric_t *m = sgd_metrics; name && m->name; m++)
        if (strcmp(m->name, name) == 0) return m;
    return NULL;
}

size_t sgd_metric_count(void)
{
    size_t n = 0;
    while (sgd_metrics[n].name) n++;
    return n;
}

bool sgd_metric_needs_clock(const char *name)
{
    const sgd_metric_t *m = sgd_metric_find(name);
    return m && m->needs_clock;
}
