/* The row kernels of cnn_direct.c, for one vector width: cnn_direct.c includes this file once
 * per instruction set, with
 *     ROWS_VEC     a GCC vector type of ROWS_VLEN floats, native to the instruction set
 *     ROWS_TARGET  the target attribute the functions are compiled for (or nothing)
 *     ROWS_NAME(f) the name of this instance's function f
 * which it undefines at its end, so the next instance can define them again.  The kernels
 * work in blocks of a few vectors kept in registers across the taps (or the rows), sized so
 * that loads do not outnumber the arithmetic and enough independent sums are in flight to
 * hide the adds' latency.  Every element gets the same operations in the same order whatever
 * the width or the blocking (the file is compiled without floating-point contraction), so
 * every instance gives the same bits.  The loops over a block's vectors and taps carry
 * `#pragma GCC unroll`: unrolled, the block's arrays live in registers; GCC's -O2 leaves such
 * loops rolled and the arrays on the stack. */

typedef float ROWS_NAME(vec_u) __attribute__((vector_size(sizeof(ROWS_VEC)), aligned(4),
                                              may_alias));
typedef int32_t ROWS_NAME(ivec) __attribute__((vector_size(sizeof(ROWS_VEC))));

/* A vector at any float's address: loads and stores through it are unaligned. */
#define ROWS_LOAD(p) (*(const ROWS_NAME(vec_u) *)(const void *)(p))
#define ROWS_STORE(p, v) (*(ROWS_NAME(vec_u) *)(void *)(p) = (v))

/* The forward kernel's block: four vectors for each of two output rows. */
#define ROWS_FWD 4

/* a = s * w (a block's first tap) and a += s * w (the others), over ROWS_FWD vectors. */
ROWS_TARGET static inline __attribute__((always_inline)) void
ROWS_NAME(fwd_first)(ROWS_VEC a[ROWS_FWD], const float *s, const float *w)
{
    #pragma GCC unroll 4
    for (int i = 0; i < ROWS_FWD; i++)
        a[i] = ROWS_LOAD(s + i * ROWS_VLEN) * ROWS_LOAD(w + i * ROWS_VLEN);
}

ROWS_TARGET static inline __attribute__((always_inline)) void
ROWS_NAME(fwd_tap)(ROWS_VEC a[ROWS_FWD], const float *s, const float *w)
{
    #pragma GCC unroll 4
    for (int i = 0; i < ROWS_FWD; i++)
        a[i] += ROWS_LOAD(s + i * ROWS_VLEN) * ROWS_LOAD(w + i * ROWS_VLEN);
}

/* Floats [j, j + ROWS_FWD vectors) of output row o (n floats): a + bias, then max(., +0)
 * if relu (a NaN gives +0, as `v > 0 ? v : 0` does); a block past the row's end is cut
 * there, so that the next row is not overwritten. */
ROWS_TARGET static inline __attribute__((always_inline)) void
ROWS_NAME(store_block)(const ROWS_VEC a[ROWS_FWD], const float *restrict bias, bool relu,
                       float *restrict o, size_t j, size_t n)
{
    ROWS_VEC v[ROWS_FWD];
    #pragma GCC unroll 4
    for (int i = 0; i < ROWS_FWD; i++) {
        v[i] = a[i] + ROWS_LOAD(bias + j + (size_t)i * ROWS_VLEN);
        if (relu) {
            ROWS_NAME(ivec) keep = v[i] > (ROWS_VEC){0};
            v[i] = (ROWS_VEC)((ROWS_NAME(ivec))v[i] & keep);
        }
    }
    if (j + ROWS_FWD * ROWS_VLEN <= n) {
        #pragma GCC unroll 4
        for (int i = 0; i < ROWS_FWD; i++) ROWS_STORE(o + j + (size_t)i * ROWS_VLEN, v[i]);
    } else {
        float part[ROWS_FWD * ROWS_VLEN];
        #pragma GCC unroll 4
        for (int i = 0; i < ROWS_FWD; i++) ROWS_STORE(part + i * ROWS_VLEN, v[i]);
        memcpy(o + j, part, (n - j) * sizeof *o);
    }
}

