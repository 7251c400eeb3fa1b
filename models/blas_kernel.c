/* OpenBLAS kernels: the table of OpenBLAS 0.3.21's x86_64 DYNAMIC_ARCH kernels with the CPU
 * features each needs, the automatic choice and the kernels that compute the same bits,
 * resolution of a request, and reading this machine (cpuid, the library's kernel tables).
 * See blas_kernel.h. */
#include "models/blas_kernel.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* Feature sets of the kernel families, each adding to the one before.  They follow the
 * instruction sets OpenBLAS builds each kernel for (its getarch HAVE_* flags and -march
 * options), rounded up where a kernel might use more: refusing a kernel that would have run
 * costs a message, running one that would not costs a SIGILL. */
#define NEEDS_SSE3 (BLAS_CPU_X86_64 | BLAS_CPU_SSE3)
#define NEEDS_SSSE3 (NEEDS_SSE3 | BLAS_CPU_SSSE3)
#define NEEDS_SSE41 (NEEDS_SSSE3 | BLAS_CPU_SSE4_1)
#define NEEDS_SSE42 (NEEDS_SSE41 | BLAS_CPU_SSE4_2)
#define NEEDS_AMD (BLAS_CPU_X86_64 | BLAS_CPU_PRFCHW)
#define NEEDS_AVX (NEEDS_SSE42 | BLAS_CPU_AVX)
#define NEEDS_FMA4 (NEEDS_AVX | NEEDS_AMD | BLAS_CPU_SSE4A | BLAS_CPU_FMA4)
#define NEEDS_AVX2 (NEEDS_AVX | BLAS_CPU_FMA | BLAS_CPU_AVX2)
#define NEEDS_SKX (NEEDS_AVX2 | BLAS_CPU_AVX512_SKX | BLAS_CPU_AVX512CD)

/* OpenBLAS's corename[] order (driver/others/dynamic.c, 0.3.21). */
const blas_kernel_t blas_kernels[] = {
    {"Katmai", 0, true},
    {"Coppermine", 0, true},
    {"Northwood", 0, true},
    {"Prescott", NEEDS_SSE3, false},
    {"Banias", 0, true},
    {"Atom", NEEDS_SSSE3, false},
    {"Core2", NEEDS_SSSE3, false},
    {"Penryn", NEEDS_SSE41, false},
    {"Dunnington", NEEDS_SSE41, false},
    {"Nehalem", NEEDS_SSE42, false},
    {"Athlon", 0, true},
    {"Opteron", NEEDS_AMD, false},
    {"Opteron_SSE3", NEEDS_AMD | NEEDS_SSE3, false},
    {"Barcelona", NEEDS_AMD | NEEDS_SSE3 | BLAS_CPU_SSE4A, false},
    {"Nano", NEEDS_SSSE3, false},
    {"Sandybridge", NEEDS_AVX, false},
    {"Bobcat", NEEDS_AMD | NEEDS_SSSE3 | BLAS_CPU_SSE4A, false},
    {"Bulldozer", NEEDS_FMA4, false},
    {"Piledriver", NEEDS_FMA4 | BLAS_CPU_FMA, false},
    {"Haswell", NEEDS_AVX2, false},
    {"Steamroller", NEEDS_FMA4 | BLAS_CPU_FMA, false},
    {"Excavator", NEEDS_FMA4 | NEEDS_AVX2, false},
    {"Zen", NEEDS_AVX2, false},
    {"SkylakeX", NEEDS_SKX, false},
    {"Cooperlake", NEEDS_SKX | BLAS_CPU_AVX512VNNI | BLAS_CPU_AVX512BF16, false},
    {NULL, 0, false},
};

/* Feature names as Linux spells them in /proc/cpuinfo, in bit order. */
static const char *const feature_names[] = {
    "x86-64", "sse3", "ssse3", "sse4_1", "sse4_2", "sse4a", "3dnowprefetch", "avx", "fma4",
    "fma", "avx2", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512_vnni",
    "avx512_bf16", NULL,
};

const blas_kernel_t *blas_kernel_find(const char *name)
{
    for (const blas_kernel_t *k = blas_kernels; k->name; k++)
        if (strcasecmp(k->name, name) == 0) return k;
    return NULL;
}

