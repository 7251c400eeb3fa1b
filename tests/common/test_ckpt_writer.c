/* The background checkpoint writer: the file it writes is byte for byte the one a synchronous
 * sgd_ckpt_write makes; busy and ended follow a write from start to wait; several writes in a
 * row through one writer each land; a failed write is reported by wait naming the file and
 * leaves no temporary file; a signal sent to the process while a write is in flight is
 * handled on the owner's thread, never on the writer's; destroy waits for a write in flight;
 * a written payload is handed back once for reuse, and one not reclaimed is freed.
 * Run under ThreadSanitizer by .ci/run. */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ckpt_writer.h"
#include "tests/check.h"

/* Big enough that hashing, writing and fsync take a while, so a write is still in flight
 * when the test looks at it. */
#define PAYLOAD_BYTES (48u << 20)

static sgd_ckpt_meta_t sample_meta(int64_t updates)
{
    sgd_ckpt_meta_t m = {.run_id = 3, .updates = updates};
    snprintf(m.sgdsim_version, sizeof m.sgdsim_version, "1.0");
    snprintf(m.algorithm, sizeof m.algorithm, "fasgd");
    return m;
}

static uint8_t *payload_of(size_t n, uint8_t seed)
{
    uint8_t *p = sgd_xmalloc(n);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 131u + seed);
    return p;
}

/* Entries of dir other than . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    SGD_ASSERT(d);
    int k = 0;
    for (struct dirent *e; (e = readdir(d));) k += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return k;
}

/* A background write and a synchronous one of the same state give the same bytes. */
static void test_same_bytes(const char *dir)
{
    char bg[600], sync[600];
    snprintf(bg, sizeof bg, "%s/bg.ckpt", dir);
    snprintf(sync, sizeof sync, "%s/sync.ckpt", dir);
    sgd_ckpt_meta_t m = sample_meta(42);
    uint8_t *p = payload_of(PAYLOAD_BYTES, 7);
    sgd_err_t err = {{0}};
    CHECK(sgd_ckpt_write(sync, &m, p, PAYLOAD_BYTES, &err) == 0);
    sgd_ckpt_writer_t *w = sgd_ckpt_writer_create();
    CHECK(!sgd_ckpt_writer_busy(w) && sgd_ckpt_writer_ended(w));
    sgd_ckpt_writer_start(w, bg, &m, p, PAYLOAD_BYTES); /* the writer owns p now */
    CHECK(sgd_ckpt_writer_busy(w));
    CHECK(sgd_ckpt_writer_wait(w, &err) == 0);
    CHECK(!sgd_ckpt_writer_busy(w) && sgd_ckpt_writer_ended(w));
    CHECK(sgd_ckpt_writer_last_seconds(w) > 0);
    CHECK(sgd_ckpt_writer_wait(w, &err) == 0); /* nothing in flight: at once */
    size_t na, nb;
    uint8_t *a = check_read_file(bg, &na), *b = check_read_file(sync, &nb);
    CHECK(na == nb && memcmp(a, b, na) == 0);
    free(a);
    free(b);
    sgd_ckpt_writer_destroy(w);
    unlink(bg);
    unlink(sync);
}

/* Writes one after another over the same file, polling `ended` meanwhile as a run does after
 * each update; the last one is what the file holds. */
static void test_in_a_row(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/row.ckpt", dir);
    sgd_ckpt_writer_t *w = sgd_ckpt_writer_create();
    sgd_err_t err = {{0}};
    for (int k = 1; k <= 4; k++) {
        sgd_ckpt_meta_t m = sample_meta(k);
        sgd_ckpt_writer_start(w, path, &m, payload_of(1u << 20, (uint8_t)k), 1u << 20);
        while (!sgd_ckpt_writer_ended(w)) usleep(100);
        CHECK(sgd_ckpt_writer_wait(w, &err) == 0);
    }
    sgd_ckpt_meta_t got;
    uint8_t *file;
    const uint8_t *p;
    size_t n;
    CHECK(sgd_ckpt_read(path, &got, &file, &p, &n, &err) == 0);
    CHECK_INT_EQ(got.updates, 4);
    CHECK(n == 1u << 20 && p[5] == (uint8_t)(5 * 131u + 4));
    free(file);
    sgd_ckpt_writer_destroy(w);
    unlink(path);
    CHECK_INT_EQ(entries(dir), 0); /* no temporary file left beside it */
}

