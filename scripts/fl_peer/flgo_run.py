#!/usr/bin/env python3
"""One federated run on FLGo's virtual clock (the peer of scripts/fl-peer-compare.sh), in the
setting sgdsim's scenarios/fl/ describe, writing accuracy against server updates ("rounds"),
client trips, simulated time and wall time to a CSV file, and a JSON summary.

FLGo is not part of this repository: --flgo-src names a checkout of its source (the
repository github.com/WwZzz/easyFL, package `flgo`).  Everything below uses FLGo's public
extension points -- a benchmark package (flgo_idx_bench), a partitioner, a Simulator, a
Logger and Server classes -- and changes none of its files.

The setting (the defaults):
  data      Fashion-MNIST from local IDX files ($FL_PEER_DATA or --data), pixels / 255;
            the whole 10,000-image test set evaluated
  model     MLP 784-200-10, ReLU, He-normal weights, zero biases (sgdsim's model "mlp",
            hidden [200], init "he")
  partition Dirichlet(alpha) over labels as sgdsim's models/partition does it: for each label
            in order, shuffle its samples, draw p ~ Dir(alpha) over the N clients, client j
            takes the samples between floor(m (p_0+..+p_{j-1})) and floor(m (p_0+..+p_j));
            the whole draw repeats until every client holds >= --min-samples.  The same law,
            not the same draws: numpy's generator, not sgdsim's
  clients   S local SGD steps (--local-steps) of --batch samples, plain SGD at --lr, fresh
            optimizer each trip; a trip sends the model or delta back.  A step's minibatch
            is drawn uniformly with replacement from the client's samples (--batches
            replacement, as sgdsim's local training) or, with --batches epochs, by FLGo's
            own loader (shuffled epochs, the last incomplete batch dropped)
  time      client i's trip lasts S * step_time * f_i + 2 * model_bytes / bandwidth seconds
            (download and upload at one constant bandwidth, no latency, no server time), with
            f_i ~ lognormal of mean 1 and coefficient of variation --factor-cv, drawn once per
            client from a generator of its own (seeded from --seed); FLGo's clock counts
            integer ticks of --tick-s seconds, so a trip is rounded to the nearest tick
  fedavg    FLGo's stock FedAvg (flgo.algorithm.fedavg): K = --per-round clients uniformly
            without replacement each round, models averaged with weights n_k / sum n_k
            (FLGo's aggregate option "other"), the server waits for the slowest
  fedbuff   Nguyen et al. 2022 with --per-round clients always in flight: each arrival's delta
            (dispatched model - trained model) weighted by s(tau) (1/sqrt(1+tau) or 1) joins
            a buffer; after --buffer arrivals w <- w - server_lr * (buffer sum) / K
  fedasync  Xie et al. 2019 with --per-round clients in flight: each arrival mixes
            w <- (1 - a_t) w + a_t w_client, a_t = alpha * (1+tau)^-a (polynomial)
tau counts the server updates between a client's dispatch and its arrival.

FLGo's stock fedbuff.py (at easyFL ea07f1d) cannot be used: it reads self.lr, which no
FLGo server defines (AttributeError when its buffer first fills), bounds no concurrency
(it samples new clients every `period` ticks) and weights no staleness.  Its fedasync.py
samples every `period` ticks too and trains with FedProx's proximal term.  So "fedbuff" and
"fedasync" here are Server classes written against FLGo's API; they use FLGo's clock,
simulator, client state machine, asynchronous communicate() and its fedbuff.Client, with a
main loop of their own (FLGo's run() counts one round per clock tick that made an update,
however many it made).  The one thing of FLGo's replaced in memory is the tqdm progress bar
fedbase.communicate draws on every call (every tick of an asynchronous run): a plain loop.

How FLGo's clock differs from an event-driven one such as sgdsim's: time is an integer
number of ticks and every tick costs a pass over all clients (simulator flush), so wall
time grows with simulated time / tick, not with events; a synchronous round takes one tick
more than its slowest client (run() steps the clock before each round); an asynchronous
client that arrives in tick t is replaced in tick t + 1 (a tick dispatches, then collects);
a client is trained when dispatched, on the model of that moment, and its result held back
until its arrival tick (the same model an event-driven simulator would train it on).

usage: flgo_run.py --flgo-src DIR --algorithm fedavg|fedbuff|fedasync --seed N
                   --workdir DIR --curve FILE.csv --summary FILE.json [options]
Exit codes: 0 done, 2 bad arguments or inputs."""
import argparse
import csv
import json
import math
import os
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
CURVE_FIELDS = ["side", "algorithm", "seed", "round", "client_trips", "sim_time_s",
                "test_accuracy", "test_loss", "wall_s", "eval_wall_s"]


def positive_int(text):
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError("must be a positive integer, got %s" % text)
    return v


