/* Shapes of a convolutional network (cnn.h): each layer's input and output sizes resolved
 * from the input shape, checked with the scenario path of the layer that does not fit, and
 * what follows from them -- FLOPs per sample and the workspace cnn_create allocates.  Kept
 * apart from cnn.c so the scenario loader's checks and the runner's memory estimate use the
 * very rules the numerics run on. */
#include "models/cnn.h"
#include "models/cnn_direct.h"

#include <stdio.h>

/* Floats of anything per sample or per matrix: BLAS dimensions are int. */
#define CNN_LIMIT INT64_C(2147483647)

/* "layers[2].conv", "layers[1].pool.max", "layers[4].fc", "output" for the implied layer. */
static void layer_path(const cnn_spec_t *s, int i, char *buf, size_t size)
{
    if (i >= s->nlayers) {
        snprintf(buf, size, "output layer");
        return;
    }
    const cnn_layer_spec_t *l = &s->layer[i];
    const char *what = l->op == CNN_CONV       ? "conv"
                       : l->op == CNN_POOL_MAX ? "pool.max"
                       : l->op == CNN_POOL_AVG ? "pool.avg"
                                               : "fc";
    snprintf(buf, size, "layers[%d].%s", i, what);
}

static int check_values(const cnn_layer_spec_t *l, const char *p, sgd_err_t *err)
{
    if (l->op == CNN_FC)
        return l->out >= 1 ? 0 : sgd_errf(err, "%s: must be >= 1, got %d", p, l->out);
    if (l->op == CNN_CONV && l->out < 1)
        return sgd_errf(err, "%s.out: must be >= 1, got %d", p, l->out);
    const char *kname = l->op == CNN_CONV ? ".k" : "";
    if (l->k < 1) return sgd_errf(err, "%s%s: must be >= 1, got %d", p, kname, l->k);
    if (l->stride < 1) return sgd_errf(err, "%s.stride: must be >= 1, got %d", p, l->stride);
    if (l->pad < 0) return sgd_errf(err, "%s.pad: must be >= 0, got %d", p, l->pad);
    if (l->op != CNN_CONV && l->pad != 0)
        return sgd_errf(err, "%s: pooling has no padding, got %d", p, l->pad);
    return 0;
}

/* Output side of a window sweep, <= 0 when the window does not fit. */
static int64_t out_side(int64_t in, int k, int stride, int pad)
{
    int64_t span = in + 2 * (int64_t)pad - k;
    return span < 0 ? 0 : span / stride + 1;
}

static int resolve_window(const cnn_layer_spec_t *l, cnn_geom_t *g, const char *p,
                          sgd_err_t *err)
{
    int64_t oh = out_side(g->ih, l->k, l->stride, l->pad);
    int64_t ow = out_side(g->iw, l->k, l->stride, l->pad);
    if (oh < 1 || ow < 1)
        return sgd_errf(err, "%s%s: a %d x %d %s does not fit the %d x %d input (pad %d)", p,
                        l->op == CNN_CONV ? ".k" : "", l->k, l->k,
                        l->op == CNN_CONV ? "kernel" : "window", g->ih, g->iw, l->pad);
    g->oh = (int)oh;
    g->ow = (int)ow;
    g->oc = l->op == CNN_CONV ? l->out : g->ic;
    g->rows = l->op == CNN_CONV ? oh * ow : 0;
    g->kdim = l->op == CNN_CONV ? (int64_t)l->k * l->k * g->ic : 0;
    return 0;
}