void blas_kernel_list(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (const blas_kernel_t *k = blas_kernels; k->name && len < size; k++)
        if (!k->x86_32_only)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", k->name);
}

void blas_cpu_names(blas_cpu_t set, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; feature_names[i] && len < size; i++)
        if (set & (1u << i))
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "",
                                    feature_names[i]);
}

static int kernel_index(const blas_kernel_t *k) { return (int)(k - blas_kernels); }

static bool in_library(const blas_kernel_t *k, const blas_machine_t *m)
{
    return (m->in_library >> kernel_index(k)) & 1u;
}

/* The automatic choice, most specific line first.  The gradients' speed on each candidate
 * kernel (bench/blas_kernels.sh; docs/performance.md has the tables):
 *   - AMD Zen 4 (family 0x19): Haswell, whose AVX2 code ran the MLP gradient at 0.86-0.89
 *     of the FMA peak against SkylakeX's 0.79-0.86 (bench_mlp_grad, 2026-12); Zen 4 executes
 *     512-bit instructions as two 256-bit halves.  Zen 3 and older have no AVX-512 and get
 *     Haswell from the generic line anyway.
 *   - AMD Zen 5 (family 0x1a): SkylakeX, 1.6x Haswell on the MLP gradient and 1.2-1.4x on
 *     LeNet-5's (measured 2026-12-02); its cores execute 512-bit FMAs at full width.  The
 *     line says so explicitly, though the generic AVX-512 line would give the same.
 *   - Other AVX-512 CPUs (Intel Skylake-SP and later): SkylakeX, sgdsim's choice since the
 *     Intel Xeon build machine's figures of 2026-12-01 (docs/performance.md).
 *   - Any other CPU with AVX2 and FMA: Haswell. */
const blas_auto_rule_t blas_auto_rules[] = {
    {"AuthenticAMD", 0x19, 0x19, NEEDS_AVX2, "Haswell",
     "AMD Zen 4 (family 0x19; figures of 2026-12)"},
    {"AuthenticAMD", 0x1a, 0x1a, NEEDS_SKX, "SkylakeX",
     "AMD Zen 5 (family 0x1a; measured 2026-12-02)"},
    {NULL, 0, 0, NEEDS_SKX, "SkylakeX",
     "CPUs with AVX-512 F, BW, VL, DQ, CD (Intel Xeon figures of 2026-12-01)"},
    {NULL, 0, 0, NEEDS_AVX2, "Haswell", "CPUs with AVX2 and FMA"},
    {NULL, 0, 0, 0, NULL, NULL},
};

static bool rule_matches(const blas_auto_rule_t *r, const blas_machine_t *m)
{
    if (r->vendor && (strcmp(r->vendor, m->id.vendor) != 0 || m->id.family < r->family_min ||
                      m->id.family > r->family_max))
        return false;
    const blas_kernel_t *k = blas_kernel_find(r->kernel);
    return (m->cpu & r->needs) == r->needs && (m->cpu & k->needs) == k->needs &&
           in_library(k, m);
}

const blas_auto_rule_t *blas_kernel_auto_rule(const blas_machine_t *m)
{
    for (const blas_auto_rule_t *r = blas_auto_rules; r->kernel; r++)
        if (rule_matches(r, m)) return r;
    return NULL;
}

const char *blas_kernel_auto(const blas_machine_t *m)
{
    const blas_auto_rule_t *r = blas_kernel_auto_rule(m);
    return r ? blas_kernel_find(r->kernel)->name : m->native;
}

/* Kernels that compute the same bits, found equal by digest on a CPU that runs both: the
 * golden scenarios, an MLP 784-200-100-10 at batch 128 under FASGD, and LeNet-5 on
 * Fashion-MNIST, on an AMD Zen 5 on 2026-12-02.  Cooperlake gives other bits than SkylakeX
 * on the last two (checked the same way), so it is not listed. */
static const char *const same_bits[][2] = {
    {"Zen", "Haswell"},
};

bool blas_kernel_same_bits(const char *a, const char *b)
{
    if (strcasecmp(a, b) == 0) return true;
    for (size_t i = 0; i < sizeof same_bits / sizeof same_bits[0]; i++)
        if ((strcasecmp(a, same_bits[i][0]) == 0 && strcasecmp(b, same_bits[i][1]) == 0) ||
            (strcasecmp(a, same_bits[i][1]) == 0 && strcasecmp(b, same_bits[i][0]) == 0))
            return true;
    return false;
}

