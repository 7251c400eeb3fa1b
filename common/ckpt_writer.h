/* The background writer of checkpoint files: one checkpoint at a time written by
 * sgd_ckpt_write (ckpt_file.h: SHA-256, a temporary file, fsync, rename, the directory
 * fsync'ed) on a thread of its own, so that the run that serialised it goes on meanwhile.
 *
 * Serialising the state stays the caller's, at an update boundary: only that captures the
 * state.  What takes most of a checkpoint's time -- hashing gigabytes, the kernel copying them
 * into the page cache, fsync -- reads nothing of the run but the payload, which the writer
 * owns from start to wait.  The file is the same bytes as a synchronous write's, and a
 * process killed while it is written leaves the previous checkpoint (ckpt_file.h).
 *
 * At most one write is in flight: start asserts that the previous one was collected
 * (sgd_ckpt_writer_wait), so a caller holds at most one serialised copy at a time besides
 * its live state.
 *
 * Reuse: a written payload is not freed but kept, and sgd_ckpt_writer_reclaim hands it back
 * for the next checkpoint's serialisation.  Its pages are then the process's already; a fresh
 * buffer of gigabytes is memory the kernel must find, zero and charge first, which was most
 * of the time a large run stood still for a checkpoint (docs/performance.md, "Checkpoints").
 * The price is that the buffer stays allocated between checkpoints, up to the size the run
 * needs at each one anyway.
 *
 * Threads: one thread (the owner) calls everything; each start runs one thread, joined by
 * wait.  That thread blocks every signal, so SIGTERM, SIGUSR1 and SIGINT reach the owner's
 * thread as before.  When no thread can be started, start writes on the calling thread.
 *
 * Ownership: sgd_ckpt_writer_create/sgd_ckpt_writer_destroy; destroy waits for the write in
 * flight (its result is dropped: collect it with wait first). */
#ifndef SGDSIM_COMMON_CKPT_WRITER_H
#define SGDSIM_COMMON_CKPT_WRITER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/ckpt_file.h"
#include "common/error.h"

typedef struct sgd_ckpt_writer sgd_ckpt_writer_t;

sgd_ckpt_writer_t *sgd_ckpt_writer_create(void);
void sgd_ckpt_writer_destroy(sgd_ckpt_writer_t *w);

/* Starts writing the checkpoint at path (copied) with header m (copied) and payload, n bytes
 * allocated with malloc that the writer now owns: it keeps it for sgd_ckpt_writer_reclaim
 * once written, and frees it at the next start or at destroy.  No write may be in flight
 * (asserted): wait for it first. */
void sgd_ckpt_writer_start(sgd_ckpt_writer_t *w, const char *path, const sgd_ckpt_meta_t *m,
                           void *payload, size_t n);

/* Whether a write was started and not yet collected by sgd_ckpt_writer_wait. */
bool sgd_ckpt_writer_busy(const sgd_ckpt_writer_t *w);

/* Whether the write in flight has ended, so that wait would not wait (true when none is in
 * flight).  Never blocks. */
bool sgd_ckpt_writer_ended(const sgd_ckpt_writer_t *w);

/* Waits for the write in flight to end and collects it: 0 when it wrote the file (or none
 * was in flight), -1 with sgd_ckpt_write's "PATH: cannot write: why" in err. */
int sgd_ckpt_writer_wait(sgd_ckpt_writer_t *w, sgd_err_t *err);

/* The payload of the last collected write, which the caller now owns (malloc'ed, at least
 * *n bytes), to serialise the next checkpoint into; NULL (and *n = 0) when there is none or
 * a write is in flight. */
void *sgd_ckpt_writer_reclaim(sgd_ckpt_writer_t *w, size_t *n);

/* Wall seconds the last collected write took on its thread (0 before the first). */
double sgd_ckpt_writer_last_seconds(const sgd_ckpt_writer_t *w);

#endif
