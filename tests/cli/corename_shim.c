/* A stand-in for OpenBLAS's openblas_get_corename(), preloaded (LD_PRELOAD) by
 * test_cli_blas_reexec.sh: every process image that loads it appends one line to the file
 * named by SHIM_LOG (so the test counts re-executions); with SHIM_CORENAME set it reports
 * that kernel whatever OpenBLAS really runs (so the test can make OpenBLAS look as if it
 * ignored OPENBLAS_CORETYPE); with SHIM_NATIVE set it reports that kernel as OpenBLAS's own
 * choice, when OPENBLAS_CORETYPE is unset, and the real one otherwise (so the test can play
 * any CPU's OpenBLAS choice on this one).  Otherwise it returns OpenBLAS's answer. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
