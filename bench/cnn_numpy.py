#!/usr/bin/env python3
"""Reference for bench/bench_cnn_grad.c: the LeNet-5 gradient of models/cnn.c written with numpy
in the same im2col form, to compare sgdsim's gradient throughput against (bench/cnn-vs-numpy.sh
runs both).

Same network, layout and products as sgdsim's: 28 x 28 x 1 images, NHWC; conv 6 5x5 pad 2,
ReLU, max pool 2/2, conv 16 5x5, ReLU, max pool 2/2, fc 120, ReLU, fc 84, ReLU, fc 10, softmax +
mean NLL; float32; one flat parameter vector (per weight layer W, kdim x out, then b) with
views.  A convolution is im2col of the batch into a (B*oh*ow x k*k*c) matrix and one matmul
forward, one for dW and one for dcol (none for the first layer); col2im adds the k*k slices
back.  So the GEMM FLOPs are the same as sgdsim's (model_flops_per_sample) and only the work
around them and the overheads differ.  Data: uniform random pixels and labels (only speed is
measured).

Prints one line per batch: "numpy batch <B> grad_gflops <value> seconds_per_call <s>", each
the best of REPS timings of calls repeated for at least 0.05 s, as bench_cnn_grad times its
own (--cpu-time: by the thread's CPU time, as bench_cnn_grad --cpu-time).  BLAS threads should be pinned to 1 by the caller (OPENBLAS_NUM_THREADS=1), as sgdsim
does; the first line names the OpenBLAS kernel numpy's BLAS runs."""
import argparse
import ctypes
import ctypes.util
import time

import numpy as np

REPS = 9
MIN_SECONDS = 0.05

# (kind, out, k, stride, pad) as in bench_cnn_grad.c's lenet5(), then the output layer.
LAYERS = [("conv", 6, 5, 1, 2), ("max", 0, 2, 2, 0), ("conv", 16, 5, 1, 0),
          ("max", 0, 2, 2, 0), ("fc", 120, 0, 0, 0), ("fc", 84, 0, 0, 0), ("out", 10, 0, 0, 0)]


def blas_core():
    """The kernel of the OpenBLAS that numpy's libblas.so.3 resolves to, if it is OpenBLAS."""
    try:
        lib = ctypes.CDLL("libblas.so.3")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return "not OpenBLAS"


def shapes():
    """Each layer's input shape (h, w, c), kdim and output shape, as cnn_geom.c resolves them."""
    h, w, c, out = 28, 28, 1, []
    for kind, o, k, s, p in LAYERS:
        if kind == "conv":
            oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
            out.append((kind, (h, w, c), k * k * c, (oh, ow, o), k, s, p))
            h, w, c = oh, ow, o
        elif kind == "max":
            oh, ow = (h - k) // s + 1, (w - k) // s + 1
            out.append((kind, (h, w, c), 0, (oh, ow, c), k, s, p))
            h, w = oh, ow
        else:
            out.append((kind, (h, w, c), h * w * c, (1, 1, o), 0, 0, 0))
            h, w, c = 1, 1, o
    return out


def im2col(x, k, s, p):
    """x: (B, h, w, c) -> (B*oh*ow, k*k*c), columns in (ky, kx, ch) order: one strided slice
    copy per (ky, kx), the mirror of col2im."""
    if p:
        x = np.pad(x, ((0, 0), (p, p), (p, p), (0, 0)))
    b, hp, wp, c = x.shape
    oh, ow = (hp - k) // s + 1, (wp - k) // s + 1
    col = np.empty((b, oh, ow, k, k, c), dtype=np.float32)
    for ky in range(k):
        for kx in range(k):
            col[:, :, :, ky, kx, :] = x[:, ky:ky + s * oh:s, kx:kx + s * ow:s, :]
    return col.reshape(b * oh * ow, k * k * c)


def col2im(dcol, shape_in, shape_out, k, s, p):
    """The adjoint of im2col: adds each (ky, kx) slice back into the padded input."""
    b = dcol.shape[0] // (shape_out[0] * shape_out[1])
    h, w, c = shape_in
    oh, ow = shape_out[:2]
    d = dcol.reshape(b, oh, ow, k, k, c)
    dx = np.zeros((b, h + 2 * p, w + 2 * p, c), dtype=np.float32)
    for ky in range(k):
        for kx in range(k):
            dx[:, ky:ky + s * oh:s, kx:kx + s * ow:s, :] += d[:, :, :, ky, kx, :]
    return dx[:, p:p + h, p:p + w, :] if p else dx


