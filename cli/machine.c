/* The OpenBLAS kernel and the CPUs of this process: choosing the kernel before OpenBLAS loads
 * by re-executing the program, and the environment of sweep points (see machine.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT_S */
#include "cli/machine.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cblas.h>

#include "cli/run_signals.h"

extern char **environ;

#define CORETYPE "OPENBLAS_CORETYPE"

/* What this process knows about how it was started (cli_machine_init). */
static struct {
    char **argv;                        /* main()'s argv, for the re-exec */
    char *user;                         /* the user's OPENBLAS_CORETYPE (owned), NULL if unset */
    char native[BLAS_KERNEL_NAME_MAX];  /* OpenBLAS's own choice, "" when unknown */
    char *forced;                       /* OPENBLAS_CORETYPE sgdsim set before OpenBLAS loaded
                                           (owned), NULL when sgdsim did not prepare it */
    int restarts;                       /* re-execs of this command line so far */
} self;

/* Parses "<restarts>;<native>;<user>" into self; -1 when malformed. */
static int parse_marker(const char *v)
{
    const char *semi1 = strchr(v, ';'), *semi2 = semi1 ? strchr(semi1 + 1, ';') : NULL;
    if (!semi2 || semi1 != v + 1 || v[0] < '0' || v[0] > '1') return -1;
    size_t nlen = (size_t)(semi2 - semi1 - 1);
    if (nlen >= sizeof self.native) return -1;
    memcpy(self.native, semi1 + 1, nlen);
    self.native[nlen] = '\0';
    const char *user = semi2 + 1;
    if (strcmp(user, "-") == 0) self.user = NULL;
    else if (user[0] == '=') self.user = sgd_xstrdup(user + 1);
    else return -1;
    self.restarts = v[0] - '0';
    return 0;
}

int cli_machine_init(int argc, char **argv, sgd_err_t *err)
{
    (void)argc;
    self.argv = argv;
    const char *marker = getenv(CLI_MACHINE_MARKER);
    if (!marker) {
        const char *user = getenv(CORETYPE);
        self.user = user ? sgd_xstrdup(user) : NULL;
        /* Without OPENBLAS_CORETYPE, what loaded is OpenBLAS's own choice. */
        snprintf(self.native, sizeof self.native, "%s", user ? "" : openblas_get_corename());
        return 0;
    }
    if (parse_marker(marker))
        return sgd_errf(err, "%s=\"%s\" in the environment: malformed (sgdsim sets this "
                             "variable for the processes it starts itself; unset it)",
                        CLI_MACHINE_MARKER, marker);
    const char *forced = getenv(CORETYPE);
    self.forced = forced ? sgd_xstrdup(forced) : NULL;
    /* From here on the environment is the user's again: what this process starts (and a
     * re-exec) begins from it.  OpenBLAS read OPENBLAS_CORETYPE already. */
    if (self.user) setenv(CORETYPE, self.user, 1);
    else unsetenv(CORETYPE);
    unsetenv(CLI_MACHINE_MARKER);
    return 0;
}