/* Output rows oy (and oy + 1 if two) of n floats each, at o (and o + n), from the replicated
 * rows oy .. oy + k - 1 (.. oy + k if two) at rep0: for each block, the taps in (ky, kx)
 * order of input times tiled weight (tap t's: the block row wtile + t * nb), then the tiled
 * bias and the ReLU.  Two rows at a time share the loads of the k - 1 input rows both read,
 * and their eight sums in flight hide the adds' latency. */
ROWS_TARGET static void ROWS_NAME(forward_rows)(const float *restrict rep0, size_t prow, int k,
                                                size_t oc, const float *restrict wtile,
                                                const float *restrict btile, size_t nb,
                                                bool relu, bool two, float *restrict o,
                                                size_t n)
{
#define ROWS_IN(r, kx) (rep0 + (size_t)(r) * prow + (size_t)(kx) * oc + j)
#define ROWS_W(ky, kx) (wtile + (size_t)((ky) * k + (kx)) * nb + j)
    for (size_t j = 0; j < n; j += ROWS_FWD * ROWS_VLEN) { /* blocks past the row: none */
        ROWS_VEC a[ROWS_FWD];
        ROWS_NAME(fwd_first)(a, ROWS_IN(0, 0), ROWS_W(0, 0));
        for (int kx = 1; kx < k; kx++) ROWS_NAME(fwd_tap)(a, ROWS_IN(0, kx), ROWS_W(0, kx));
        if (two) {
            ROWS_VEC b[ROWS_FWD];
            ROWS_NAME(fwd_first)(b, ROWS_IN(1, 0), ROWS_W(0, 0));
            for (int r = 1; r < k; r++)
                for (int kx = 0; kx < k; kx++) {
                    ROWS_NAME(fwd_tap)(a, ROWS_IN(r, kx), ROWS_W(r, kx));
                    if (r > 1 || kx > 0) ROWS_NAME(fwd_tap)(b, ROWS_IN(r, kx), ROWS_W(r - 1, kx));
                }
            for (int kx = k == 1 ? 1 : 0; kx < k; kx++)
                ROWS_NAME(fwd_tap)(b, ROWS_IN(k, kx), ROWS_W(k - 1, kx));
            ROWS_NAME(store_block)(b, btile, relu, o + n, j, n);
        } else {
            for (int r = 1; r < k; r++)
                for (int kx = 0; kx < k; kx++)
                    ROWS_NAME(fwd_tap)(a, ROWS_IN(r, kx), ROWS_W(r, kx));
        }
        ROWS_NAME(store_block)(a, btile, relu, o, j, n);
    }
#undef ROWS_IN
#undef ROWS_W
}

/* The weight-gradient kernel's block: two vectors for each of up to TAP_GROUP taps (defined
 * by cnn_direct.c, which groups the taps). */
#define ROWS_GRAD 2

/* grad_acc_taps for a number of taps nt known where it is inlined. */
ROWS_TARGET static inline __attribute__((always_inline)) void
ROWS_NAME(grad_acc_n)(const int nt, const float *restrict s, size_t oc, size_t prow,
                      const float *restrict d, size_t drow, int oh, size_t nb,
                      float *restrict acc)
{
    for (size_t j = 0; j < drow; j += ROWS_GRAD * ROWS_VLEN) { /* blocks past the row: none */
        ROWS_VEC a[TAP_GROUP][ROWS_GRAD];
        #pragma GCC unroll 8
        for (int t = 0; t < nt; t++)
            #pragma GCC unroll 4
            for (int i = 0; i < ROWS_GRAD; i++)
                a[t][i] = ROWS_LOAD(acc + (size_t)t * nb + j + (size_t)i * ROWS_VLEN);
        for (int oy = 0; oy < oh; oy++) {
            const float *dr = d + (size_t)oy * drow + j, *sr = s + (size_t)oy * prow + j;
            ROWS_VEC dv[ROWS_GRAD];
            #pragma GCC unroll 4
            for (int i = 0; i < ROWS_GRAD; i++) dv[i] = ROWS_LOAD(dr + (size_t)i * ROWS_VLEN);
            #pragma GCC unroll 8
            for (int t = 0; t < nt; t++)
                #pragma GCC unroll 4
                for (int i = 0; i < ROWS_GRAD; i++)
                    a[t][i] += ROWS_LOAD(sr + (size_t)t * oc + (size_t)i * ROWS_VLEN) * dv[i];
        }
        #pragma GCC unroll 8
        for (int t = 0; t < nt; t++)
            #pragma GCC unroll 4
            for (int i = 0; i < ROWS_GRAD; i++)
                ROWS_STORE(acc + (size_t)t * nb + j + (size_t)i * ROWS_VLEN, a[t][i]);
    }
}

