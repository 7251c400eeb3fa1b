// Host emulation of the part of the CUDA runtime that models/backend_cuda.cu uses, for
// scripts/cuda_emu_check.sh: "device" memory is host memory, copies are memcpy, and a kernel
// launch runs every thread of every block -- block after block; the threads of a block as
// real threads meeting at a std::barrier for kernels that call __syncthreads, one after
// another for the others.  It checks the backend's logic (indices, strides, transposes,
// reductions, the order of operations), not CUDA's memory model, speed or rounding.
#pragma once
#include <barrier>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <functional>
#include <thread>
#include <vector>
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline std::barrier<> *emu_bar;
inline char emu_shared[1 << 16];
inline void __syncthreads() { emu_bar->arrive_and_wait(); }
#define __global__
#define __device__
#define __shared__ static
typedef int cudaError_t;
enum { cudaSuccess = 0 };
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
enum { cudaHostRegisterDefault = 0 };
struct cudaDeviceProp { char name[256]; int major, minor, multiProcessorCount; };
inline const char *cudaGetErrorString(cudaError_t) { return "emu error"; }
template <class T> cudaError_t cudaMalloc(T **p, size_t n) { *p = (T *)calloc(1, n ? n : 1); return 0; }
template <class T> cudaError_t cudaMallocHost(T **p, size_t n) { *p = (T *)calloc(1, n ? n : 1); return 0; }
inline cudaError_t cudaFree(void *p) { free(p); return 0; }
inline cudaError_t cudaFreeHost(void *p) { free(p); return 0; }
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t) { memcpy(d, s, n); return 0; }
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t) { memset(d, v, n); return 0; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return 0; }
inline cudaError_t cudaStreamCreate(cudaStream_t *s) { *s = (void *)1; return 0; }
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return 0; }
inline cudaError_t cudaGetLastError() { return 0; }
inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return 0; }
inline cudaError_t cudaSetDevice(int) { return 0; }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int) { strcpy(p->name, "host emulator"); p->major = 9; p->minor = 0; p->multiProcessorCount = 1; return 0; }
inline cudaError_t cudaHostRegister(void *, size_t, int) { return 0; }
inline cudaError_t cudaHostUnregister(void *) { return 0; }
inline cudaError_t cudaEventCreate(cudaEvent_t *) { return 0; }
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return 0; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return 0; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 1000; return 0; } // fixed: timings mean nothing here
inline cudaError_t cudaEventDestroy(cudaEvent_t) { return 0; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
// Runs f for every thread of every block, blocks one after another.  With `sync` the threads
// of a block are real threads meeting at a barrier (started once per launch: each runs its
// part of every block in turn, and a barrier after each block keeps the blocks apart, since
// shared memory is one buffer); without, they run one after another.
inline void emu_launch(dim3 g, dim3 b, bool sync, const std::function<void()> &f)
{
    gridDim = g; blockDim = b;
    unsigned nt = b.x * b.y * b.z;
    auto each_block = [&](auto &&body) {
        for (unsigned bz = 0; bz < g.z; bz++) for (unsigned by = 0; by < g.y; by++) for (unsigned bx = 0; bx < g.x; bx++)
            body(dim3(bx, by, bz));
    };
    auto thread_idx = [&](unsigned t) { return dim3(t % b.x, (t / b.x) % b.y, t / (b.x * b.y)); };
    if (!sync) {
        each_block([&](dim3 blk) {
            for (unsigned t = 0; t < nt; t++) { blockIdx = blk; threadIdx = thread_idx(t); f(); }
        });
        return;
    }
    std::barrier<> bar((std::ptrdiff_t)nt);
    emu_bar = &bar;
    std::vector<std::thread> th;
    for (unsigned t = 0; t < nt; t++)
        th.emplace_back([&, t] {
            threadIdx = thread_idx(t);
            each_block([&](dim3 blk) { blockIdx = blk; f(); bar.arrive_and_wait(); });
        });
    for (auto &x : th) x.join();
}
