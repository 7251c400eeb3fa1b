/* OpenBLAS kernel choice (models/blas_kernel.h): the automatic choice for made-up machines
 * (every branch of the table), the check that refuses a kernel a CPU cannot run, the
 * resolution of a request against the user's OPENBLAS_CORETYPE, and the real machine: the
 * features read with cpuid agree with the kernel's /proc/cpuinfo flags, and `auto` picks
 * what those flags call for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "models/blas_kernel.h"
#include "tests/check.h"

#define SSE (BLAS_CPU_X86_64 | BLAS_CPU_SSE3 | BLAS_CPU_SSSE3 | BLAS_CPU_SSE4_1 | BLAS_CPU_SSE4_2)
#define AVX2_FMA (SSE | BLAS_CPU_AVX | BLAS_CPU_AVX2 | BLAS_CPU_FMA)
#define SKX (AVX2_FMA | BLAS_CPU_AVX512_SKX | BLAS_CPU_AVX512CD)

static blas_machine_t machine(blas_cpu_t cpu, const char *native)
{
    return (blas_machine_t){.cpu = cpu, .in_library = ~0ull, .native = native};
}

static uint64_t without(const char *kernel)
{
    return ~(1ull << (blas_kernel_find(kernel) - blas_kernels));
}

static void auto_follows_the_feature_table(void)
{
    blas_machine_t m = machine(SKX, "Cooperlake");
    CHECK(strcmp(blas_kernel_auto(&m), "SkylakeX") == 0);
    /* AVX-512 F alone (Knights Landing has no BW, VL, DQ): the AVX2 kernel. */
    m = machine(AVX2_FMA | BLAS_CPU_AVX512F | BLAS_CPU_AVX512CD, "Haswell");
    CHECK(strcmp(blas_kernel_auto(&m), "Haswell") == 0);
    m = machine(SKX & ~(blas_cpu_t)BLAS_CPU_AVX512DQ, "Prescott");
    CHECK(strcmp(blas_kernel_auto(&m), "Haswell") == 0);
    m = machine(AVX2_FMA, "Zen");
    CHECK(strcmp(blas_kernel_auto(&m), "Haswell") == 0);
    /* AVX2 without FMA, or AVX only: OpenBLAS's own choice. */
    m = machine(SSE | BLAS_CPU_AVX | BLAS_CPU_AVX2, "Sandybridge");
    CHECK(strcmp(blas_kernel_auto(&m), "Sandybridge") == 0);
    m = machine(SSE, "Nehalem");
    CHECK(strcmp(blas_kernel_auto(&m), "Nehalem") == 0);
    m = machine(0, "ARMV8");
    CHECK(strcmp(blas_kernel_auto(&m), "ARMV8") == 0);
    /* Only what this OpenBLAS contains. */
    m = machine(SKX, "Prescott");
    m.in_library = without("SkylakeX");
    CHECK(strcmp(blas_kernel_auto(&m), "Haswell") == 0);
    m.in_library &= without("Haswell");
    CHECK(strcmp(blas_kernel_auto(&m), "Prescott") == 0);
}

static const char *check_msg(const char *kernel, const blas_machine_t *m)
{
    static sgd_err_t err;
    memset(&err, 0, sizeof err);
    return blas_kernel_check(blas_kernel_find(kernel), m, "--blas-core X", &err) ? err.msg : "";
}

static void check_refuses_what_the_cpu_cannot_run(void)
{
    blas_machine_t m = machine(AVX2_FMA, "Haswell");
    CHECK_STR_CONTAINS(check_msg("SkylakeX", &m),
                       "--blas-core X: the SkylakeX kernel needs sse3 ssse3 sse4_1 sse4_2 avx "
                       "fma avx2 avx512f avx512cd avx512bw avx512dq avx512vl, which this CPU "
                       "lacks (missing: avx512f avx512cd avx512bw avx512dq avx512vl)");
    CHECK_STR_CONTAINS(check_msg("Cooperlake", &(blas_machine_t){.cpu = SKX, .in_library = ~0ull}),
                       "(missing: avx512_vnni avx512_bf16)");
    m = machine(SSE | BLAS_CPU_AVX | BLAS_CPU_AVX2, "Sandybridge");
    CHECK_STR_CONTAINS(check_msg("Haswell", &m), "(missing: fma)");
    CHECK_STR_CONTAINS(check_msg("Zen", &m), "(missing: fma)");
    CHECK_STR_CONTAINS(check_msg("Bulldozer", &m), "(missing: sse4a 3dnowprefetch fma4)");
    CHECK_STR_CONTAINS(check_msg("Katmai", &m), "Katmai is a 32-bit x86 kernel");
    m = machine(0, "ARMV8");
    CHECK_STR_CONTAINS(check_msg("Prescott", &m), "x86-64 code, and this is not an x86-64 CPU");
    m = machine(SKX, "SkylakeX");
    m.in_library = without("SkylakeX");
    CHECK_STR_CONTAINS(check_msg("SkylakeX", &m), "this OpenBLAS was built without the SkylakeX");
    m = machine(SKX, "SkylakeX");
    CHECK(check_msg("SkylakeX", &m)[0] == '\0');
    CHECK(check_msg("Prescott", &m)[0] == '\0');
    CHECK(check_msg("Haswell", &m)[0] == '\0');
    CHECK(check_msg("Zen", &m)[0] == '\0');
}