int64_t cli_machine_cpus(void)
{
    /* Grows the CPU set until the kernel accepts its size (machines with > 1024 CPUs). */
    for (int n = 1024; n <= (1 << 16); n *= 2) {
        cpu_set_t *set = CPU_ALLOC((size_t)n);
        size_t size = CPU_ALLOC_SIZE((size_t)n);
        int rc = sched_getaffinity(0, size, set);
        int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
        CPU_FREE(set);
        if (rc == 0) return count > 0 ? count : 1;
        if (errno != EINVAL) break;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? online : 1;
}

void cli_machine_get(int64_t jobs, scn_machine_t *m)
{
    memset(m, 0, sizeof *m);
    m->blas.cpu = blas_cpu_detect();
    m->blas.id = blas_cpu_identify();
    m->blas.in_library = blas_kernels_in_library();
    m->blas.native = self.native;
    m->blas.env_coretype = self.user;
    m->cpus = cli_machine_cpus();
    m->jobs = jobs > 0 ? jobs : 1;
}

/* "<restarts>;<native>;<user>" for a process started from this one. */
static void format_marker(int restarts, char *buf, size_t size)
{
    snprintf(buf, size, "%d;%s;%s%s", restarts, self.native, self.user ? "=" : "-",
             self.user ? self.user : "");
}

/* Why a re-exec cannot help, or NULL when it can. */
static int cannot_restart(const char *running, const char *kernel, sgd_err_t *err)
{
    if (self.forced && strcasecmp(self.forced, kernel) == 0)
        return sgd_errf(err, "OpenBLAS runs its %s kernel although sgdsim started it with "
                             "%s=%s: this OpenBLAS (%s) does not provide %s, and a run "
                             "must not compute on another kernel than it records",
                        running, CORETYPE, self.forced, openblas_get_config(), kernel);
    if (self.restarts >= 1)
        return sgd_errf(err, "OpenBLAS runs its %s kernel, not %s, after sgdsim restarted "
                             "itself once to choose the kernel (%s=%s); not restarting again",
                        running, kernel, CORETYPE, self.forced ? self.forced : "unset");
    if (!self.forced && self.user)
        return sgd_errf(err, "OpenBLAS runs its %s kernel although %s=%s in the environment "
                             "asks for %s", running, CORETYPE, self.user, kernel);
    return 0;
}

int cli_machine_use_kernel(const char *kernel, sgd_err_t *err)
{
    const char *running = openblas_get_corename();
    /* A kernel that computes the same bits is as good as the one asked for: no re-exec. */
    if (blas_kernel_same_bits(running, kernel)) return 0;
    if (cannot_restart(running, kernel, err)) return -1;
    char marker[2 * BLAS_KERNEL_NAME_MAX + 4096];
    format_marker(self.restarts + 1, marker, sizeof marker);
    if (setenv(CORETYPE, kernel, 1) || setenv(CLI_MACHINE_MARKER, marker, 1))
        return sgd_errf(err, "cannot set %s=%s: %s", CORETYPE, kernel, strerror(errno));
    fflush(NULL);
    /* A stop signal arriving while the new image loads waits for its handlers (pending
     * across the exec), and one caught already is passed on to it. */
    sigset_t mask;
    cli_run_signals_hold(&mask);
    execv("/proc/self/exe", self.argv);
    int e = errno;
    cli_run_signals_release(&mask);
    if (self.user) setenv(CORETYPE, self.user, 1);
    else unsetenv(CORETYPE);
    unsetenv(CLI_MACHINE_MARKER);
    return sgd_errf(err, "cannot start sgdsim again with %s=%s to run that kernel (execv "
                         "/proc/self/exe: %s)", CORETYPE, kernel, strerror(e));
}

static char *env_entry(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = sgd_xmalloc(n);
    snprintf(s, n, "%s=%s", name, value);
    return s;
}

static int is_var(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

char **cli_machine_child_env(const char *kernel)
{
    size_t n = 0;
    while (environ[n]) n++;
    char **env = sgd_xcalloc(n + 3, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!is_var(environ[i], CORETYPE) && !is_var(environ[i], CLI_MACHINE_MARKER))
            env[k++] = sgd_xstrdup(environ[i]);
    char marker[2 * BLAS_KERNEL_NAME_MAX + 4096];
    format_marker(0, marker, sizeof marker);
    env[k++] = env_entry(CORETYPE, kernel);
    env[k++] = env_entry(CLI_MACHINE_MARKER, marker);
    env[k] = NULL;
    return env;
}

void cli_machine_env_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++) free(env[i]);
    free(env);
}

void cli_machine_describe(const scn_machine_t *m, const char *kernel, char *buf, size_t size)
{
    const blas_auto_rule_t *rule = blas_kernel_auto_rule(&m->blas);
    const char *running = openblas_get_corename();
    size_t len;
    if (self.user) {
        len = (size_t)snprintf(buf, size, "%s=%s in the environment", CORETYPE, self.user);
    } else if (rule && strcmp(rule->kernel, kernel) == 0) {
        len = (size_t)snprintf(buf, size, "auto: the kernel table's line for %s", rule->what);
    } else {
        len = (size_t)snprintf(buf, size, "auto: OpenBLAS's own choice (no line of the kernel "
                                          "table fits this CPU)");
    }
    if (len < size && strcmp(running, kernel) != 0)
        snprintf(buf + len, size - len, "; OpenBLAS runs %s, which computes the same bits",
                 running);
}