/* A write that fails is reported by wait with the file's name; nothing is left behind. */
static void test_failure(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/missing/x.ckpt", dir);
    sgd_ckpt_writer_t *w = sgd_ckpt_writer_create();
    sgd_ckpt_meta_t m = sample_meta(1);
    sgd_ckpt_writer_start(w, path, &m, payload_of(4096, 1), 4096);
    sgd_err_t err = {{0}};
    CHECK(sgd_ckpt_writer_wait(w, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, path);
    CHECK_STR_CONTAINS(err.msg, "cannot write");
    CHECK(!sgd_ckpt_writer_busy(w));
    sgd_ckpt_writer_destroy(w);
    CHECK_INT_EQ(entries(dir), 0);
}

/* A written payload comes back once, after wait, for the next checkpoint to be serialised
 * into; the file then holds what was serialised there.  A payload nobody reclaims is freed by
 * the next start or by destroy (the sanitizer build's leak check would see it otherwise). */
static void test_reclaim(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/again.ckpt", dir);
    sgd_ckpt_writer_t *w = sgd_ckpt_writer_create();
    sgd_err_t err = {{0}};
    size_t n = 1;
    CHECK(!sgd_ckpt_writer_reclaim(w, &n) && n == 0); /* nothing written yet */
    uint8_t *p = payload_of(4096, 1);
    sgd_ckpt_meta_t m = sample_meta(1);
    sgd_ckpt_writer_start(w, path, &m, p, 4096);
    CHECK(!sgd_ckpt_writer_reclaim(w, &n) && n == 0); /* in flight */
    CHECK(sgd_ckpt_writer_wait(w, &err) == 0);
    uint8_t *back = sgd_ckpt_writer_reclaim(w, &n);
    CHECK(back == p && n == 4096);
    CHECK(!sgd_ckpt_writer_reclaim(w, &n) && n == 0); /* once */
    for (size_t i = 0; i < 4096; i++) back[i] = (uint8_t)(i * 131u + 9);
    m = sample_meta(2);
    sgd_ckpt_writer_start(w, path, &m, back, 4096);
    CHECK(sgd_ckpt_writer_wait(w, &err) == 0);
    sgd_ckpt_meta_t got;
    uint8_t *file;
    const uint8_t *q;
    CHECK(sgd_ckpt_read(path, &got, &file, &q, &n, &err) == 0);
    CHECK(got.updates == 2 && n == 4096 && q[5] == (uint8_t)(5 * 131u + 9));
    free(file);
    m = sample_meta(3);
    sgd_ckpt_writer_start(w, path, &m, payload_of(4096, 3), 4096); /* `back` freed here */
    CHECK(sgd_ckpt_writer_wait(w, &err) == 0);
    sgd_ckpt_writer_destroy(w); /* and the last payload here */
    unlink(path);
}

static pthread_t owner;
static volatile sig_atomic_t handled, handled_elsewhere;

static void on_usr1(int sig)
{
    (void)sig;
    handled = 1;
    if (!pthread_equal(pthread_self(), owner)) handled_elsewhere = 1;
}

/* SIGUSR1 sent while a write is in flight and the owner blocks it: it stays pending for the
 * owner (the writer's thread blocks every signal) and is handled once the owner unblocks. */
static void test_signals_reach_the_owner(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/sig.ckpt", dir);
    owner = pthread_self();
    signal(SIGUSR1, on_usr1);
    sgd_ckpt_writer_t *w = sgd_ckpt_writer_create();
    sgd_ckpt_meta_t m = sample_meta(9);
    sgd_ckpt_writer_start(w, path, &m, payload_of(PAYLOAD_BYTES, 2), PAYLOAD_BYTES);
    sigset_t usr1, old;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, &old);
    bool in_flight = !sgd_ckpt_writer_ended(w);
    kill(getpid(), SIGUSR1);
    sgd_err_t err = {{0}};
    CHECK(sgd_ckpt_writer_wait(w, &err) == 0);
    if (!in_flight) fprintf(stderr, "note: the write had ended before the signal was sent\n");
    CHECK(!handled_elsewhere);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    CHECK(handled);
    signal(SIGUSR1, SIG_DFL);
    sgd_ckpt_writer_destroy(w);
    unlink(path);
}

/* destroy with a write in flight waits for it: the file is whole afterwards. */
static void test_destroy_waits(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/destroy.ckpt", dir);
    sgd_ckpt_writer_t *w = sgd_ckpt_writer_create();
    sgd_ckpt_meta_t m = sample_meta(5);
    sgd_ckpt_writer_start(w, path, &m, payload_of(PAYLOAD_BYTES, 3), PAYLOAD_BYTES);
    sgd_ckpt_writer_destroy(w);
    sgd_ckpt_meta_t got;
    uint8_t *file;
    const uint8_t *p;
    size_t n;
    sgd_err_t err = {{0}};
    CHECK(sgd_ckpt_read(path, &got, &file, &p, &n, &err) == 0);
    CHECK(n == PAYLOAD_BYTES);
    free(file);
    unlink(path);
    CHECK_INT_EQ(entries(dir), 0);
}

int main(void)
{
    char dir[] = "/tmp/sgdsim-ckptw-XXXXXX";
    SGD_ASSERT(mkdtemp(dir));
    test_same_bytes(dir);
    test_in_a_row(dir);
    test_failure(dir);
    test_reclaim(dir);
    test_signals_reach_the_owner(dir);
    test_destroy_waits(dir);
    rmdir(dir);
    return check_exit();
}