/* Resolves request on m; returns the kernel or "ERR <message>". */
static const char *resolve(const char *request, const blas_machine_t *m)
{
    static char out[BLAS_KERNEL_NAME_MAX + SGD_ERR_MAX];
    char k[BLAS_KERNEL_NAME_MAX];
    sgd_err_t err = {{0}};
    if (blas_kernel_resolve(request, "x.json: numerics.blas_core", m, k, &err))
        snprintf(out, sizeof out, "ERR %s", err.msg);
    else
        snprintf(out, sizeof out, "%s", k);
    return out;
}

static void resolution_spells_names_and_lets_the_environment_win(void)
{
    blas_machine_t m = machine(SKX, "Cooperlake");
    CHECK(strcmp(resolve("auto", &m), "SkylakeX") == 0);
    CHECK(strcmp(resolve("AUTO", &m), "SkylakeX") == 0);
    CHECK(strcmp(resolve("haswell", &m), "Haswell") == 0);
    CHECK(strcmp(resolve("opteron_sse3", &(blas_machine_t){.cpu = SSE | BLAS_CPU_PRFCHW,
                                                           .in_library = ~0ull}),
                 "Opteron_SSE3") == 0);
    CHECK_STR_CONTAINS(resolve("skylake", &m), "ERR x.json: numerics.blas_core: unknown "
                                               "OpenBLAS kernel \"skylake\" (known: auto, "
                                               "Prescott, Atom,");
    CHECK_STR_CONTAINS(resolve("Bulldozer", &m), "ERR x.json: numerics.blas_core: the "
                                                 "Bulldozer kernel needs");
    m.env_coretype = "haswell";
    CHECK(strcmp(resolve("auto", &m), "Haswell") == 0);
    CHECK(strcmp(resolve("HASWELL", &m), "Haswell") == 0);
    CHECK_STR_CONTAINS(resolve("SkylakeX", &m),
                       "ERR x.json: numerics.blas_core: asks for the SkylakeX kernel but "
                       "OPENBLAS_CORETYPE=haswell in the environment asks for Haswell");
    m.env_coretype = "Haswel";
    CHECK_STR_CONTAINS(resolve("auto", &m), "ERR OPENBLAS_CORETYPE=\"Haswel\" in the "
                                            "environment: OpenBLAS knows no such kernel");
    m = machine(AVX2_FMA, "Haswell");
    m.env_coretype = "SkylakeX";
    CHECK_STR_CONTAINS(resolve("auto", &m), "ERR OPENBLAS_CORETYPE=\"SkylakeX\" in the "
                                            "environment: the SkylakeX kernel needs");
    m = machine(SSE, "");
    CHECK_STR_CONTAINS(resolve("auto", &m), "cannot tell which kernel OpenBLAS would choose");
}

static void names_are_found_case_insensitively_and_listed(void)
{
    CHECK(blas_kernel_find("SKYLAKEX") == blas_kernel_find("SkylakeX"));
    CHECK(blas_kernel_find("skylakex") != NULL);
    CHECK(blas_kernel_find("Skylake") == NULL);
    CHECK(blas_kernel_find("") == NULL);
    char list[512];
    blas_kernel_list(list, sizeof list);
    CHECK_STR_CONTAINS(list, "Prescott, Atom, Core2,");
    CHECK_STR_CONTAINS(list, "Zen, SkylakeX, Cooperlake");
    CHECK(strstr(list, "Katmai") == NULL);
    int n = 0;
    for (const blas_kernel_t *k = blas_kernels; k->name; k++) n++;
    CHECK_INT_EQ(n, 25); /* OpenBLAS 0.3.21's corename[] without "Unknown" */
}