void blas_kernel_same_bits_list(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof same_bits / sizeof same_bits[0] && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s = %s", len ? ", " : "",
                                same_bits[i][0], same_bits[i][1]);
}

int blas_kernel_check(const blas_kernel_t *k, const blas_machine_t *m, const char *what,
                      sgd_err_t *err)
{
    if (k->x86_32_only)
        return sgd_errf(err, "%s: %s is a 32-bit x86 kernel; x86_64 builds of OpenBLAS run "
                             "Prescott when asked for it", what, k->name);
    blas_cpu_t missing = k->needs & ~m->cpu;
    if (missing & BLAS_CPU_X86_64)
        return sgd_errf(err, "%s: the %s kernel is x86-64 code, and this is not an x86-64 CPU",
                        what, k->name);
    if (missing) {
        char needs[256], lacks[256];
        blas_cpu_names(k->needs & ~(blas_cpu_t)BLAS_CPU_X86_64, needs, sizeof needs);
        blas_cpu_names(missing, lacks, sizeof lacks);
        return sgd_errf(err, "%s: the %s kernel needs %s, which this CPU lacks (missing: %s)",
                        what, k->name, needs, lacks);
    }
    if (!in_library(k, m))
        return sgd_errf(err, "%s: this OpenBLAS was built without the %s kernel", what,
                        k->name);
    return 0;
}

/* The user's OPENBLAS_CORETYPE, which must name a kernel this machine runs. */
static int env_kernel(const blas_machine_t *m, const blas_kernel_t **k, sgd_err_t *err)
{
    char what[BLAS_KERNEL_NAME_MAX + 64], known[512];
    snprintf(what, sizeof what, "OPENBLAS_CORETYPE=\"%.*s\" in the environment",
             BLAS_KERNEL_NAME_MAX, m->env_coretype);
    *k = blas_kernel_find(m->env_coretype);
    if (!*k) {
        blas_kernel_list(known, sizeof known);
        return sgd_errf(err, "%s: OpenBLAS knows no such kernel (known: %s); OpenBLAS would "
                             "quietly run another one", what, known);
    }
    return blas_kernel_check(*k, m, what, err);
}

int blas_kernel_resolve(const char *request, const char *what, const blas_machine_t *m,
                        char out[BLAS_KERNEL_NAME_MAX], sgd_err_t *err)
{
    bool is_auto = strcasecmp(request, "auto") == 0;
    const blas_kernel_t *k = is_auto ? NULL : blas_kernel_find(request);
    if (!is_auto && !k) {
        char known[512];
        blas_kernel_list(known, sizeof known);
        return sgd_errf(err, "%s: unknown OpenBLAS kernel \"%s\" (known: auto, %s)", what,
                        request, known);
    }
    if (m->env_coretype) {
        const blas_kernel_t *e;
        if (env_kernel(m, &e, err)) return -1;
        if (k && k != e)
            return sgd_errf(err, "%s: asks for the %s kernel but OPENBLAS_CORETYPE=%s in the "
                                 "environment asks for %s; unset OPENBLAS_CORETYPE or ask for "
                                 "the same kernel (or \"auto\")", what, k->name,
                            m->env_coretype, e->name);
        k = e;
    } else if (k) {
        if (blas_kernel_check(k, m, what, err)) return -1;
    } else {
        const char *a = blas_kernel_auto(m);
        if (!a || !a[0])
            return sgd_errf(err, "%s: \"auto\": cannot tell which kernel OpenBLAS would "
                                 "choose by itself here", what);
        snprintf(out, BLAS_KERNEL_NAME_MAX, "%s", a);
        return 0;
    }
    snprintf(out, BLAS_KERNEL_NAME_MAX, "%s", k->name);
    return 0;
}

/* ---- the real machine ----------------------------------------------------------------- */

#if defined(__x86_64__)
/* XCR0: which register states the operating system saves on a context switch. */
static uint64_t xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static blas_cpu_t bit_if(uint32_t reg, int bit, blas_cpu_t feature)
{
    return (reg >> bit) & 1u ? feature : 0;
}

