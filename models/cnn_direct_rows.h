/* The row kernels of cnn_direct.c, for one vector width: cnn_direct.c includes this file once
 * per instruction set, with
 *     ROWS_VEC     a GCC vector type of ROWS_VLEN floats, native to the instruction set
 *     ROWS_TARGET  the target attribute the functions are compiled for (or nothing)
 *     ROWS_NAME(f) the name of this instance's function f
 * which it undefines at its end, so the next instance can define them again.  Each kernel
 * works in blocks of four vectors kept in registers across the taps (or the rows): a step
 * costs two loads per vector and no store, and the four sums are independent, which hides
 * the adds' latency.  Every element gets the same operations in the same order whatever the
 * width (the file is compiled without floating-point contraction), so every instance gives
 * the same bits. */

typedef float ROWS_NAME(vec_u) __attribute__((vector_size(sizeof(ROWS_VEC)), aligned(4),
                                              may_alias));

/* A vector at any float's address: loads and stores through it are unaligned. */
#define ROWS_LOAD(p) (*(const ROWS_NAME(vec_u) *)(const void *)(p))
#define ROWS_STORE(p, v) (*(ROWS_NAME(vec_u) *)(void *)(p) = (v))

/* Sums of one output row, nb floats (a whole number of blocks): for each block, the taps in
 * (ky, kx) order of input times tiled weight.  Row oy reads replicated rows oy .. oy + k - 1
 * from rep0; tap t's tiled weights are the block row wtile + t * nb. */
ROWS_TARGET static void ROWS_NAME(forward_row)(const float *restrict rep0, size_t prow, int k,
                                               size_t oc, const float *restrict wtile,
                                               size_t nb, float *restrict sum)
{
    const size_t v = ROWS_VLEN;
    for (size_t j = 0; j < nb; j += 4 * v) {
        const float *s = rep0 + j, *w = wtile + j;
        ROWS_VEC a0 = ROWS_LOAD(s) * ROWS_LOAD(w), a1 = ROWS_LOAD(s + v) * ROWS_LOAD(w + v);
        ROWS_VEC a2 = ROWS_LOAD(s + 2 * v) * ROWS_LOAD(w + 2 * v);
        ROWS_VEC a3 = ROWS_LOAD(s + 3 * v) * ROWS_LOAD(w + 3 * v);
        for (int ky = 0; ky < k; ky++)
            for (int kx = ky == 0 ? 1 : 0; kx < k; kx++) {
                s = rep0 + (size_t)ky * prow + (size_t)kx * oc + j;
                w = wtile + (size_t)(ky * k + kx) * nb + j;
                a0 += ROWS_LOAD(s) * ROWS_LOAD(w);
                a1 += ROWS_LOAD(s + v) * ROWS_LOAD(w + v);
                a2 += ROWS_LOAD(s + 2 * v) * ROWS_LOAD(w + 2 * v);
                a3 += ROWS_LOAD(s + 3 * v) * ROWS_LOAD(w + 3 * v);
            }
        ROWS_STORE(sum + j, a0);
        ROWS_STORE(sum + j + v, a1);
        ROWS_STORE(sum + j + 2 * v, a2);
        ROWS_STORE(sum + j + 3 * v, a3);
    }
}

/* One sample's share of accumulator row acc (nb floats): acc += s * d over the sample's oh
 * output rows in order, or acc += d where s is NULL (the bias's row).  s is the tap's input
 * at output row 0 (row oy's: s + oy * prow); d's rows are drow floats apart (each block
 * reads up to nb floats of a row: past its end, into the next row or the slack). */
ROWS_TARGET static void ROWS_NAME(grad_acc_row)(const float *restrict s, size_t prow,
                                                const float *restrict d, size_t drow, int oh,
                                                size_t nb, float *restrict acc)
{
    const size_t v = ROWS_VLEN;
    for (size_t j = 0; j < nb; j += 4 * v) {
        ROWS_VEC a0 = ROWS_LOAD(acc + j), a1 = ROWS_LOAD(acc + j + v);
        ROWS_VEC a2 = ROWS_LOAD(acc + j + 2 * v), a3 = ROWS_LOAD(acc + j + 3 * v);
        for (int oy = 0; oy < oh; oy++) {
            const float *dr = d + (size_t)oy * drow + j;
            if (s) {
                const float *sr = s + (size_t)oy * prow + j;
                a0 += ROWS_LOAD(sr) * ROWS_LOAD(dr);
                a1 += ROWS_LOAD(sr + v) * ROWS_LOAD(dr + v);
                a2 += ROWS_LOAD(sr + 2 * v) * ROWS_LOAD(dr + 2 * v);
                a3 += ROWS_LOAD(sr + 3 * v) * ROWS_LOAD(dr + 3 * v);
            } else {
                a0 += ROWS_LOAD(dr);
                a1 += ROWS_LOAD(dr + v);
                a2 += ROWS_LOAD(dr + 2 * v);
                a3 += ROWS_LOAD(dr + 3 * v);
            }
        }
        ROWS_STORE(acc + j, a0);
        ROWS_STORE(acc + j + v, a1);
        ROWS_STORE(acc + j + 2 * v, a2);
        ROWS_STORE(acc + j + 3 * v, a3);
    }
}

#undef ROWS_LOAD
#undef ROWS_STORE
#undef ROWS_VEC
#undef ROWS_VLEN
#undef ROWS_TARGET
#undef ROWS_NAME
