/* OpenBLAS kernels ("core types"): which ones exist, what each needs from the CPU, and which
 * one sgdsim runs.
 *
 * A DYNAMIC_ARCH OpenBLAS holds one set of kernels per CPU family and picks one when the
 * library loads, honouring OPENBLAS_CORETYPE then.  Different kernels give different last
 * bits, so the choice is part of what a run computes: sgdsim makes it deterministically from
 * CPU feature flags (never the model name) or takes the one a scenario pins
 * (numerics.blas_core), and the CLI starts OpenBLAS with it (cli/machine.h).
 *
 * This module is the pure part: the table of kernels of OpenBLAS 0.3.21's x86_64
 * DYNAMIC_ARCH builds, the features each needs, the automatic choice (a table of rules on the
 * CPU's identity and flags, each backed by a measurement), which kernels compute the same
 * bits, and the resolution of a request against a machine (tested with made-up machines).
 * blas_cpu_detect(), blas_cpu_identify() and blas_kernels_in_library() read the real
 * machine. */
#ifndef SGDSIM_MODELS_BLAS_KERNEL_H
#define SGDSIM_MODELS_BLAS_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* CPU features that kernels need, each usable by this process: the CPU reports it (cpuid)
 * and, for AVX and AVX-512, the operating system saves the registers (xgetbv). */
enum {
    BLAS_CPU_X86_64 = 1u << 0, /* an x86-64 CPU at all */
    BLAS_CPU_SSE3 = 1u << 1,
    BLAS_CPU_SSSE3 = 1u << 2,
    BLAS_CPU_SSE4_1 = 1u << 3,
    BLAS_CPU_SSE4_2 = 1u << 4,
    BLAS_CPU_SSE4A = 1u << 5,  /* AMD */
    BLAS_CPU_PRFCHW = 1u << 6, /* PREFETCHW, used by the AMD kernels */
    BLAS_CPU_AVX = 1u << 7,
    BLAS_CPU_FMA4 = 1u << 8,   /* AMD Bulldozer family */
    BLAS_CPU_FMA = 1u << 9,    /* FMA3 */
    BLAS_CPU_AVX2 = 1u << 10,
    BLAS_CPU_AVX512F = 1u << 11,
    BLAS_CPU_AVX512CD = 1u << 12,
    BLAS_CPU_AVX512BW = 1u << 13,
    BLAS_CPU_AVX512DQ = 1u << 14,
    BLAS_CPU_AVX512VL = 1u << 15,
    BLAS_CPU_AVX512VNNI = 1u << 16,
    BLAS_CPU_AVX512BF16 = 1u << 17,
};
typedef uint32_t blas_cpu_t; /* a set of BLAS_CPU_* bits */

/* The four AVX-512 subsets whose presence makes `auto` choose SkylakeX. */
#define BLAS_CPU_AVX512_SKX \
    (BLAS_CPU_AVX512F | BLAS_CPU_AVX512BW | BLAS_CPU_AVX512VL | BLAS_CPU_AVX512DQ)

/* Longest kernel name plus its NUL ("Opteron_SSE3"), with room to spare. */
#define BLAS_KERNEL_NAME_MAX 24

typedef struct blas_kernel {
    const char *name;  /* OpenBLAS's spelling, as openblas_get_corename() returns it */
    blas_cpu_t needs;  /* features its code uses */
    bool x86_32_only;  /* a 32-bit kernel: x86_64 builds run Prescott when it is asked for */
} blas_kernel_t;

/* Every kernel name OpenBLAS 0.3.21 (DYNAMIC_ARCH, x86_64) accepts in OPENBLAS_CORETYPE, in
 * its own order; terminated by a NULL name.  Index i is bit i of blas_kernels_in_library(). */
extern const blas_kernel_t blas_kernels[];

/* The kernel called `name`, compared case-insensitively as OpenBLAS does; NULL if none. */
const blas_kernel_t *blas_kernel_find(const char *name);

/* "Prescott, Core2, ..., Cooperlake": the kernels an x86_64 build runs, for messages. */
void blas_kernel_list(char *buf, size_t size);

/* Writes the names of the features in `set` ("avx512f avx512bw") into buf; "" for none. */
void blas_cpu_names(blas_cpu_t set, char *buf, size_t size);

/* Who made the CPU and which generation it is, as cpuid reports them. */
typedef struct blas_cpu_id {
    char vendor[13]; /* "GenuineIntel", "AuthenticAMD", ...; "" when unknown */
    int family;      /* display family (base + extended), as /proc/cpuinfo's "cpu family" */
    int model;       /* display model (extended model folded in), as "model" there */
} blas_cpu_id_t;