/* Features of leaf 7 (AVX2, AVX-512), usable only with the matching OS support. */
static blas_cpu_t leaf7_features(bool os_avx, bool os_avx512)
{
    uint32_t a, b, c, d;
    blas_cpu_t f = 0;
    if (__get_cpuid_max(0, NULL) < 7 || !__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    if (os_avx) f |= bit_if(b, 5, BLAS_CPU_AVX2);
    if (!os_avx512) return f;
    f |= bit_if(b, 16, BLAS_CPU_AVX512F) | bit_if(b, 17, BLAS_CPU_AVX512DQ) |
         bit_if(b, 28, BLAS_CPU_AVX512CD) | bit_if(b, 30, BLAS_CPU_AVX512BW) |
         bit_if(b, 31, BLAS_CPU_AVX512VL) | bit_if(c, 11, BLAS_CPU_AVX512VNNI);
    if (a >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d))
        f |= bit_if(a, 5, BLAS_CPU_AVX512BF16);
    return f;
}

blas_cpu_t blas_cpu_detect(void)
{
    uint32_t a, b, c, d;
    blas_cpu_t f = BLAS_CPU_X86_64;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
    f |= bit_if(c, 0, BLAS_CPU_SSE3) | bit_if(c, 9, BLAS_CPU_SSSE3) |
         bit_if(c, 19, BLAS_CPU_SSE4_1) | bit_if(c, 20, BLAS_CPU_SSE4_2);
    /* AVX needs the OS to save XMM and YMM state (XCR0 bits 1, 2), AVX-512 also the opmask
     * and upper ZMM state (bits 5, 6, 7); OSXSAVE (bit 27) says xgetbv may be used. */
    bool osxsave = (c >> 27) & 1u;
    uint64_t x = osxsave ? xcr0() : 0;
    bool os_avx = osxsave && (c >> 28 & 1u) && (x & 0x6) == 0x6;
    bool os_avx512 = os_avx && (x & 0xe0) == 0xe0;
    if (os_avx) f |= BLAS_CPU_AVX | bit_if(c, 12, BLAS_CPU_FMA);
    f |= leaf7_features(os_avx, os_avx512);
    if (__get_cpuid(0x80000001, &a, &b, &c, &d)) {
        f |= bit_if(c, 6, BLAS_CPU_SSE4A) | bit_if(c, 8, BLAS_CPU_PRFCHW);
        if (os_avx) f |= bit_if(c, 16, BLAS_CPU_FMA4);
    }
    return f;
}

blas_cpu_id_t blas_cpu_identify(void)
{
    blas_cpu_id_t id = {{0}, 0, 0};
    uint32_t a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return id;
    memcpy(id.vendor, &b, 4); /* the vendor string is EBX, EDX, ECX */
    memcpy(id.vendor + 4, &d, 4);
    memcpy(id.vendor + 8, &c, 4);
    id.vendor[12] = '\0';
    if (!__get_cpuid(1, &a, &b, &c, &d)) return id;
    /* Intel's and AMD's rule: the extended fields count only for base family 15 (and, for
     * the model, family 6 too). */
    int base_family = (int)((a >> 8) & 0xf), base_model = (int)((a >> 4) & 0xf);
    id.family = base_family == 15 ? base_family + (int)((a >> 20) & 0xff) : base_family;
    id.model = base_family == 15 || base_family == 6 ? base_model | (int)((a >> 12) & 0xf0)
                                                     : base_model;
    return id;
}
#else
blas_cpu_t blas_cpu_detect(void) { return 0; }
blas_cpu_id_t blas_cpu_identify(void) { return (blas_cpu_id_t){{0}, 0, 0}; }
#endif

uint64_t blas_kernels_in_library(void)
{
    /* The program's global scope: the executable and the libraries it loaded, OpenBLAS
     * among them. */
    void *self = dlopen(NULL, RTLD_LAZY);
    uint64_t mask = 0;
    bool any = false;
    if (!self) return ~0ull;
    for (const blas_kernel_t *k = blas_kernels; k->name; k++) {
        char sym[BLAS_KERNEL_NAME_MAX + 16] = "gotoblas_";
        size_t n = strlen(sym);
        for (const char *p = k->name; *p && n + 1 < sizeof sym; p++)
            sym[n++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        sym[n] = '\0';
        if (dlsym(self, sym)) {
            mask |= 1ull << kernel_index(k);
            any = true;
        }
    }
    dlclose(self);
    return any ? mask : ~0ull;
}
