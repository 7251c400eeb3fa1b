/* The scenario's numerics section: defaults, spelling, bad input with the message a user
 * sees, the resolution against made-up machines (kernel, threads, flags, errors naming who
 * asked), and what the configuration hash covers: the resolved kernel, not the threads. */
#include <stdlib.h>

#include "config/scenario.h"
#include "tests/check.h"

static const scn_algorithm_t csgd = {.name = "csgd"};
static const scn_algorithm_t *const algs[] = {&csgd, NULL};

#define SSE (BLAS_CPU_X86_64 | BLAS_CPU_SSE3 | BLAS_CPU_SSSE3 | BLAS_CPU_SSE4_1 | BLAS_CPU_SSE4_2)
#define AVX2_FMA (SSE | BLAS_CPU_AVX | BLAS_CPU_AVX2 | BLAS_CPU_FMA)
#define SKX (AVX2_FMA | BLAS_CPU_AVX512_SKX | BLAS_CPU_AVX512CD)

static scn_machine_t machine(blas_cpu_t cpu, int64_t cpus, int64_t jobs)
{
    return (scn_machine_t){.blas = {.cpu = cpu, .in_library = ~0ull, .native = "Prescott"},
                           .cpus = cpus, .jobs = jobs};
}

static int load(const char *text, const scn_override_t *sets, int nsets, scn_t *s,
                sgd_err_t *err)
{
    memset(err, 0, sizeof *err);
    return scn_load_text(text, "t.json", ".", sets, nsets, NULL, algs, s, err);
}

/* Loads and resolves; returns "" or the error message. */
static const char *load_err(const char *text, const scn_override_t *sets, int nsets,
                            const scn_numerics_flags_t *flags, const scn_machine_t *m)
{
    static sgd_err_t err;
    scn_t s;
    if (load(text, sets, nsets, &s, &err)) return err.msg;
    int rc = m ? scn_resolve_numerics(&s, flags, m, &err) : 0;
    scn_free(&s);
    return rc ? err.msg : "";
}

static void defaults_and_spelling(void)
{
    scn_t s;
    sgd_err_t err;
    CHECK(load("{\"schema_version\": 1}", NULL, 0, &s, &err) == 0);
    CHECK(strcmp(s.numerics.blas_core, "auto") == 0);
    CHECK_INT_EQ(s.numerics.threads, 0);
    CHECK_INT_EQ(s.numerics.threads_resolved, 0);
    CHECK_STR_CONTAINS(s.resolved_json, "\"numerics\":{\"blas_core\":\"auto\",\"threads\":0}}");
    CHECK_STR_CONTAINS(s.numerics.blas_core_from, "t.json: numerics.blas_core");
    scn_free(&s);
    CHECK(load("{\"schema_version\": 1, \"numerics\": {\"blas_core\": \"haswell\", "
               "\"threads\": 8}}", NULL, 0, &s, &err) == 0);
    CHECK(strcmp(s.numerics.blas_core, "Haswell") == 0);
    CHECK_INT_EQ(s.numerics.threads, 8);
    CHECK_STR_CONTAINS(s.resolved_json, "\"numerics\":{\"blas_core\":\"Haswell\",\"threads\":8}");
    scn_free(&s);
    scn_override_t set[] = {{"numerics.blas_core=AUTO"}};
    CHECK(load("{\"schema_version\": 1}", set, 1, &s, &err) == 0);
    CHECK(strcmp(s.numerics.blas_core, "auto") == 0);
    CHECK_STR_CONTAINS(s.numerics.blas_core_from,
                       "--set numerics.blas_core=AUTO: numerics.blas_core");
    scn_free(&s);
}