def positive_float(text):
    v = float(text)
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError("must be a finite number > 0, got %s" % text)
    return v


def nonneg_float(text):
    v = float(text)
    if not (v >= 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError("must be a finite number >= 0, got %s" % text)
    return v


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--flgo-src", required=True, help="checkout of github.com/WwZzz/easyFL")
    p.add_argument("--data", default=os.environ.get("FL_PEER_DATA", ""),
                   help="directory of the IDX .gz files (default $FL_PEER_DATA)")
    p.add_argument("--algorithm", required=True, choices=["fedavg", "fedbuff", "fedasync"])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--rounds", type=positive_int, default=200, help="server updates")
    p.add_argument("--clients", type=positive_int, default=100)
    p.add_argument("--per-round", type=positive_int, default=10,
                   help="FedAvg: clients per round; FedBuff/FedAsync: clients in flight")
    p.add_argument("--buffer", type=positive_int, default=10, help="FedBuff's K")
    p.add_argument("--alpha", type=positive_float, default=0.5, help="Dirichlet alpha")
    p.add_argument("--min-samples", type=int, default=32)
    p.add_argument("--local-steps", type=positive_int, default=20)
    p.add_argument("--batch", type=positive_int, default=32)
    p.add_argument("--lr", type=positive_float, default=0.1, help="clients' SGD rate")
    p.add_argument("--batches", choices=["replacement", "epochs"], default="replacement",
                   help="a step's minibatch: drawn uniformly with replacement from the "
                        "client's samples (as sgdsim), or FLGo's shuffled epochs (drop_last)")
    p.add_argument("--server-lr", type=positive_float, default=1.0, help="FedBuff's eta_g")
    p.add_argument("--staleness", choices=["sqrt", "none"], default="sqrt",
                   help="FedBuff's weight: 1/sqrt(1+tau) or 1")
    p.add_argument("--fedasync-alpha", type=positive_float, default=0.6)
    p.add_argument("--fedasync-a", type=nonneg_float, default=0.5)
    p.add_argument("--step-time-s", type=positive_float, default=0.05,
                   help="one local step on the mean device, s")
    p.add_argument("--factor-cv", type=nonneg_float, default=1.0,
                   help="coefficient of variation of the lognormal compute factor (mean 1)")
    p.add_argument("--bandwidth-Bps", type=positive_float, default=1.0e6)
    p.add_argument("--tick-s", type=positive_float, default=0.01, help="one FLGo time unit, s")
    p.add_argument("--eval-every", type=positive_int, default=5, help="server updates")
    p.add_argument("--threads", type=positive_int, default=1, help="torch threads")
    p.add_argument("--workdir", required=True, help="where the FLGo task is written")
    p.add_argument("--curve", required=True, help="CSV file written")
    p.add_argument("--summary", required=True, help="JSON file written")
    a = p.parse_args(argv)
    if a.min_samples < 0:
        p.error("--min-samples must be >= 0")
    if a.per_round > a.clients:
        p.error("--per-round (%d) exceeds --clients (%d)" % (a.per_round, a.clients))
    if not a.data or not os.path.isdir(a.data):
        p.error("--data: no directory %r (or set FL_PEER_DATA)" % a.data)
    if not os.path.isfile(os.path.join(a.flgo_src, "flgo", "__init__.py")):
        p.error("--flgo-src: %r holds no flgo/__init__.py" % a.flgo_src)
    return a


def dirichlet_partition(np, labels, clients, alpha, min_samples, seed):
    """sgdsim's Dirichlet-over-labels partition (docs/federated.md), numpy's generator."""
    rng = np.random.default_rng([seed, 1])
    classes = int(labels.max()) + 1
    for _ in range(100):
        parts = [[] for _ in range(clients)]
        for k in range(classes):
            idx = np.flatnonzero(labels == k)
            rng.shuffle(idx)
            p = rng.dirichlet([alpha] * clients)
            cuts = np.floor(len(idx) * np.cumsum(p)).astype(np.int64)
            cuts[-1] = len(idx)
            start = 0
            for j in range(clients):
                end = max(start, min(int(cuts[j]), len(idx)))
                parts[j].extend(int(i) for i in idx[start:end])
                start = end
        if min(len(q) for q in parts) >= min_samples:
            return parts
    raise SystemExit("flgo_run.py: no Dirichlet draw in 100 gave every client >= %d samples"
                     % min_samples)


def main(argv):
    a = parse_args(argv)
    os.environ["FL_PEER_DATA"] = os.path.abspath(a.data)
    sys.dont_write_bytecode = True  # no __pycache__ in this tree or in the peer's checkout
    sys.path.insert(0, os.path.abspath(a.flgo_src))
    sys.path.insert(0, HERE)
    # flgo.init parses sys.argv for its own options: it must see none of ours.
    sys.argv = [sys.argv[0]]
    import numpy as np
    import torch
    torch.set_num_threads(a.threads)
    import flgo
    import flgo.algorithm.fedavg
    import flgo.algorithm.fedbase as fedbase
    import flgo.algorithm.fedbuff
    import flgo.benchmark.partition
    import flgo.experiment.logger
    import flgo.simulator.base
    import flgo.utils.fmodule
    import flgo_idx_bench.core as bench

    # fedbase.communicate wraps its client loop in a tqdm progress bar, drawn on every call
    # (each clock tick of an asynchronous run); it only prints, so it is made a plain loop.
    fedbase.tqdm = lambda it, *args, **kwargs: it

    class Partitioner(flgo.benchmark.partition.BasicPartitioner):
        def __call__(self, data):
            return dirichlet_partition(np, bench.train_labels(), a.clients, a.alpha,
                                       a.min_samples, a.seed)

        def __str__(self):
            return "sgdsim_dirichlet_a%g_min%d" % (a.alpha, a.min_samples)

    class MLP(flgo.utils.fmodule.FModule):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(784, 200)
            self.fc2 = torch.nn.Linear(200, 10)
            for layer in (self.fc1, self.fc2):
                torch.nn.init.normal_(layer.weight, 0.0, math.sqrt(2.0 / layer.in_features))
                torch.nn.init.zeros_(layer.bias)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x.reshape(x.shape[0], -1))))

    model_module = types.ModuleType("mlp_784_200_10")
    model_module.init_global_module = lambda obj: (
        setattr(obj, "model", MLP()) if isinstance(obj, fedbase.BasicServer) else None)
    model_bytes = 4 * (784 * 200 + 200 + 200 * 10 + 10)

    class TimedSimulator(flgo.simulator.base.BasicSimulator):
        """Each client's trip takes a fixed number of ticks (module docstring, "time")."""

        def initialize(self):
            rng = np.random.default_rng([a.seed, 2])
            s2 = math.log1p(a.factor_cv ** 2)
            ids = self.all_clients
            self.factors = rng.lognormal(-s2 / 2, math.sqrt(s2), len(ids))
            self.trip_s = [a.local_steps * a.step_time_s * f + 2.0 * model_bytes / a.bandwidth_Bps
                           for f in self.factors]
            self.set_variable(ids, "latency", [max(1, int(round(t / a.tick_s))) for t in self.trip_s])

    class CountingFedAvg(flgo.algorithm.fedavg.Server):
        """FLGo's FedAvg, counting its rounds and client trips for the logger."""

        def initialize(self):
            self.n_updates, self.n_trips, self.taus = 0, 0, []

        def iterate(self):
            updated = super().iterate()
            self.n_trips += len(self.received_clients)
            self.n_updates += 1
            self.taus.extend([0] * len(self.received_clients))
            return updated

    class AsyncServer(fedbase.BasicServer):
        """C clients always in flight; subclasses say what an arrival does.  Its own main
        loop: FLGo's BasicServer.run counts one round per clock tick in which iterate()
        reports an update, however many server updates that tick made."""

        def initialize(self):
            self.n_updates, self.n_trips, self.taus = 0, 0, []
            self.dispatched_at = {}
            self.tolerance_for_latency = 10 ** 12
            self.logged = -1

        def sample(self):
            busy = len(self.gv.simulator.working_clients) + len(self.gv.simulator.selected_clients)
            idle = self.gv.simulator.idle_clients
            need = min(a.per_round - busy, len(idle))
            if need <= 0:
                return []
            return [int(c) for c in np.random.choice(idle, need, replace=False)]

        def iterate(self):
            chosen = self.sample()
            for cid in chosen:
                self.dispatched_at[cid] = self.n_updates
            res = self.communicate(chosen, asynchronous=True)
            for cid, payload in zip(res["__cid"], res["model"]):
                tau = self.n_updates - self.dispatched_at.pop(cid)
                self.taus.append(tau)
                self.n_trips += 1
                if self.arrive(payload, tau):
                    self.n_updates += 1
                    self.maybe_log()
                    if self.n_updates >= self.num_rounds:
                        break

        def maybe_log(self):
            if self.n_updates % a.eval_every == 0 or self.n_updates == self.num_rounds:
                if self.logged != self.n_updates:
                    self.logged = self.n_updates
                    self.gv.logger.log_once()

        def run(self):
            self.maybe_log()
            while self.n_updates < self.num_rounds:
                self.gv.clock.step()
                self.iterate()

    class FedBuffServer(AsyncServer):
        def initialize(self):
            super().initialize()
            self.acc, self.k = None, 0

        def arrive(self, delta, tau):
            w = 1.0 / math.sqrt(1.0 + tau) if a.staleness == "sqrt" else 1.0
            self.acc = delta * w if self.acc is None else self.acc + delta * w
            self.k += 1
            if self.k < a.buffer:
                return False
            self.model = self.model - self.acc * (a.server_lr / a.buffer)
            self.acc, self.k = None, 0
            return True

    class FedAsyncServer(AsyncServer):
        def arrive(self, client_model, tau):
            at = a.fedasync_alpha * (1.0 + tau) ** (-a.fedasync_a)
            self.model = self.model * (1.0 - at) + client_model * at
            return True

    class ReplacementBatches:
        """A step's minibatch drawn uniformly with replacement from the client's samples
        (torch's generator, seeded by FLGo from --seed), in place of FLGo's DataLoader
        epochs."""

        def get_batch_data(self):
            idx = torch.randint(len(self.train_data), (self.batch_size,)).tolist()
            xs, ys = zip(*(self.train_data[i] for i in idx))
            return torch.stack(xs), torch.stack(ys)

    def client(base):
        if a.batches == "epochs":
            return base
        return type("Client", (ReplacementBatches, base), {})

    server_class, client_class = {
        "fedavg": (CountingFedAvg, client(fedbase.BasicClient)),
        "fedbuff": (FedBuffServer, client(flgo.algorithm.fedbuff.Client)),
        "fedasync": (FedAsyncServer, client(fedbase.BasicClient)),
    }[a.algorithm]
    algorithm = types.ModuleType(a.algorithm)
    algorithm.Server, algorithm.Client = server_class, client_class

    t_start = time.perf_counter()
    rows = []

    class CurveLogger(flgo.experiment.logger.BasicLogger):
        eval_wall = 0.0

        def log_once(self, *args, **kwargs):
            t0 = time.perf_counter()
            m = self.coordinator.test()
            t1 = time.perf_counter()
            CurveLogger.eval_wall += t1 - t0
            s = self.coordinator
            rows.append({"side": "flgo", "algorithm": a.algorithm, "seed": a.seed,
                         "round": s.n_updates, "client_trips": s.n_trips,
                         "sim_time_s": "%.6f" % (self.clock.current_time * a.tick_s),
                         "test_accuracy": "%.6f" % m["accuracy"], "test_loss": "%.6f" % m["loss"],
                         "wall_s": "%.3f" % (t1 - t_start),
                         "eval_wall_s": "%.3f" % CurveLogger.eval_wall})

    os.makedirs(a.workdir, exist_ok=True)
    task = os.path.join(a.workdir, "task_seed%d" % a.seed)
    flgo.gen_task({"benchmark": {"name": "flgo_idx_bench"}, "partitioner": Partitioner()},
                  task_path=task, seed=a.seed, overwrite=True)
    option = {"num_rounds": a.rounds, "proportion": a.per_round / a.clients,
              "sample": "uniform", "aggregate": "other", "num_steps": a.local_steps,
              "batch_size": a.batch, "learning_rate": a.lr, "momentum": 0.0,
              "weight_decay": 0.0, "train_holdout": 0.0, "test_holdout": 0.0,
              "test_batch_size": 1000, "eval_interval": a.eval_every if a.algorithm == "fedavg" else 0,
              "seed": a.seed, "dataseed": a.seed, "gpu": [], "num_parallels": 1,
              "log_level": "WARNING", "no_log_console": True}
    runner = flgo.init(task, algorithm, option=option, model=model_module, Logger=CurveLogger,
                       Simulator=TimedSimulator)
    t_run = time.perf_counter()
    runner.run()
    t_end = time.perf_counter()

    with open(a.curve, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CURVE_FIELDS)
        w.writeheader()
        w.writerows(rows)
    sim = runner.gv.simulator
    sizes = [c.datavol for c in runner.clients]
    summary = {
        "side": "flgo", "algorithm": a.algorithm, "seed": a.seed,
        "rounds": runner.n_updates, "client_trips": runner.n_trips,
        "sim_time_s": runner.gv.clock.current_time * a.tick_s,
        "wall_run_s": t_end - t_run, "wall_setup_s": t_run - t_start,
        "wall_eval_s": CurveLogger.eval_wall,
        "wall_per_round_s": (t_end - t_run) / max(1, runner.n_updates),
        "wall_per_round_no_eval_s": (t_end - t_run - CurveLogger.eval_wall) / max(1, runner.n_updates),
        "staleness_mean": sum(runner.taus) / max(1, len(runner.taus)),
        "staleness_max": max(runner.taus) if runner.taus else 0,
        "client_samples_min": min(sizes), "client_samples_max": max(sizes),
        "factor_min": float(min(sim.factors)), "factor_max": float(max(sim.factors)),
        "trip_s_mean": sum(sim.trip_s) / len(sim.trip_s),
        "settings": vars(a), "flgo_version": flgo.__version__,
        "torch_version": torch.__version__, "numpy_version": np.__version__,
    }
    with open(a.summary, "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