/* One sample's share of the accumulator rows of ntaps (1 .. TAP_GROUP) adjacent taps of one
 * kernel row: acc[t] += s_t * d over the sample's oh output rows in order, where s_t = s +
 * t * oc is tap t's input at output row 0 (row oy's: s_t + oy * prow) and acc[t] is the block
 * row acc + t * nb.  d's rows are drow floats long and apart: the blocks that start in a row
 * are computed (the last one reads past its end, into the next row or the slack; what it
 * adds there is never read).  The taps share each load of d. */
ROWS_TARGET static void ROWS_NAME(grad_acc_taps)(const float *restrict s, size_t oc, int ntaps,
                                                 size_t prow, const float *restrict d,
                                                 size_t drow, int oh, size_t nb,
                                                 float *restrict acc)
{
    switch (ntaps) {
    case 1: ROWS_NAME(grad_acc_n)(1, s, oc, prow, d, drow, oh, nb, acc); break;
    case 2: ROWS_NAME(grad_acc_n)(2, s, oc, prow, d, drow, oh, nb, acc); break;
    case 3: ROWS_NAME(grad_acc_n)(3, s, oc, prow, d, drow, oh, nb, acc); break;
    case 4: ROWS_NAME(grad_acc_n)(4, s, oc, prow, d, drow, oh, nb, acc); break;
    default: ROWS_NAME(grad_acc_n)(5, s, oc, prow, d, drow, oh, nb, acc); break; /* 5 */
    }
}

/* The bias's accumulator row acc: acc += d over the sample's oh output rows, in order
 * (d as grad_acc_taps reads it: the blocks that start in a row). */
ROWS_TARGET static void ROWS_NAME(bias_acc_row)(const float *restrict d, size_t drow, int oh,
                                                float *restrict acc)
{
    const size_t v = ROWS_VLEN;
    for (size_t j = 0; j < drow; j += 4 * v) { /* as grad_acc_taps */
        ROWS_VEC a0 = ROWS_LOAD(acc + j), a1 = ROWS_LOAD(acc + j + v);
        ROWS_VEC a2 = ROWS_LOAD(acc + j + 2 * v), a3 = ROWS_LOAD(acc + j + 3 * v);
        for (int oy = 0; oy < oh; oy++) {
            const float *dr = d + (size_t)oy * drow + j;
            a0 += ROWS_LOAD(dr);
            a1 += ROWS_LOAD(dr + v);
            a2 += ROWS_LOAD(dr + 2 * v);
            a3 += ROWS_LOAD(dr + 3 * v);
        }
        ROWS_STORE(acc + j, a0);
        ROWS_STORE(acc + j + v, a1);
        ROWS_STORE(acc + j + 2 * v, a2);
        ROWS_STORE(acc + j + 3 * v, a3);
    }
}

/* A padded input row replicated (cnn_direct.c's replicate_sample): pixel x of the w at src
 * becomes oc copies at dst + x * oc, by whole-vector stores of its bits (each pixel's run
 * past its oc floats, up to a vector, is overwritten by the next one's or by what the caller
 * writes after it). */
ROWS_TARGET static void ROWS_NAME(replicate_row)(const float *restrict src, int w, size_t oc,
                                                 float *restrict dst)
{
    for (int x = 0; x < w; x++, dst += oc) {
        int32_t bits;
        memcpy(&bits, src + x, sizeof bits);
        const ROWS_VEC v = (ROWS_VEC)((ROWS_NAME(ivec)){0} + bits);
        for (size_t c = 0; c < oc; c += ROWS_VLEN) ROWS_STORE(dst + c, v);
    }
}

#undef ROWS_FWD
#undef ROWS_GRAD
#undef ROWS_LOAD
#undef ROWS_STORE
#undef ROWS_VEC
#undef ROWS_VLEN
#undef ROWS_TARGET
#undef ROWS_NAME