/* What the resolution of a request depends on: the machine as this process sees it. */
typedef struct blas_machine {
    blas_cpu_t cpu;           /* usable features (blas_cpu_detect) */
    blas_cpu_id_t id;         /* vendor and family (blas_cpu_identify); zeroed: unknown */
    uint64_t in_library;      /* bit i set: the loaded OpenBLAS has blas_kernels[i] */
    const char *native;       /* the kernel OpenBLAS picks by itself on this machine, or ""
                                 when unknown (only needed by `auto` without OPENBLAS_CORETYPE) */
    const char *env_coretype; /* the user's OPENBLAS_CORETYPE, NULL when unset */
} blas_machine_t;

/* One line of the automatic choice: CPUs from `vendor` (NULL: any) of a display family in
 * [family_min, family_max] that have every feature in `needs` run `kernel`.  Each line rests
 * on a measurement of the gradients' speed on every candidate kernel (bench/blas_kernels.sh,
 * docs/performance.md); `what` says which CPUs and when. */
typedef struct blas_auto_rule {
    const char *vendor;
    int family_min, family_max;
    blas_cpu_t needs;
    const char *kernel;
    const char *what; /* the CPUs it is for and the date of its figures */
} blas_auto_rule_t;

/* The rules in the order they are tried, ending with a NULL kernel. */
extern const blas_auto_rule_t blas_auto_rules[];

/* The first rule whose CPU this is, whose kernel the CPU runs and the library has; NULL when
 * none applies (then `auto` is OpenBLAS's own choice).  Never a timing: the same CPU identity
 * and flags always give the same kernel, and so the same digests. */
const blas_auto_rule_t *blas_kernel_auto_rule(const blas_machine_t *m);

/* The automatic choice: blas_kernel_auto_rule()'s kernel, else OpenBLAS's own choice
 * (m->native).  Returns a name from blas_kernels[] or m->native. */
const char *blas_kernel_auto(const blas_machine_t *m);

/* True when kernels a and b (any case) are the same kernel, or two kernels that give every
 * sgdsim computation the same bits: a process that runs one may record the other, so `auto`
 * needs no re-exec.  Each pair was found equal by digest (golden scenarios, a wide MLP, LeNet-5),
 * and tests/cli/test_cli_blas_same_bits.sh checks it again on every CPU that runs both. */
bool blas_kernel_same_bits(const char *a, const char *b);

/* "Zen = Haswell": the pairs of blas_kernel_same_bits, for --version and messages. */
void blas_kernel_same_bits_list(char *buf, size_t size);

/* Checks that this machine can run kernel `k`: x86_64 builds have it, the library has it and
 * the CPU has every feature it needs.  `what` names the request in the message
 * ("--blas-core SkylakeX"); returns 0, or -1 with "WHAT: the SkylakeX kernel needs ... which
 * this CPU lacks (missing: avx512bw)". */
int blas_kernel_check(const blas_kernel_t *k, const blas_machine_t *m, const char *what,
                      sgd_err_t *err);

/* Resolves a request ("auto", any case, or a kernel name) against machine m into the kernel
 * to run, written in OpenBLAS's spelling into out (BLAS_KERNEL_NAME_MAX bytes):
 *   - the user's OPENBLAS_CORETYPE wins over "auto"; it must name a kernel this machine runs;
 *     a request naming another kernel is refused (the user set both: which one was meant?);
 *   - a kernel name must be one this machine runs (blas_kernel_check);
 *   - "auto" is blas_kernel_auto().
 * `what` names the request in messages ("x.json: numerics.blas_core", "--blas-core X"). */
int blas_kernel_resolve(const char *request, const char *what, const blas_machine_t *m,
                        char out[BLAS_KERNEL_NAME_MAX], sgd_err_t *err);

/* This CPU's usable features, read with cpuid and xgetbv; 0 on other architectures. */
blas_cpu_t blas_cpu_detect(void);

/* This CPU's vendor, family and model, read with cpuid; zeroed on other architectures. */
blas_cpu_id_t blas_cpu_identify(void);

/* Which kernels the loaded OpenBLAS contains, as a bit set over blas_kernels[] (a
 * DYNAMIC_LIST build may leave some out; asking for one of those runs another).  Read from the
 * library's exported kernel tables (gotoblas_<NAME>); when it exports none, every kernel is
 * assumed present and the check after loading (cli/machine.c) catches a substitution. */
uint64_t blas_kernels_in_library(void);

#endif
