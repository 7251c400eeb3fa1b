/* The model conformance suite's CLI checks (test_model_conformance.c, check 6): the sgdsim
 * under test, built with the same registry as the suite, run as a child process on a
 * scenario file in a temporary folder, its exit code and its output read back.  (Its runs
 * compute on the BLAS kernel the CLI picks, which this process does not pin: digests are
 * compared between its runs only.) */
#ifndef SGDSIM_TESTS_ALGORITHMS_MODEL_CONFORMANCE_CLI_H
#define SGDSIM_TESTS_ALGORITHMS_MODEL_CONFORMANCE_CLI_H

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/sha256.h"
#include "models/model_kind.h"
#include "tests/check.h"

static struct {
    const char *sgdsim;
    char dir[64];
    char file[96], out[96], db[96], refused_db[96];
} cli;

static void cli_setup(const char *sgdsim)
{
    cli.sgdsim = sgdsim;
    snprintf(cli.dir, sizeof cli.dir, "/tmp/sgdsim_model_conformance_XXXXXX");
    SGD_ASSERT(mkdtemp(cli.dir));
    snprintf(cli.file, sizeof cli.file, "%s/s.json", cli.dir);
    snprintf(cli.out, sizeof cli.out, "%s/out.txt", cli.dir);
    snprintf(cli.db, sizeof cli.db, "%s/ok.db", cli.dir);
    snprintf(cli.refused_db, sizeof cli.refused_db, "%s/refused.db", cli.dir);
}

static void cli_cleanup(void)
{
    const char *files[] = {cli.file, cli.out, cli.db, cli.refused_db};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) unlink(files[i]);
    rmdir(cli.dir);
}

static void cli_write(const char *text)
{
    FILE *f = fopen(cli.file, "w");
    SGD_ASSERT(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* Runs `sgdsim ARGS...` (NULL-terminated) with stdout and stderr into *output (the caller
 * frees it); returns its exit code, -1 when it did not exit. */
static int cli_run(char **output, ...)
{
    char *argv[16] = {(char *)cli.sgdsim};
    va_list ap;
    va_start(ap, output);
    for (int i = 1; (argv[i] = va_arg(ap, char *)); i++) SGD_ASSERT(i < 15);
    va_end(ap);
    pid_t pid = fork();
    SGD_ASSERT(pid >= 0);
    if (pid == 0) {
        int fd = open(cli.out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    SGD_ASSERT(waitpid(pid, &status, 0) == pid);
    *output = check_read_file(cli.out, NULL);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* `validate` and `run` with `set` both exit 2 with a message containing `needle`. */
static void cli_refuses(const char *set, const char *needle)
{
    char *out;
    CHECK_INT_EQ(cli_run(&out, "validate", cli.file, "--set", set, NULL), 2);
    CHECK_STR_CONTAINS(out, needle);
    free(out);
    CHECK_INT_EQ(cli_run(&out, "run", cli.file, "--db", cli.refused_db, "--quiet", "--set", set,
                         NULL), 2);
    CHECK_STR_CONTAINS(out, needle);
    free(out);
}

/* The binary's kinds, from its refusal of an unknown model.kind, are the suite's and then
 * "preset" (text: any scenario). */
static void cli_same_registry(const char *text)
{
    char want[1024] = "expected one of ", *out;
    size_t n = strlen(want);
    for (const model_kind_t *const *k = model_kinds; *k; k++)
        n += (size_t)snprintf(want + n, sizeof want - n, "\"%s\", ", (*k)->name);
    snprintf(want + n, sizeof want - n, "\"preset\", got \"no-such-kind\"");
    cli_write(text);
    CHECK_INT_EQ(cli_run(&out, "validate", cli.file, "--set", "model.kind=\"no-such-kind\"", NULL),
                 2);
    CHECK_STR_CONTAINS(out, want);
    free(out);
}

/* The digest `sgdsim run` prints for the scenario on `threads` threads ("" when none). */
static void cli_digest(const char *threads, char digest[SGD_SHA256_HEX_LEN + 1])
{
    char *out;
    unlink(cli.db);
    CHECK_INT_EQ(cli_run(&out, "run", cli.file, "--db", cli.db, "--threads", threads, NULL), 0);
    const char *d = strstr(out, "\ndigest ");
    snprintf(digest, SGD_SHA256_HEX_LEN + 1, "%s", d ? d + 8 : "");
    CHECK(d && strlen(digest) == SGD_SHA256_HEX_LEN);
    free(out);
}

/* Kind k's example (in scenario `text`) validates and runs, to the same digest on 1 and 3
 * threads, and its bad specs are refused with exit 2 naming the path, writing nothing. */
static void cli_checks(const model_kind_t *k, const char *text)
{
    char *out, set[128], needle[160];
    cli_write(text);
    CHECK_INT_EQ(cli_run(&out, "validate", cli.file, NULL), 0);
    snprintf(needle, sizeof needle, "\nmodel: %s ", k->name);
    CHECK_STR_CONTAINS(out, needle);
    free(out);
    char one[SGD_SHA256_HEX_LEN + 1], three[SGD_SHA256_HEX_LEN + 1];
    cli_digest("1", one);
    cli_digest("3", three);
    CHECK_STR_EQ(one, three);
    for (const char *const *key = k->keys; *key; key++) {
        snprintf(set, sizeof set, "model.%s={\"conformance\":[1]}", *key);
        snprintf(needle, sizeof needle, "model.%s", *key);
        cli_refuses(set, needle);
    }
    cli_refuses("model.no_such_key=1", "model.no_such_key");
    if (k->cuda == MODEL_CUDA_NONE) {
        snprintf(needle, sizeof needle, "backend \"cuda\" has no kernels for kind \"%s\"",
                 k->name);
        cli_refuses("backend=\"cuda\"", needle);
    }
    CHECK(access(cli.refused_db, F_OK) != 0); /* a refused run writes no database */
}

#endif