/* Is `flag` a word of the first "flags" line of /proc/cpuinfo?  -1 without the file. */
static int cpuinfo_has(const char *flag)
{
    static char line[16384];
    if (!line[0]) {
        FILE *f = fopen("/proc/cpuinfo", "r");
        if (!f) return -1;
        while (fgets(line, sizeof line, f) && strncmp(line, "flags", 5) != 0) continue;
        fclose(f);
        if (strncmp(line, "flags", 5) != 0) return -1;
        line[strcspn(line, "\n")] = ' ';
    }
    char word[64];
    snprintf(word, sizeof word, " %s ", flag);
    return strstr(line, word) != NULL;
}

static void cpuid_agrees_with_proc_cpuinfo(void)
{
    static const struct {
        blas_cpu_t bit;
        const char *flag;
    } map[] = {
        {BLAS_CPU_SSE3, "pni"}, {BLAS_CPU_SSSE3, "ssse3"}, {BLAS_CPU_SSE4_1, "sse4_1"},
        {BLAS_CPU_SSE4_2, "sse4_2"}, {BLAS_CPU_SSE4A, "sse4a"},
        {BLAS_CPU_PRFCHW, "3dnowprefetch"}, {BLAS_CPU_AVX, "avx"}, {BLAS_CPU_FMA4, "fma4"},
        {BLAS_CPU_FMA, "fma"}, {BLAS_CPU_AVX2, "avx2"}, {BLAS_CPU_AVX512F, "avx512f"},
        {BLAS_CPU_AVX512CD, "avx512cd"}, {BLAS_CPU_AVX512BW, "avx512bw"},
        {BLAS_CPU_AVX512DQ, "avx512dq"}, {BLAS_CPU_AVX512VL, "avx512vl"},
        {BLAS_CPU_AVX512VNNI, "avx512_vnni"}, {BLAS_CPU_AVX512BF16, "avx512_bf16"},
    };
    blas_cpu_t cpu = blas_cpu_detect();
#if defined(__x86_64__)
    CHECK(cpu & BLAS_CPU_X86_64);
#endif
    if (cpuinfo_has("fpu") < 0 || !(cpu & BLAS_CPU_X86_64)) {
        printf("no x86 /proc/cpuinfo flags: comparison skipped\n");
        return;
    }
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        int want = cpuinfo_has(map[i].flag), got = (cpu & map[i].bit) != 0;
        if (want != got)
            fprintf(stderr, "feature %s: cpuid says %d, /proc/cpuinfo %d\n", map[i].flag, got,
                    want);
        CHECK_INT_EQ(got, want);
    }
    /* The real machine and library: what `auto` picks on this CPU follows its flags. */
    blas_machine_t m = {.cpu = cpu, .in_library = blas_kernels_in_library(), .native = "x"};
    bool skx = cpuinfo_has("avx512f") && cpuinfo_has("avx512bw") && cpuinfo_has("avx512vl") &&
               cpuinfo_has("avx512dq"), hsw = cpuinfo_has("avx2") && cpuinfo_has("fma");
    const char *want = skx ? "SkylakeX" : hsw ? "Haswell" : "x";
    printf("this CPU: auto picks %s\n", blas_kernel_auto(&m));
    CHECK(strcmp(blas_kernel_auto(&m), want) == 0);
}

/* OpenBLAS 0.3.21's DYNAMIC_ARCH builds (Debian's) contain every kernel of the table; any
 * DYNAMIC_ARCH build contains Prescott, the generic one. */
static void the_library_reports_its_kernels(void)
{
    uint64_t lib = blas_kernels_in_library();
    const char *config = openblas_get_config();
    printf("OpenBLAS: %s; kernel set %#llx\n", config, (unsigned long long)lib);
    if (!strstr(config, "DYNAMIC_ARCH")) return;
    CHECK((lib >> (blas_kernel_find("Prescott") - blas_kernels)) & 1u);
    if (strncmp(config, "OpenBLAS 0.3.21 ", 16) != 0) return;
    for (const blas_kernel_t *k = blas_kernels; k->name; k++) {
        if (!((lib >> (k - blas_kernels)) & 1u)) fprintf(stderr, "missing: %s\n", k->name);
        CHECK((lib >> (k - blas_kernels)) & 1u);
    }
}

int main(void)
{
    auto_follows_the_feature_table();
    check_refuses_what_the_cpu_cannot_run();
    resolution_spells_names_and_lets_the_environment_win();
    names_are_found_case_insensitively_and_listed();
    cpuid_agrees_with_proc_cpuinfo();
    the_library_reports_its_kernels();
    return check_exit();
}