static void bad_input_names_the_path(void)
{
    const char *h = "{\"schema_version\": 1, \"numerics\": ";
    char text[256];
#define WITH(body) (snprintf(text, sizeof text, "%s%s}", h, body), text)
    CHECK_STR_CONTAINS(load_err(WITH("{\"thread\": 2}"), NULL, 0, NULL, NULL),
                       "t.json: numerics.thread: unknown key");
    CHECK_STR_CONTAINS(load_err(WITH("{\"threads\": -1}"), NULL, 0, NULL, NULL),
                       "t.json: numerics.threads: expected integer >= 0, got -1");
    CHECK_STR_CONTAINS(load_err(WITH("{\"threads\": 257}"), NULL, 0, NULL, NULL),
                       "t.json: numerics.threads: expected integer <= 256, got 257");
    CHECK_STR_CONTAINS(load_err(WITH("{\"threads\": 1.5}"), NULL, 0, NULL, NULL),
                       "t.json: numerics.threads: expected integer");
    CHECK_STR_CONTAINS(load_err(WITH("{\"blas_core\": 3}"), NULL, 0, NULL, NULL),
                       "t.json: numerics.blas_core: expected a string, got 3");
    CHECK_STR_CONTAINS(load_err(WITH("{\"blas_core\": \"Skylake\"}"), NULL, 0, NULL, NULL),
                       "t.json: numerics.blas_core: unknown OpenBLAS kernel \"Skylake\" "
                       "(known: auto, Prescott,");
    CHECK_STR_CONTAINS(load_err(WITH("{\"blas_core\": \"Katmai\"}"), NULL, 0, NULL, NULL),
                       "t.json: numerics.blas_core: Katmai is a 32-bit x86 kernel");
    CHECK_STR_CONTAINS(load_err(WITH("4"), NULL, 0, NULL, NULL),
                       "t.json: numerics: expected an object");
#undef WITH
    scn_override_t set[] = {{"numerics.threads=1000"}};
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1}", set, 1, NULL, NULL),
                       "--set numerics.threads=1000: numerics.threads: expected integer <= 256");
}

static void threads_auto_is_cpus_over_jobs(void)
{
    CHECK_INT_EQ(scn_threads_resolve(0, 8, 3), 2);
    CHECK_INT_EQ(scn_threads_resolve(0, 2, 4), 1);
    CHECK_INT_EQ(scn_threads_resolve(0, 1000, 1), SCN_THREADS_MAX);
    CHECK_INT_EQ(scn_threads_resolve(5, 1, 4), 5);
    scn_t s;
    sgd_err_t err;
    scn_machine_t m = machine(SKX, 16, 4);
    CHECK(load("{\"schema_version\": 1}", NULL, 0, &s, &err) == 0);
    CHECK(scn_resolve_numerics(&s, NULL, &m, &err) == 0);
    CHECK_INT_EQ(s.numerics.threads, 0);
    CHECK_INT_EQ(s.numerics.threads_resolved, 4);
    CHECK(s.numerics.resolved);
    CHECK(strcmp(s.numerics.blas_core, "SkylakeX") == 0);
    CHECK_STR_CONTAINS(s.resolved_json, "\"numerics\":{\"blas_core\":\"SkylakeX\",\"threads\":4}}");
    scn_free(&s);
}

/* The hash of `text` resolved on m with flags. */
static void hash_of(const char *text, const scn_numerics_flags_t *flags, const scn_machine_t *m,
                    char hash[65], char **json)
{
    scn_t s;
    sgd_err_t err;
    CHECK(load(text, NULL, 0, &s, &err) == 0);
    CHECK(scn_resolve_numerics(&s, flags, m, &err) == 0);
    memcpy(hash, s.config_hash, 65);
    if (json) *json = strdup(s.resolved_json);
    scn_free(&s);
}

