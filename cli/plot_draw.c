/* Running gnuplot for `sgdsim plot` (see plot_draw.h). */
#include "cli/plot_draw.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/error.h"
#include "common/outpath.h"

/* Searched by hand rather than with execvp, so that a missing gnuplot is told before
 * anything is drawn. */
bool plot_find_in_path(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH");
    if (!path) return false;
    char *copy = sgd_xstrdup(path), *save = NULL;
    bool found = false;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, size, "%s/%s", *d ? d : ".", name);
        found = access(out, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* A temporary file holding text, already unlinked (so it can never be left behind), with
 * its offset back at the start; -1 after printing why not. */
static int script_file(const char *text)
{
    const char *dir = getenv("TMPDIR");
    size_t n = strlen(dir && *dir ? dir : "/tmp") + 32;
    char *path = sgd_xmalloc(n);
    snprintf(path, n, "%s/sgdsim-plot-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        cli_bad_input("plot: %s: cannot create a temporary file: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    unlink(path);
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        done += (size_t)w;
    }
    if (done < len || lseek(fd, 0, SEEK_SET) != 0) {
        cli_bad_input("plot: %s: cannot write the gnuplot script: %s", path, strerror(errno));
        close(fd);
        fd = -1;
    }
    free(path);
    return fd;
}

/* Runs gnuplot with the script on its standard input and the figure on its standard
 * output; true when it exits 0. */
static bool run_gnuplot(const char *gnuplot, int script_fd, int fig_fd, int *status)
{
    pid_t pid = fork();
    if (pid == 0) {
        /* A Ctrl-C meant for plot --follow stops it between drawings; the drawing under
         * way is finished, so the figure it renames into place is whole. */
        signal(SIGINT, SIG_IGN);
        if (dup2(script_fd, STDIN_FILENO) < 0 || dup2(fig_fd, STDOUT_FILENO) < 0) _exit(127);
        execl(gnuplot, "gnuplot", (char *)NULL);
        _exit(127);
    }
    *status = 0;
    if (pid < 0) return false;
    while (waitpid(pid, status, 0) < 0)
        if (errno != EINTR) return false;
    return WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
}

/* Draws the script into a temporary file beside out (common/outpath.h: created with
 * O_EXCL | O_NOFOLLOW, so a planted file or link is never written through) and renames it
 * to out; the temporary figure is removed on every failure. */
int plot_draw(const char *gnuplot, const char *script, const char *out)
{
    int sfd = script_file(script);
    if (sfd < 0) return SGD_EXIT_BAD_INPUT;
    int rc = SGD_EXIT_OK, status = 0;
    sgd_outfile_t fig;
    sgd_err_t err = {{0}};
    if (sgd_outfile_open(&fig, out, &err)) {
        rc = cli_bad_input("plot: %s", err.msg);
    } else {
        bool ok = run_gnuplot(gnuplot, sfd, fig.fd, &status);
        struct stat sb;
        if (!ok)
            rc = cli_bad_input("plot: gnuplot failed drawing %s (exit status %d)", out,
                               WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        else if (fstat(fig.fd, &sb) != 0 || sb.st_size == 0)
            rc = cli_bad_input("plot: %s: gnuplot wrote no figure", out);
        if (rc) sgd_outfile_abort(&fig, false);
        else if (sgd_outfile_commit(&fig, false, &err)) rc = cli_bad_input("plot: %s", err.msg);
    }
    close(sfd);
    return rc;
}
