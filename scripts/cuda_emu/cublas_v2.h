// Host emulation of the cuBLAS calls models/backend_cuda.cu makes (scripts/cuda_emu_check.sh):
// a naive column-major strided-batched SGEMM with double accumulation -- the reference for
// argument order, leading dimensions, strides and transposes, not for cuBLAS's rounding.
#pragma once
#include "cuda_runtime.h"
typedef void *cublasHandle_t;
typedef int cublasStatus_t;
enum { CUBLAS_STATUS_SUCCESS = 0 };
typedef enum { CUBLAS_OP_N, CUBLAS_OP_T } cublasOperation_t;
enum { CUBLAS_POINTER_MODE_HOST, CUBLAS_ATOMICS_NOT_ALLOWED, CUBLAS_DEFAULT_MATH };
inline const char *cublasGetStatusString(cublasStatus_t) { return "emu"; }
inline cublasStatus_t cublasCreate(cublasHandle_t *h) { *h = (void *)1; return 0; }
inline cublasStatus_t cublasDestroy(cublasHandle_t) { return 0; }
inline cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t) { return 0; }
inline cublasStatus_t cublasSetPointerMode(cublasHandle_t, int) { return 0; }
inline cublasStatus_t cublasSetAtomicsMode(cublasHandle_t, int) { return 0; }
inline cublasStatus_t cublasSetMathMode(cublasHandle_t, int) { return 0; }
// Column-major, as cuBLAS: C(m x n) = alpha op(A)(m x k) op(B)(k x n) + beta C.
inline cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb,
    int m, int n, int k, const float *alpha, const float *A, int lda, long long sA, const float *B, int ldb,
    long long sB, const float *beta, float *C, int ldc, long long sC, int count)
{
    for (int bc = 0; bc < count; bc++) {
        const float *a = A + bc * sA, *b = B + bc * sB; float *c = C + bc * sC;
        for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++) {
                float av = ta == CUBLAS_OP_N ? a[i + (long)p * lda] : a[p + (long)i * lda];
                float bv = tb == CUBLAS_OP_N ? b[p + (long)j * ldb] : b[j + (long)p * ldb];
                s += (double)av * bv;
            }
            float *cv = &c[i + (long)j * ldc];
            *cv = (float)(*alpha * s + (*beta != 0 ? *beta * *cv : 0));
        }
    }
    return 0;
}
