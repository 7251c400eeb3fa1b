/* OpenBLAS kernel choice (models/blas_kernel.h): the automatic choice for made-up machines
 * (every line of the table, by vendor, family and flags), the kernels with the same bits, the
 * check that refuses a kernel a CPU cannot run, the resolution of a request against the
 * user's OPENBLAS_CORETYPE, and the real machine: the identity and features read with cpuid
 * agree with /proc/cpuinfo, and `auto` picks what the table says for the CPU /proc/cpuinfo
 * describes.  Nothing here expects a particular CPU: the real machine's expectations are
 * derived from what its kernel reports. */
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

static blas_machine_t identified(blas_cpu_t cpu, const char *vendor, int family)
{
    blas_machine_t m = machine(cpu, "Prescott");
    snprintf(m.id.vendor, sizeof m.id.vendor, "%s", vendor);
    m.id.family = family;
    return m;
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

/* The vendor and family lines: AMD Zen 4 runs Haswell whatever AVX-512 it has, Zen 5 runs
 * SkylakeX; other families and vendors fall through to the flag lines. */
static void auto_follows_the_cpu_identity(void)
{
    blas_cpu_t zen4 = SKX | BLAS_CPU_AVX512VNNI | BLAS_CPU_AVX512BF16;
    blas_machine_t m = identified(zen4, "AuthenticAMD", 0x19);
    CHECK_STR_EQ(blas_kernel_auto(&m), "Haswell");
    CHECK_STR_EQ(blas_kernel_auto_rule(&m)->vendor, "AuthenticAMD");
    m = identified(zen4, "AuthenticAMD", 0x1a);
    CHECK_STR_EQ(blas_kernel_auto(&m), "SkylakeX");
    CHECK_STR_EQ(blas_kernel_auto_rule(&m)->vendor, "AuthenticAMD");
    m = identified(AVX2_FMA, "AuthenticAMD", 0x1a); /* AVX-512 masked by a hypervisor */
    CHECK_STR_EQ(blas_kernel_auto(&m), "Haswell");
    m = identified(AVX2_FMA, "AuthenticAMD", 0x17); /* Zen 2: the generic AVX2 line */
    CHECK_STR_EQ(blas_kernel_auto(&m), "Haswell");
    CHECK(blas_kernel_auto_rule(&m)->vendor == NULL);
    m = identified(zen4, "AuthenticAMD", 0x1b); /* not measured: the flags decide */
    CHECK_STR_EQ(blas_kernel_auto(&m), "SkylakeX");
    m = identified(zen4, "GenuineIntel", 6);
    CHECK_STR_EQ(blas_kernel_auto(&m), "SkylakeX");
    m = identified(zen4, "GenuineIntel", 0x19); /* the family alone is not AMD's */
    CHECK_STR_EQ(blas_kernel_auto(&m), "SkylakeX");
    m = identified(SSE | BLAS_CPU_AVX, "AuthenticAMD", 0x19); /* AVX2 missing (masked) */
    CHECK(blas_kernel_auto_rule(&m) == NULL);
    CHECK_STR_EQ(blas_kernel_auto(&m), "Prescott");
    m = identified(zen4, "AuthenticAMD", 0x19);
    m.in_library = without("Haswell"); /* a library without Haswell: the next line */
    CHECK_STR_EQ(blas_kernel_auto(&m), "SkylakeX");
    /* Every line names a kernel of the table, and its CPUs' flags include what it needs. */
    for (const blas_auto_rule_t *r = blas_auto_rules; r->kernel; r++) {
        const blas_kernel_t *k = blas_kernel_find(r->kernel);
        CHECK(k != NULL && !k->x86_32_only);
        CHECK(r->what != NULL && r->what[0] != '\0');
    }
}

static void same_bits_pairs_are_symmetric_and_listed(void)
{
    CHECK(blas_kernel_same_bits("Zen", "Haswell"));
    CHECK(blas_kernel_same_bits("haswell", "ZEN"));
    CHECK(blas_kernel_same_bits("SkylakeX", "skylakex"));
    CHECK(!blas_kernel_same_bits("Cooperlake", "SkylakeX"));
    CHECK(!blas_kernel_same_bits("Haswell", "SkylakeX"));
    CHECK(!blas_kernel_same_bits("Zen", "SkylakeX"));
    char list[256];
    blas_kernel_same_bits_list(list, sizeof list);
    CHECK_STR_EQ(list, "Zen = Haswell");
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

/* The value of the first "NAME\t: value" line of /proc/cpuinfo (newline dropped) in buf;
 * -1 without the file or the field. */
static int cpuinfo_field(const char *name, char *buf, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return -1;
    static char line[16384];
    int found = -1;
    size_t n = strlen(name);
    while (found < 0 && fgets(line, sizeof line, f))
        if (strncmp(line, name, n) == 0 && (line[n] == '\t' || line[n] == ' ' || line[n] == ':')) {
            const char *v = strchr(line, ':');
            snprintf(buf, size, "%s", v ? v + 1 + (v[1] == ' ') : "");
            buf[strcspn(buf, "\n")] = '\0';
            found = 0;
        }
    fclose(f);
    return found;
}

/* Is `flag` a word of the first "flags" line of /proc/cpuinfo?  -1 without the file. */
static int cpuinfo_has(const char *flag)
{
    static char flags[16384];
    if (!flags[0]) {
        flags[0] = ' ';
        if (cpuinfo_field("flags", flags + 1, sizeof flags - 2) < 0) return -1;
        strcat(flags, " ");
    }
    char word[64];
    snprintf(word, sizeof word, " %s ", flag);
    return strstr(flags, word) != NULL;
}

static const struct {
    blas_cpu_t bit;
    const char *flag;
    bool os_state; /* usable only where the OS saves its registers (AVX and later) */
} cpuinfo_map[] = {
    {BLAS_CPU_SSE3, "pni", false}, {BLAS_CPU_SSSE3, "ssse3", false},
    {BLAS_CPU_SSE4_1, "sse4_1", false}, {BLAS_CPU_SSE4_2, "sse4_2", false},
    {BLAS_CPU_SSE4A, "sse4a", false}, {BLAS_CPU_PRFCHW, "3dnowprefetch", false},
    {BLAS_CPU_AVX, "avx", true}, {BLAS_CPU_FMA4, "fma4", true}, {BLAS_CPU_FMA, "fma", true},
    {BLAS_CPU_AVX2, "avx2", true}, {BLAS_CPU_AVX512F, "avx512f", true},
    {BLAS_CPU_AVX512CD, "avx512cd", true}, {BLAS_CPU_AVX512BW, "avx512bw", true},
    {BLAS_CPU_AVX512DQ, "avx512dq", true}, {BLAS_CPU_AVX512VL, "avx512vl", true},
    {BLAS_CPU_AVX512VNNI, "avx512_vnni", true}, {BLAS_CPU_AVX512BF16, "avx512_bf16", true},
};

/* The features /proc/cpuinfo lists, as a BLAS_CPU_* set. */
static blas_cpu_t cpuinfo_features(void)
{
    blas_cpu_t set = BLAS_CPU_X86_64;
    for (size_t i = 0; i < sizeof cpuinfo_map / sizeof cpuinfo_map[0]; i++)
        if (cpuinfo_has(cpuinfo_map[i].flag) == 1) set |= cpuinfo_map[i].bit;
    return set;
}

/* Every flag the kernel lists, cpuid finds usable.  The other way round the kernel has the
 * last word only for features that need its help (register state it saves): a hypervisor's
 * kernel may leave out a flag such as sse4a that the CPU reports and runs anyway. */
static void cpuid_features_agree(blas_cpu_t cpu)
{
    for (size_t i = 0; i < sizeof cpuinfo_map / sizeof cpuinfo_map[0]; i++) {
        int listed = cpuinfo_has(cpuinfo_map[i].flag), got = (cpu & cpuinfo_map[i].bit) != 0;
        if (listed == got) continue;
        if (got && !cpuinfo_map[i].os_state) {
            printf("note: cpuid reports %s, which /proc/cpuinfo leaves out\n",
                   cpuinfo_map[i].flag);
            continue;
        }
        fprintf(stderr, "feature %s: cpuid says %d, /proc/cpuinfo %d\n", cpuinfo_map[i].flag,
                got, listed);
        CHECK_INT_EQ(got, listed);
    }
}

/* Vendor, family and model agree with /proc/cpuinfo's "vendor_id", "cpu family", "model". */
static blas_cpu_id_t cpuid_identity_agrees(void)
{
    blas_cpu_id_t id = blas_cpu_identify(), listed = {{0}, 0, 0};
    char v[64];
    if (cpuinfo_field("vendor_id", v, sizeof v) == 0)
        snprintf(listed.vendor, sizeof listed.vendor, "%.12s", v);
    if (cpuinfo_field("cpu family", v, sizeof v) == 0) listed.family = atoi(v);
    if (cpuinfo_field("model", v, sizeof v) == 0) listed.model = atoi(v);
    printf("this CPU: %s family %#x model %#x\n", id.vendor, (unsigned)id.family,
           (unsigned)id.model);
    CHECK_STR_EQ(id.vendor, listed.vendor);
    CHECK_INT_EQ(id.family, listed.family);
    CHECK_INT_EQ(id.model, listed.model);
    return listed;
}

static void the_real_machine_agrees_with_proc_cpuinfo(void)
{
    blas_cpu_t cpu = blas_cpu_detect();
#if defined(__x86_64__)
    CHECK(cpu & BLAS_CPU_X86_64);
#endif
    if (cpuinfo_has("fpu") < 0 || !(cpu & BLAS_CPU_X86_64)) {
        printf("no x86 /proc/cpuinfo flags: comparison skipped\n");
        return;
    }
    cpuid_features_agree(cpu);
    /* `auto` on this machine is what the table gives the CPU /proc/cpuinfo describes. */
    uint64_t lib = blas_kernels_in_library();
    blas_machine_t seen = {.cpu = cpu, .id = blas_cpu_identify(), .in_library = lib,
                           .native = "x"};
    blas_machine_t listed = {.cpu = cpuinfo_features(), .id = cpuid_identity_agrees(),
                             .in_library = lib, .native = "x"};
    printf("this CPU: auto picks %s\n", blas_kernel_auto(&seen));
    CHECK_STR_EQ(blas_kernel_auto(&seen), blas_kernel_auto(&listed));
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
    auto_follows_the_cpu_identity();
    same_bits_pairs_are_symmetric_and_listed();
    check_refuses_what_the_cpu_cannot_run();
    resolution_spells_names_and_lets_the_environment_win();
    names_are_found_case_insensitively_and_listed();
    the_real_machine_agrees_with_proc_cpuinfo();
    the_library_reports_its_kernels();
    return check_exit();
}
