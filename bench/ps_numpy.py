#!/usr/bin/env python3
"""Reference for bench/bench_ps.c: FASGD (authors'-code form) on FRED's uniform schedule,
written with numpy, to compare sgdsim's updates/s against (bench/ps-vs-numpy.sh runs both).

The same loop as sgdsim's `fasgd` with driver `uniform`, c = 1: each iteration a uniformly
random client pushes the gradient of minibatch (t mod M) computed on the parameters it last
fetched; the server folds |g| into the moving average, applies
theta -= lr g / ((tau + 1) (mag + 0.001)), and the client fetches a copy of the new parameters.
Model: MLP dim-200-10, ReLU, softmax + mean NLL, float32, one flat parameter vector with views
(as sgdsim lays it out).  Data: uniform random pixels and labels (only speed is measured).
Prints one line: "numpy updates_per_s <value> updates <n> seconds <s>".
BLAS threads should be pinned to 1 by the caller (OPENBLAS_NUM_THREADS=1), as sgdsim does."""
import argparse
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mu", type=int, default=128)
    ap.add_argument("--lam", type=int, default=128)
    ap.add_argument("--updates", type=int, default=2000)
    ap.add_argument("--hidden", type=int, default=200)
    ap.add_argument("--dim", type=int, default=784)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--n", type=int, default=8192)
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    X = rng.random((a.n, a.dim), dtype=np.float32)
    Y = rng.integers(0, a.classes, a.n)
    d, h, k = a.dim, a.hidden, a.classes
    sizes = [d * h, h, h * k, k]
    offs = np.cumsum([0] + sizes)
    theta = np.zeros(offs[-1], dtype=np.float32)
    theta[: d * h] = rng.normal(0, np.sqrt(2 / d), d * h)
    theta[offs[2]: offs[3]] = rng.normal(0, np.sqrt(2 / h), h * k)
    g = np.empty_like(theta)
    gW1, gb1 = g[offs[0]:offs[1]].reshape(d, h), g[offs[1]:offs[2]]
    gW2, gb2 = g[offs[2]:offs[3]].reshape(h, k), g[offs[3]:offs[4]]
    eye = np.eye(k, dtype=np.float32)

    def grad(p, x, y):
        W1, b1 = p[offs[0]:offs[1]].reshape(d, h), p[offs[1]:offs[2]]
        W2, b2 = p[offs[2]:offs[3]].reshape(h, k), p[offs[3]:offs[4]]
        hid = np.maximum(x @ W1 + b1, 0)
        z = hid @ W2 + b2
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(s[:, 0]) - z[np.arange(len(y)), y]))
        dz = (e / s - eye[y]) / np.float32(len(y))
        np.matmul(hid.T, dz, out=gW2)
        gb2[:] = dz.sum(axis=0)
        dh = (dz @ W2.T) * (hid > 0)
        np.matmul(x.T, dh, out=gW1)
        gb1[:] = dh.sum(axis=0)
        return loss

    mag = np.zeros_like(theta)
    held = [theta.copy()] * a.lam      # every client starts on version 0 (shared)
    ver = np.zeros(a.lam, dtype=np.int64)
    version, M, lr = 0, a.n // a.mu, np.float32(0.005)
    start = time.perf_counter()
    for t in range(a.updates):
        c = int(rng.integers(a.lam))
        r0 = (t % M) * a.mu
        grad(held[c], X[r0:r0 + a.mu], Y[r0:r0 + a.mu])
        tau = version - ver[c]
        mag *= np.float32(0.9)
        mag += np.float32(0.1) * np.abs(g)
        theta -= (lr / np.float32(tau + 1)) * g / (mag + np.float32(0.001))
        version += 1
        held[c] = theta.copy()
        ver[c] = version
    secs = time.perf_counter() - start
    print(f"numpy updates_per_s {a.updates / secs:.3f} updates {a.updates} seconds {secs:.3f}")


if __name__ == "__main__":
    main()
