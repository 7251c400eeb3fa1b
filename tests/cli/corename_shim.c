/* A stand-in for OpenBLAS's openblas_get_corename(), preloaded (LD_PRELOAD) by
 * test_cli_blas_reexec.sh: every process image that loads it appends one line to the file
 * named by SHIM_LOG (so the test counts re-executions); with SHIM_CORENAME set it reports
 * that kernel whatever OpenBLAS really runs (so the test can make OpenBLAS look as if it
 * ignored OPENBLAS_CORETYPE); with SHIM_NATIVE set it reports that kernel as OpenBLAS's own
 * choice, when OPENBLAS_CORETYPE is unset, and the real one otherwise (so the test can play
 * any CPU's OpenBLAS choice on this one).  Otherwise it returns OpenBLAS's answer.
 *
 * With SHIM_OPENBLAS_PICKS set it makes OpenBLAS really pick that kernel by itself: OpenBLAS's
 * own getenv("OPENBLAS_CORETYPE") sees the value when the environment has none, and nothing
 * else sees it (sgdsim still finds no user's choice).  Unlike SHIM_NATIVE, which only changes
 * the name, OpenBLAS then computes with that kernel, so a whole test suite preloading the shim
 * runs as on a CPU that OpenBLAS does not know (0.3.21 falls back to Prescott on Xeon family 6
 * model 207).  Only a kernel this CPU can execute makes sense here. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* The value of name in the environment, read without calling getenv (this file defines it). */
static char *env_value(const char *name)
{
    size_t n = strlen(name);
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return NULL;
}

/* Whether code at addr belongs to OpenBLAS's library. */
static int in_openblas(const void *addr)
{
    Dl_info info;
    return dladdr(addr, &info) && info.dli_fname && strstr(info.dli_fname, "openblas");
}

char *getenv(const char *name)
{
    char *value = env_value(name);
    if (!value && strcmp(name, "OPENBLAS_CORETYPE") == 0 &&
        in_openblas(__builtin_return_address(0)))
        value = env_value("SHIM_OPENBLAS_PICKS");
    return value;
}

/* Was OPENBLAS_CORETYPE set when this image started?  OpenBLAS reads it only then (sgdsim
 * puts the user's environment back before it asks for the kernel). */
static int coretype_at_start;

__attribute__((constructor)) static void log_image(void)
{
    coretype_at_start = getenv("OPENBLAS_CORETYPE") != NULL;
    const char *log = getenv("SHIM_LOG");
    if (!log) return;
    char line[256];
    const char *core = getenv("OPENBLAS_CORETYPE");
    int n = snprintf(line, sizeof line, "%ld %s\n", (long)getpid(), core ? core : "-");
    int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) return;
    if (n > 0 && write(fd, line, (size_t)n) < 0) perror("shim: write");
    close(fd);
}

/* OpenBLAS's declaration (cblas.h), repeated so this library needs no OpenBLAS headers. */
char *openblas_get_corename(void);

char *openblas_get_corename(void)
{
    static char fake[64];
    const char *want = getenv("SHIM_CORENAME");
    if (!want && !coretype_at_start) want = getenv("SHIM_NATIVE");
    if (want) {
        snprintf(fake, sizeof fake, "%s", want);
        return fake;
    }
    char *(*real)(void);
    *(void **)&real = dlsym(RTLD_NEXT, "openblas_get_corename"); /* POSIX's idiom */
    return real ? real() : fake;
}
