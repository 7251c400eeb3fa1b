/* Who is writing a 'running' run: the lease that keeps a resumed sweep (or anyone else) from
 * taking a live run for an abandoned one (schema 4, table run_owner; docs/results.md, "What
 * sgdsim guarantees about concurrent writers").  Private to results/ and its tests.
 *
 * rdb_run_begin writes the lease with the runs row: the owner's host name, boot id, pid and
 * process start time (/proc/PID/stat field 22, so a recycled pid is not the owner), a random
 * token only the owner knows, and a heartbeat (wall-clock ms) that every batch commit of the
 * owner renews.  The renewal is also the owner's check that the run is still its own: the
 * UPDATE matches only its run id with its token while the run is 'running', so a writer whose
 * row was deleted or changed finds out at its next commit and stops.
 *
 * A 'running' run is abandoned when its owner is provably gone: on this host and boot, no
 * process has its pid with its start time; on this host after a reboot, always; on another
 * host (a container, a machine sharing the file), only when its heartbeat is older than
 * RDB_LEASE_STALE_MS or more than RDB_LEASE_AHEAD_MS ahead of this host's clock.  A running
 * run without a lease (written before schema 4) counts as abandoned, as every unfinished run
 * did before. */
#ifndef SGDSIM_RESULTS_RDB_LEASE_H
#define SGDSIM_RESULTS_RDB_LEASE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "results/rdb.h"

/* A lease on another host is stale after this long without a heartbeat (15 minutes).  A
 * writer renews it with every commit, at least every RDB_COMMIT_EVERY_MS while it makes rows. */
#define RDB_LEASE_STALE_MS (15 * 60 * 1000)

/* A heartbeat this far ahead of the reader's clock or more is stale too (15 minutes): the
 * hosts' clocks differ by more than a lease allows, or the value was planted.  Without the
 * bound, a heartbeat in the future never aged and its run was never redone; within it, a
 * writer whose clock is ahead is still seen alive, and once it stops, its lease goes stale
 * at most RDB_LEASE_AHEAD_MS later than with agreeing clocks. */
#define RDB_LEASE_AHEAD_MS RDB_LEASE_STALE_MS

#define RDB_TOKEN_LEN 32 /* hex characters of a lease token */

/* Version 4: the lease table (one row per running run begun by schema 4 or later; removed
 * when the run ends, with the run by cascade). */
#define RDB_LEASE_V4_SQL                                                                   \
    "CREATE TABLE run_owner ("                                                             \
    "  run_id       INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"            \
    "  token        TEXT NOT NULL,"                                                        \
    "  host         TEXT NOT NULL,"                                                        \
    "  boot_id      TEXT NOT NULL,"                                                        \
    "  pid          INTEGER NOT NULL,"                                                     \
    "  start_ticks  INTEGER NOT NULL,"                                                     \
    "  heartbeat_ms INTEGER NOT NULL"                                                      \
    ");"

/* A process as a lease names it. */
typedef struct rdb_owner {
    char host[256];   /* gethostname() */
    char boot_id[64]; /* /proc/sys/kernel/random/boot_id, a space and the pid namespace
                         (/proc/self/ns/pid, "pid:[N]"); parts unknown are left out */
    int64_t pid;
    int64_t start_ticks; /* /proc/PID/stat field 22 (clock ticks after boot), -1 unknown */
} rdb_owner_t;

/* This process. */
void rdb_owner_self(rdb_owner_t *o);

/* Start time of process pid in clock ticks after boot (/proc/PID/stat field 22); -1 when
 * there is no such living process (none, a zombie, or /proc cannot say). */
int64_t rdb_proc_start_ticks(int64_t pid);

/* Whether the lease of `owner`, last renewed at heartbeat_ms (wall clock), may still be held
 * by a live process, seen from process `self` at now_ms: false only when the owner is
 * provably gone (see above). */
bool rdb_owner_alive(const rdb_owner_t *owner, int64_t heartbeat_ms, const rdb_owner_t *self,
                     int64_t now_ms);

/* now_ms - heartbeat_ms, saturated at INT64_MIN and INT64_MAX (a heartbeat is whatever the
 * database holds); negative when the heartbeat is ahead of now. */
int64_t rdb_lease_age_ms(int64_t now_ms, int64_t heartbeat_ms);

/* Milliseconds of the wall clock (CLOCK_REALTIME), the heartbeat's unit. */
int64_t rdb_wall_ms(void);

/* Writes the lease of run_id for this process into the transaction the caller has open;
 * token[RDB_TOKEN_LEN + 1] receives its new random token. */
int rdb_lease_take(rdb_t *db, int64_t run_id, char *token, sgd_err_t *err);

/* Inside the caller's write transaction: renews the heartbeat of run_id's lease if it is
 * still ours (token) and the run still 'running'.  When it is not, *gone = true and -1 with a
 * message naming the database and the run; -1 with *gone untouched on an SQLite error. */
int rdb_lease_renew(rdb_t *db, int64_t run_id, const char *token, bool *gone, sgd_err_t *err);

/* Inside the caller's write transaction: drops run_id's lease (the run has ended). */
int rdb_lease_drop(rdb_t *db, int64_t run_id, sgd_err_t *err);

#endif
