#!/usr/bin/env python3
"""The staleness of n-softsync under two answers to a client's fetch (docs/papers.md, "Why
sgdsim's staleness is n - 1 and the SASGD paper's is n").

A model of the timed driver, independent of sgdsim: lambda clients compute gradients for
gamma-distributed times (mean 10 ms, cv 0.1 as in the issue's runs), each push reaches the
server 20 us later and is taken in at once, the server makes an update of c = lambda / n
pushes and counts tau = its version - the version the gradient was computed on.  The two
protocols differ only in when a client's fetch is answered:

  after_update  the client waits for the update that applies its push and then fetches the
                new version (sgdsim's protocol, and FASGD's simulator's);
  after_push    the fetch is answered as soon as the server has taken the push in, with the
                version current then -- which the update that push belongs to has not made
                yet unless the push completed it (the SASGD paper's Rudra, where a learner
                pushes its gradient and pulls the weights without waiting for the update).

Usage: scripts/staleness-protocols.py [--updates 2000] [--workers 30] [--seed 1]
Prints, per protocol and n, the mean, the maximum and the histogram of tau."""
import argparse
import heapq
import random

LATENCY = 20e-6
MEAN, CV = 0.010, 0.1


def simulate(lam, n, updates, protocol, seed):
    c = lam // n
    shape = 1.0 / (CV * CV)
    rng = [random.Random(seed * 1000003 + k) for k in range(lam)]
    held = [0] * lam  # the version each client computes on
    version, buf, taus, seq = 0, [], [], 0
    events = []

    def compute(k, now):
        nonlocal seq
        seq += 1
        t = now + rng[k].gammavariate(shape, MEAN / shape) + LATENCY
        heapq.heappush(events, (t, seq, k))

    for k in range(lam):
        compute(k, 0.0)
    while len(taus) < updates * c:
        now, _, k = heapq.heappop(events)
        buf.append((k, held[k]))
        if len(buf) == c:
            taus.extend(version - v for _, v in buf)
            version += 1
            applied, buf = [j for j, _ in buf], []
        else:
            applied = []
        if protocol == "after_push":
            fetching = [k]
        else:
            fetching = applied
        for j in fetching:
            held[j] = version
            compute(j, now + LATENCY)
    return taus


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--updates", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    print("protocol      n   mean tau  max tau  histogram (tau:count, counts >= 0.5%)")
    for protocol in ("after_update", "after_push"):
        for n in (1, 2, 5, 15, 30):
            if a.workers % n:
                continue
            taus = simulate(a.workers, n, a.updates, protocol, a.seed)
            hist = {}
            for t in taus:
                hist[t] = hist.get(t, 0) + 1
            shown = " ".join(f"{t}:{hist[t]}" for t in sorted(hist)
                             if hist[t] >= 0.005 * len(taus))
            print(f"{protocol:12s} {n:2d} {sum(taus) / len(taus):9.2f} {max(taus):8d}  {shown}")


if __name__ == "__main__":
    main()