static void hash_covers_the_kernel_not_the_threads(void)
{
    scn_machine_t skx = machine(SKX, 2, 1), big = machine(SKX, 64, 1);
    char a[65], b[65], c[65], d[65];
    char *ja, *jb;
    const char *plain = "{\"schema_version\": 1}";
    hash_of(plain, NULL, &skx, a, &ja);
    hash_of(plain, NULL, &big, b, &jb);
    CHECK(strcmp(a, b) == 0);        /* 2 or 64 threads: one configuration */
    CHECK(strcmp(ja, jb) != 0);      /* ... but the stored text says which */
    CHECK_STR_CONTAINS(jb, "\"threads\":64");
    scn_numerics_flags_t haswell = {"Haswell", "--blas-core Haswell", -1};
    hash_of(plain, &haswell, &skx, c, NULL);
    CHECK(strcmp(a, c) != 0);        /* another kernel: another configuration */
    /* "auto" on an AVX-512 machine is the same configuration as pinning SkylakeX. */
    hash_of("{\"schema_version\": 1, \"numerics\": {\"blas_core\": \"SkylakeX\", \"threads\": 3}}",
            NULL, &skx, d, NULL);
    CHECK(strcmp(a, d) == 0);
    /* Apart from numerics, the resolution leaves the text as scn_load() wrote it. */
    scn_t s;
    sgd_err_t err;
    CHECK(load(plain, NULL, 0, &s, &err) == 0);
    size_t head = (size_t)(strstr(s.resolved_json, "\"numerics\"") - s.resolved_json);
    CHECK(strncmp(s.resolved_json, ja, head) == 0);
    scn_free(&s);
    free(ja);
    free(jb);
}

static void resolution_errors_name_who_asked(void)
{
    scn_machine_t avx2 = machine(AVX2_FMA, 4, 1);
    const char *pinned = "{\"schema_version\": 1, \"numerics\": {\"blas_core\": \"SkylakeX\"}}";
    CHECK_STR_CONTAINS(load_err(pinned, NULL, 0, NULL, &avx2),
                       "t.json: numerics.blas_core: the SkylakeX kernel needs");
    CHECK_STR_CONTAINS(load_err(pinned, NULL, 0, NULL, &avx2),
                       "which this CPU lacks (missing: avx512f avx512cd avx512bw avx512dq "
                       "avx512vl)");
    scn_override_t set[] = {{"numerics={\"blas_core\":\"Cooperlake\"}"}};
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1}", set, 1, NULL, &avx2),
                       "--set numerics={\"blas_core\":\"Cooperlake\"}: numerics.blas_core: the "
                       "Cooperlake kernel needs");
    scn_numerics_flags_t flag = {"skylakex", "--blas-core skylakex", -1};
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1}", NULL, 0, &flag, &avx2),
                       "--blas-core skylakex: the SkylakeX kernel needs");
    /* The flag wins over the file, both for the kernel and the threads. */
    scn_t s;
    sgd_err_t err;
    scn_numerics_flags_t both = {"Haswell", "--blas-core Haswell", 6};
    CHECK(load(pinned, NULL, 0, &s, &err) == 0);
    CHECK(scn_resolve_numerics(&s, &both, &avx2, &err) == 0);
    CHECK(strcmp(s.numerics.blas_core, "Haswell") == 0);
    CHECK_INT_EQ(s.numerics.threads_resolved, 6);
    scn_free(&s);
    scn_numerics_flags_t bad = {"Foo", "--blas-core Foo", -1};
    CHECK_STR_CONTAINS(load_err(pinned, NULL, 0, &bad, &avx2),
                       "--blas-core Foo: unknown OpenBLAS kernel");
    /* The user's OPENBLAS_CORETYPE: wins over auto, conflicts with another pinned kernel. */
    avx2.blas.env_coretype = "zen";
    CHECK(load("{\"schema_version\": 1}", NULL, 0, &s, &err) == 0);
    CHECK(scn_resolve_numerics(&s, NULL, &avx2, &err) == 0);
    CHECK(strcmp(s.numerics.blas_core, "Zen") == 0);
    scn_free(&s);
    CHECK_STR_CONTAINS(load_err("{\"schema_version\": 1, \"numerics\": {\"blas_core\": "
                                "\"Haswell\"}}", NULL, 0, NULL, &avx2),
                       "t.json: numerics.blas_core: asks for the Haswell kernel but "
                       "OPENBLAS_CORETYPE=zen in the environment asks for Zen");
}

int main(void)
{
    defaults_and_spelling();
    bad_input_names_the_path();
    threads_auto_is_cpus_over_jobs();
    hash_covers_the_kernel_not_the_threads();
    resolution_errors_name_who_asked();
    return check_exit();
}
