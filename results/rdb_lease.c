/* The lease of a running run (rdb_lease.h): who this process is, whether another owner is
 * provably gone, and the lease rows that rdb_write.c takes, renews and drops inside its own
 * transactions. */
#include "results/rdb_lease.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "results/rdb_internal.h"

int64_t rdb_wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The first line of a small text file into buf (trailing newline removed); "" if absent. */
static void read_line(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(buf, (int)size, f)) buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

int64_t rdb_proc_start_ticks(int64_t pid)
{
    if (pid <= 0) return -1;
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    /* Field 2 is the command name in parentheses and may hold spaces or ')': the fields
     * after it start at the last ')'.  Field 22 is the 20th after it. */
    char *p = strrchr(buf, ')');
    if (!p) return -1;
    p++;
    /* Field 3, the state: a zombie (Z) or dead (X) process has exited, though its entry
     * stays until its parent (or, for a killed sweep's points, a subreaper) reaps it. */
    char state = p[strspn(p, " ")];
    if (state == 'Z' || state == 'X' || state == 'x') return -1;
    for (int field = 3; field < 22; field++) {
        p += strspn(p, " ");
        p += strcspn(p, " ");
    }
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    return end == p || errno ? -1 : (int64_t)v;
}

void rdb_owner_self(rdb_owner_t *o)
{
    memset(o, 0, sizeof *o);
    if (gethostname(o->host, sizeof o->host) != 0) snprintf(o->host, sizeof o->host, "unknown");
    o->host[sizeof o->host - 1] = '\0';
    char boot[40], ns[24] = "";
    read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    /* The pid namespace belongs to the boot identity: pids of two containers that share a
     * host name (and a file) say nothing about each other. */
    ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    ns[n > 0 ? n : 0] = '\0';
    snprintf(o->boot_id, sizeof o->boot_id, "%s%s%s", boot, *ns ? " " : "", ns);
    o->pid = (int64_t)getpid();
    o->start_ticks = rdb_proc_start_ticks(o->pid);
}

/* The boot part of a boot id ("<uuid> pid:[N]" -> "<uuid>"), for the reboot rule. */
static size_t boot_part(const char *boot_id)
{
    return strcspn(boot_id, " ");
}

int64_t rdb_lease_age_ms(int64_t now_ms, int64_t heartbeat_ms)
{
    int64_t age;
    if (!__builtin_sub_overflow(now_ms, heartbeat_ms, &age)) return age;
    return heartbeat_ms < 0 ? INT64_MAX : INT64_MIN;
}

bool rdb_owner_alive(const rdb_owner_t *owner, int64_t heartbeat_ms, const rdb_owner_t *self,
                     int64_t now_ms)
{
    int64_t age = rdb_lease_age_ms(now_ms, heartbeat_ms);
    bool fresh = age < RDB_LEASE_STALE_MS && age > -RDB_LEASE_AHEAD_MS;
    if (strcmp(owner->host, self->host) != 0) return fresh;
    size_t bo = boot_part(owner->boot_id), bs = boot_part(self->boot_id);
    if (bo && bs && (bo != bs || memcmp(owner->boot_id, self->boot_id, bo) != 0))
        return false; /* this host rebooted since: every process of that boot is gone */
    if (strcmp(owner->boot_id, self->boot_id) != 0) return fresh; /* another pid namespace */
    int64_t start = rdb_proc_start_ticks(owner->pid);
    if (start >= 0) return start == owner->start_ticks; /* else the pid was recycled */
    if (owner->pid <= 0 || (kill((pid_t)owner->pid, 0) != 0 && errno == ESRCH)) return false;
    /* The pid exists but /proc gave no start time: a zombie (its /proc entry is there), or
     * a process /proc hides from us (hidepid), which may be the owner. */
    char path[64];
    snprintf(path, sizeof path, "/proc/%lld", (long long)owner->pid);
    return access(path, F_OK) != 0;
}

/* 16 random bytes as 32 hex characters. */
static void new_token(char *token)
{
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        /* No entropy source: pid, time and address still differ between processes. */
        int64_t mix[2] = {rdb_wall_ms() ^ ((int64_t)getpid() << 32), (int64_t)(intptr_t)b};
        memcpy(b, mix, sizeof b);
    }
    for (size_t i = 0; i < sizeof b; i++) snprintf(token + 2 * i, 3, "%02x", b[i]);
}

int rdb_lease_take(rdb_t *db, int64_t run_id, char *token, sgd_err_t *err)
{
    rdb_owner_t self;
    rdb_owner_self(&self);
    new_token(token);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->db, "INSERT INTO run_owner(run_id, token, host, boot_id,"
                                " pid, start_ticks, heartbeat_ms) VALUES (?1, ?2, ?3, ?4, ?5,"
                                " ?6, ?7)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, token, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, self.host, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, self.boot_id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, self.pid);
        sqlite3_bind_int64(st, 6, self.start_ticks);
        sqlite3_bind_int64(st, 7, rdb_wall_ms());
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : rdb_sqlerr(db, "cannot record the run's owner", err);
}

int rdb_lease_renew(rdb_t *db, int64_t run_id, const char *token, bool *gone, sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->db, "UPDATE run_owner SET heartbeat_ms = ?3 WHERE"
                                " run_id = ?1 AND token = ?2 AND EXISTS (SELECT 1 FROM runs"
                                " WHERE id = ?1 AND status = 'running')", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, token, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, rdb_wall_ms());
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return rdb_sqlerr(db, "cannot renew the run's lease", err);
    if (sqlite3_changes(db->db) == 1) return 0;
    *gone = true;
    return sgd_errf(err, "%s: run %lld is no longer this process's to write: its row was "
                    "deleted or changed by another process (a resumed sweep, a hand edit); "
                    "the run stops and writes nothing more", db->path, (long long)run_id);
}

int rdb_lease_drop(rdb_t *db, int64_t run_id, sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->db, "DELETE FROM run_owner WHERE run_id = ?1", -1, &st,
                                NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : rdb_sqlerr(db, "cannot end the run's lease", err);
}