def max_pool(x, k):
    """Non-overlapping k x k windows (LeNet's 2/2): the max and a mask of each window's first
    largest value."""
    b, h, w, c = x.shape
    win = x.reshape(b, h // k, k, w // k, k, c).transpose(0, 1, 3, 5, 2, 4)
    win = win.reshape(b, h // k, w // k, c, k * k)
    arg = win.argmax(axis=4)
    mask = arg[..., None] == np.arange(k * k)
    return np.take_along_axis(win, arg[..., None], 4)[..., 0], mask


def max_pool_back(d, mask, k, shape_in):
    b, (h, w, c) = d.shape[0], shape_in
    g = np.where(mask, d[..., None], np.float32(0)).reshape(b, h // k, w // k, c, k, k)
    return g.transpose(0, 1, 4, 2, 5, 3).reshape(b, h, w, c)


class LeNet:
    def __init__(self, rng):
        self.geo = shapes()
        self.views, off, sizes = [], 0, []
        for kind, _, kdim, (oh, ow, oc), *_ in self.geo:
            if kdim:
                sizes.append((off, kdim, oc))
                off += kdim * oc + oc
        self.params = np.zeros(off, dtype=np.float32)
        self.grad = np.zeros(off, dtype=np.float32)
        for o, kdim, oc in sizes:
            self.params[o:o + kdim * oc] = rng.normal(0, np.sqrt(2 / kdim), kdim * oc)
            self.views.append(tuple(v[o:o + kdim * oc].reshape(kdim, oc) for v in
                                    (self.params, self.grad)) +
                              tuple(v[o + kdim * oc:o + kdim * oc + oc] for v in
                                    (self.params, self.grad)))

    def loss_grad(self, x, y):
        bsz = x.shape[0]
        a = x.reshape(bsz, 28, 28, 1)
        saved, wl = [], 0
        for kind, shp_in, kdim, shp_out, k, s, p in self.geo:
            if kind == "conv":
                W, _, b, _ = self.views[wl]
                col = im2col(a, k, s, p)
                z = np.maximum(col @ W + b, 0)
                saved.append((col, z))
                a = z.reshape(bsz, *shp_out)
                wl += 1
            elif kind == "max":
                a, mask = max_pool(a, k)
                saved.append((mask, None))
            else:
                W, _, b, _ = self.views[wl]
                inp = a.reshape(bsz, kdim)
                z = inp @ W + b
                if kind == "fc":
                    z = np.maximum(z, 0)
                saved.append((inp, z))
                a = z
                wl += 1
        z = a - a.max(axis=1, keepdims=True)
        e = np.exp(z)
        ssum = e.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(ssum[:, 0]) - z[np.arange(bsz), y]))
        d = e / ssum
        d[np.arange(bsz), y] -= 1
        d /= np.float32(bsz)
        for i in range(len(self.geo) - 1, -1, -1):
            kind, shp_in, kdim, shp_out, k, s, p = self.geo[i]
            if kind == "max":
                d = max_pool_back(d.reshape(bsz, *shp_out), saved[i][0], k, shp_in)
                continue
            wl -= 1
            W, gW, _, gb = self.views[wl]
            inp, out = saved[i]
            if kind != "out":
                d = d.reshape(out.shape) * (out > 0)
            else:
                d = d.reshape(out.shape)
            np.matmul(inp.T, d, out=gW)
            gb[:] = d.sum(axis=0)
            if i == 0:
                break
            dinp = d @ W.T
            d = col2im(dinp, shp_in, shp_out, k, s, p) if kind == "conv" else dinp
        return loss

    def flops_per_sample(self):
        f = 0.0
        for i, (kind, _, kdim, (oh, ow, oc), *_) in enumerate(self.geo):
            if kdim:
                mac = (oh * ow if kind == "conv" else 1) * kdim * oc
                f += 2 * mac * (3 if i > 0 else 2)
        return f


def best_seconds(f, clock):
    calls = 1
    while True:
        t0 = clock()
        for _ in range(calls):
            f()
        if clock() - t0 >= MIN_SECONDS:
            break
        calls *= 2
    best = float("inf")
    for _ in range(REPS):
        t0 = clock()
        for _ in range(calls):
            f()
        best = min(best, (clock() - t0) / calls)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", default="16,64,128")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time by the thread's CPU time, as bench_cnn_grad --cpu-time")
    a = ap.parse_args()
    clock = time.thread_time if a.cpu_time else time.perf_counter
    print(f"numpy {np.__version__}, BLAS kernel {blas_core()}")
    rng = np.random.default_rng(1)
    net = LeNet(rng)
    for bsz in (int(b) for b in a.batches.split(",")):
        x = rng.random((bsz, 784), dtype=np.float32)
        y = rng.integers(0, 10, bsz)
        secs = best_seconds(lambda: net.loss_grad(x, y), clock)
        gf = net.flops_per_sample() * bsz / secs * 1e-9
        print(f"numpy batch {bsz} grad_gflops {gf:.3f} seconds_per_call {secs:.6f}")


if __name__ == "__main__":
    main()
