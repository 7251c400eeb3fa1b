/* libFuzzer target: every command that reads a results database, on a mutated database file.
 *
 * The input is written to a file in a private scratch directory, exactly as a database on disk
 * would be, and then read by `query`, `report` (tables and --json), `show`, `diff`,
 * `compare` (the file against itself) and `export` (into a scratch directory), each through
 * the same entry point the command line uses.  A command may refuse the file (exit 1 or 2,
 * with a message); it must never crash, hang, leak or write to the input.  `plot` is left out:
 * past its reading it starts gnuplot, a process per input.  What the commands print goes to
 * /dev/null; their messages to stderr stay visible. */
#define _GNU_SOURCE /* mkdtemp, dirfd */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], db[96], out[96];

static void remove_dir(void) { rmdir(dir); }

/* A scratch directory for the run (removed at exit), and stdout on /dev/null, once. */
static int setup(void)
{
    if (dir[0]) return 0;
    snprintf(dir, sizeof dir, "/tmp/sgdsim-fuzz-db-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    atexit(remove_dir);
    snprintf(db, sizeof db, "%s/in.db", dir);
    snprintf(out, sizeof out, "%s/csv", dir);
    int null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, STDOUT_FILENO) < 0) return -1;
    close(null);
    return 0;
}

static int write_input(const uint8_t *data, size_t size)
{
    int fd = open(db, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return -1;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(fd);
    return off == size ? 0 : -1;
}

/* Removes the input, its SQLite companions and export's files, so inputs do not meet. */
static void clean(void)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal", NULL};
    char path[160];
    for (int i = 0; suffix[i]; i++) {
        snprintf(path, sizeof path, "%s%s", db, suffix[i]);
        unlink(path);
    }
    DIR *d = opendir(out); /* export writes plain files directly in out */
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
    rmdir(out);
}

/* Calls a command's entry point with its arguments (copied: commands may not keep them). */
static void run(int (*command)(int, char **), int argc, const char *const *argv)
{
    char *args[8];
    for (int i = 0; i < argc; i++) args[i] = strdup(argv[i]);
    args[argc] = NULL;
    (void)command(argc, args);
    for (int i = 0; i < argc; i++) free(args[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (setup() || write_input(data, size)) return 0;
    run(cli_query_main, 2, (const char *const[]){db, "SELECT count(*) FROM runs"});
    run(cli_report_main, 1, (const char *const[]){db});
    run(cli_report_main, 2, (const char *const[]){db, "--json"});
    run(cli_show_main, 2, (const char *const[]){db, "1"});
    run(cli_diff_main, 3, (const char *const[]){db, "1", "2"});
    run(cli_compare_main, 2, (const char *const[]){db, db});
    run(cli_export_main, 3, (const char *const[]){db, "--csv", out});
    clean();
    return 0;
}
