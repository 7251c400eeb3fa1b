/* sweep's checkpoints, declared in sweep/ckpt.h. */
#include "sweep/ckpt.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"

bool sweep_ckpt_on(const sweep_ckpt_t *c) { return c && c->dir; }

int sweep_ckpt_ready(const sweep_ckpt_t *c)
{
    if (!sweep_ckpt_on(c)) return 0;
    struct stat st;
    if (mkdir(c->dir, 0777) != 0 && errno != EEXIST)
        return sgd_bad_input("sweep: --checkpoint-dir %s: cannot create it: %s", c->dir,
                             strerror(errno));
    if (stat(c->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return sgd_bad_input("sweep: --checkpoint-dir %s: not a directory", c->dir);
    /* Permission bits do not say it (root, read-only mounts, ACLs): a file is tried. */
    size_t n = strlen(c->dir) + 32;
    char *probe = sgd_xmalloc(n);
    snprintf(probe, n, "%s/.sgdsim-probe-XXXXXX", c->dir);
    int fd = mkstemp(probe);
    int e = errno;
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    free(probe);
    if (fd < 0)
        return sgd_bad_input("sweep: --checkpoint-dir %s: cannot create files in it: %s",
                             c->dir, strerror(e));
    return 0;
}

/* DIR/RUN_KEY.ckpt, a new string. */
static char *point_path(const sweep_ckpt_t *c, const char *run_key)
{
    size_t n = strlen(c->dir) + strlen(run_key) + 8;
    char *p = sgd_xmalloc(n);
    snprintf(p, n, "%s/%s.ckpt", c->dir, run_key);
    return p;
}

int sweep_ckpt_find(const sweep_ckpt_t *c, const char *run_key,
                    sweep_point_ckpt_t *pc, sgd_err_t *err)
{
    memset(pc, 0, sizeof *pc);
    pc->path = point_path(c, run_key);
    struct stat st;
    if (lstat(pc->path, &st) != 0 && errno == ENOENT) return 0;
    sgd_err_t why = {{0}};
    if (sgd_ckpt_read_header(pc->path, &pc->meta, &why))
        return sgd_errf(err, "sweep: --checkpoint-dir: %s (remove it to redo the point from "
                             "update 0)", why.msg);
    if (strcmp(pc->meta.run_key, run_key) != 0)
        return sgd_errf(err, "sweep: --checkpoint-dir: %s holds the checkpoint of another "
                             "point (run key %.12s...), not of the point named by its file "
                             "name", pc->path, pc->meta.run_key);
    pc->resume = true;
    return 0;
}

void sweep_point_ckpt_free(sweep_point_ckpt_t *pc)
{
    free(pc->path);
    pc->path = NULL;
}

int sweep_ckpt_argv(const sweep_ckpt_t *c, const sweep_point_ckpt_t *pc,
                    const char **argv, int a, char num[32])
{
    if (!sweep_ckpt_on(c)) return a;
    argv[a++] = "--checkpoint";
    argv[a++] = pc->path;
    if (pc->resume) {
        argv[a++] = "--resume";
        argv[a++] = pc->path;
    }
    if (c->every) {
        argv[a++] = "--checkpoint-every";
        argv[a++] = c->every;
    }
    if (c->every_updates) {
        snprintf(num, 32, "%llu", (unsigned long long)c->every_updates);
        argv[a++] = "--checkpoint-every-updates";
        argv[a++] = num;
    }
    return a;
}

/* Deletes path; a file already gone is fine. */
static void remove_file(const char *path)
{
    if (unlink(path) != 0 && errno != ENOENT)
        fprintf(stderr, "sgdsim: sweep: warning: cannot remove %s: %s\n", path,
                strerror(errno));
}

void sweep_ckpt_remove(const sweep_ckpt_t *c, const char *run_key)
{
    if (!sweep_ckpt_on(c)) return;
    char *path = point_path(c, run_key);
    remove_file(path);
    /* A writer killed between creating its temporary file and the rename leaves
     * RUN_KEY.ckpt.tmp.PID.K (common/outpath.h) beside the checkpoint. */
    size_t dlen = strlen(c->dir), plen = strlen(path) - dlen - 1;
    DIR *d = opendir(c->dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, path + dlen + 1, plen) != 0 ||
            strncmp(e->d_name + plen, ".tmp.", 5) != 0)
            continue;
        size_t n = dlen + strlen(e->d_name) + 2;
        char *tmp = sgd_xmalloc(n);
        snprintf(tmp, n, "%s/%s", c->dir, e->d_name);
        remove_file(tmp);
        free(tmp);
    }
    if (d) closedir(d);
    free(path);
}