int cnn_geometry(const cnn_spec_t *spec, int nclasses, cnn_geom_t *g, int *n, sgd_err_t *err)
{
    char p[64];
    if (spec->in_h < 1 || spec->in_w < 1 || spec->in_c < 1)
        return sgd_errf(err, "input: height, width and channels must be >= 1, got %d x %d x %d",
                        spec->in_h, spec->in_w, spec->in_c);
    if ((double)spec->in_h * (double)spec->in_w * (double)spec->in_c > (double)CNN_LIMIT)
        return sgd_errf(err, "input: %d x %d x %d is over the limit of 2^31 - 1 values",
                        spec->in_h, spec->in_w, spec->in_c);
    if (spec->nlayers < 1 || spec->nlayers > CNN_MAX_LAYERS)
        return sgd_errf(err, "layers: expected 1 to %d layers, got %d", CNN_MAX_LAYERS,
                        spec->nlayers);
    bool weights = false;
    for (int i = 0; i < spec->nlayers; i++)
        weights |= spec->layer[i].op == CNN_CONV || spec->layer[i].op == CNN_FC;
    if (!weights)
        return sgd_errf(err, "layers: needs at least one conv or fc layer (pooling alone "
                             "learns nothing before the output layer)");
    int64_t ih = spec->in_h, iw = spec->in_w, ic = spec->in_c, nparams = 0;
    int wl = 0;
    for (int i = 0; i <= spec->nlayers; i++) {
        const cnn_layer_spec_t outl = {.op = CNN_FC, .out = nclasses};
        const cnn_layer_spec_t *l = i < spec->nlayers ? &spec->layer[i] : &outl;
        layer_path(spec, i, p, sizeof p);
        if (check_values(l, p, err)) return -1;
        cnn_geom_t *o = &g[i];
        *o = (cnn_geom_t){.op = l->op, .k = l->k, .stride = l->stride, .pad = l->pad,
                          .ih = (int)ih, .iw = (int)iw, .ic = (int)ic, .wl = -1,
                          .in_size = ih * iw * ic, .relu = l->op == CNN_CONV ||
                                                           (l->op == CNN_FC && i < spec->nlayers)};
        if (l->op == CNN_FC) {
            o->oh = o->ow = 1;
            o->oc = l->out;
            o->rows = 1;
            o->kdim = o->in_size;
        } else if (resolve_window(l, o, p, err)) {
            return -1;
        }
        if ((double)o->oh * (double)o->ow * (double)o->oc > (double)CNN_LIMIT)
            return sgd_errf(err, "%s: a %d x %d x %d output is over the limit of 2^31 - 1 "
                                 "floats per sample", p, o->oh, o->ow, o->oc);
        o->out_size = (int64_t)o->oh * o->ow * o->oc;
        if (o->op == CNN_CONV || o->op == CNN_FC) {
            o->wl = wl++;
            int64_t w = o->kdim * o->oc;
            if (o->kdim > CNN_LIMIT / o->oc || o->kdim * o->rows > CNN_LIMIT)
                return sgd_errf(err, "%s: %lld x %d weights or its im2col rows are over the "
                                     "limit of 2^31 - 1 floats", p, (long long)o->kdim, o->oc);
            nparams += w + o->oc;
            if (nparams > CNN_LIMIT)
                return sgd_errf(err, "%s: the network's parameters reach %lld, over the limit "
                                     "of 2^31 - 1", p, (long long)nparams);
        }
        ih = o->oh;
        iw = o->ow;
        ic = o->oc;
    }
    *n = spec->nlayers + 1;
    return 0;
}

double cnn_flops_per_sample(const cnn_geom_t *g, int n)
{
    double f = 0.0;
    for (int i = 0; i < n; i++) {
        if (g[i].wl < 0) continue;
        double mac = (double)g[i].rows * (double)g[i].kdim * (double)g[i].oc;
        f += 2.0 * mac;            /* forward */
        f += 2.0 * mac;            /* weight gradient */
        if (i > 0) f += 2.0 * mac; /* gradient w.r.t. the layer's input */
    }
    return f;
}

double cnn_workspace_floats_per_sample(const cnn_geom_t *g, int n)
{
    double acts = 0.0, cols = 0.0, sources = 0.0, widest = 0.0, dcol = 0.0, direct = 0.0;
    for (int i = 0; i < n; i++) {
        acts += (double)g[i].out_size;
        if (g[i].op == CNN_CONV) {
            double c = (double)g[i].rows * (double)g[i].kdim;
            if (cnn_direct_applies(&g[i])) /* no matrix; its replicated input per sample */
                direct += (double)(cnn_direct_workspace_floats(&g[i], 1) -
                                   cnn_direct_workspace_floats(&g[i], 0));
            else
                cols += c;
            if (i > 0 && c > dcol) dcol = c;
        }
        if (g[i].op == CNN_POOL_MAX) sources += (double)g[i].out_size; /* int32 each */
        if ((double)g[i].out_size > widest) widest = (double)g[i].out_size;
        if ((double)g[i].in_size > widest) widest = (double)g[i].in_size;
    }
    return acts + cols + sources + 2.0 * widest + dcol + direct;
}

cnn_spec_t cnn_lenet5(void)
{
    return (cnn_spec_t){.in_h = 28, .in_w = 28, .in_c = 1, .nlayers = 6,
                        .layer = {{CNN_CONV, 6, 5, 1, 2}, {CNN_POOL_MAX, 0, 2, 2, 0},
                                  {CNN_CONV, 16, 5, 1, 0}, {CNN_POOL_MAX, 0, 2, 2, 0},
                                  {CNN_FC, 120, 0, 0, 0}, {CNN_FC, 84, 0, 0, 0}}};
}
