/* The decoded-dataset cache (models/data_cache.h): a disabled cache writes nothing; an
 * unusable directory gives one warning and correct data; a source that is not a regular file
 * is refused; the directory is chosen in the documented order; two processes building the
 * same entries at once leave valid entries; and the real Fashion-MNIST files give the same
 * bits cached and decoded.  Its loads and damaged entries: test_models_data_cache.c.  Scratch
 * files live in a fresh temporary directory (data_cache_fixture.h). */
#include "tests/models/data_cache_fixture.h"

/* ---- settings and environments --------------------------------------------------------- */

static void test_disabled_writes_nothing(void)
{
    char *dir = keep_path("never");
    FILE *w = tmpfile();
    dcache_t c;
    dcache_init(&c, false, dir, w);
    CHECK(c.dir == NULL);
    bool mapped;
    load_and_check(&c, &mapped);
    CHECK(!mapped);
    CHECK_INT_EQ(c.stores + c.hits, 0);
    struct stat st;
    CHECK(stat(dir, &st) != 0); /* not even created */
    /* Likewise SGDSIM_CACHE_DIR=off when the scenario names no directory. */
    setenv(DCACHE_ENV_DIR, "off", 1);
    dcache_init(&c, true, NULL, w);
    CHECK(c.dir == NULL);
    load_and_check(&c, &mapped);
    CHECK(!mapped);
    unsetenv(DCACHE_ENV_DIR);
    char *said = drain(w);
    CHECK_STR_EQ(said, "");
    free(said);
    fclose(w);
    free(dir);
}

/* A directory below a regular file can never be made (CI runs as root, where chmod does
 * not stop writes); nor can a regular file be used as one. */
static void test_unusable_dir_warns_once(void)
{
    spit(path_of("plain"), (const uint8_t *)"x", 1);
    char *dirs[] = {keep_path("plain/cache"), keep_path("plain")};
    const char *why[] = {"Not a directory", "is not a directory"};
    for (int k = 0; k < 2; k++) {
        FILE *w = tmpfile();
        dcache_t c;
        dcache_init(&c, true, dirs[k], w);
        bool mapped;
        load_and_check(&c, &mapped); /* images and labels: two failed stores */
        load_and_check(&c, &mapped);
        CHECK(!mapped);
        CHECK(c.no_store);
        CHECK_INT_EQ(c.stores, 0);
        char *said = drain(w);
        if (count_lines(said) != 1) fprintf(stderr, "said:\n%s", said);
        CHECK_INT_EQ(count_lines(said), 1);
        CHECK_STR_CONTAINS(said, "sgdsim: warning: data cache: ");
        CHECK_STR_CONTAINS(said, why[k]);
        CHECK_STR_CONTAINS(said, "data is loaded without the cache");
        free(said);
        fclose(w);
        dcache_free(&c);
        free(dirs[k]);
    }
}

/* A source that is not a regular file is read without the cache (the reader's own error). */
static void test_non_regular_source(void)
{
    dcache_t c;
    dcache_init(&c, true, path_of("cache/nonreg"), NULL);
    dcache_array_t a;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(dcache_load_idx(&c, "/dev/null", DCACHE_F32, &a, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "/dev/null: truncated");
    CHECK_INT_EQ(dcache_load_idx(&c, path_of("missing.gz"), DCACHE_F32, &a, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "missing.gz: cannot open");
    struct stat st;
    CHECK(stat(path_of("cache/nonreg"), &st) != 0);
    dcache_free(&c);
}

static void expect_dir(bool enabled, const char *dir, const char *want)
{
    FILE *w = tmpfile();
    dcache_t c;
    dcache_init(&c, enabled, dir, w);
    if (want)
        CHECK_STR_EQ(c.dir, want);
    else
        CHECK(c.dir == NULL);
    char *said = drain(w);
    /* Only "no HOME at all" says something. */
    CHECK_INT_EQ(count_lines(said), enabled && !want && !getenv("HOME") ? 1 : 0);
    free(said);
    fclose(w);
    dcache_free(&c);
}

static void test_dir_precedence(void)
{
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    setenv(DCACHE_ENV_DIR, "/env/dir", 1);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    setenv("HOME", "/home/u", 1);
    expect_dir(false, "/scn", NULL);        /* data.cache false wins */
    expect_dir(true, "/scn", "/scn");       /* then data.cache_dir */
    expect_dir(true, NULL, "/env/dir");     /* then the environment */
    expect_dir(true, "", "/env/dir");
    setenv(DCACHE_ENV_DIR, "off", 1);
    expect_dir(true, NULL, NULL);
    expect_dir(true, "/scn", "/scn");       /* a scenario's directory beats "off" */
    setenv(DCACHE_ENV_DIR, "", 1);          /* empty = unset */
    expect_dir(true, NULL, "/xdg/sgdsim");
    setenv("XDG_CACHE_HOME", "rel", 1);     /* relative: ignored, as the XDG spec says */
    expect_dir(true, NULL, "/home/u/.cache/sgdsim");
    unsetenv("XDG_CACHE_HOME");
    expect_dir(true, NULL, "/home/u/.cache/sgdsim");
    unsetenv("HOME");
    expect_dir(true, NULL, NULL);           /* nowhere: off, with one warning */
    unsetenv(DCACHE_ENV_DIR);
    if (home) setenv("HOME", home, 1);
    if (xdg) setenv("XDG_CACHE_HOME", xdg, 1);
    free(home), free(xdg);
}

/* ---- concurrency ------------------------------------------------------------------------- */

/* A child: waits for the start signal, then 20 times deletes the entries (every other time,
 * taking turns with the other child) and loads, so that each builds them again and again
 * while the other reads or builds too.  Every load must give the right data and never meet
 * a partial entry (it would be rejected, or fault on a mapping cut short). */
static _Noreturn void builder(int start_fd, const char *dir, int id, char *const entries[2])
{
    char go;
    if (read(start_fd, &go, 1) < 0) _exit(2);
    for (int k = 0; k < 20; k++) {
        if (k % 2 == id) unlink(entries[0]), unlink(entries[1]);
        dcache_t c;
        dcache_init(&c, true, dir, stderr);
        bool mapped;
        load_and_check(&c, &mapped);
        CHECK_INT_EQ(c.rejected, 0);
        CHECK(!c.no_store);
        dcache_free(&c);
    }
    _exit(check_failures ? 1 : 0);
}

static void test_two_processes_build_at_once(void)
{
    char *dir = keep_path("cache/race");
    dcache_t names;
    dcache_init(&names, true, dir, NULL);
    char *entry[2] = {dcache_entry_path(&names, path_of("img.gz"), DCACHE_F32),
                      dcache_entry_path(&names, path_of("lab"), DCACHE_I32)};
    dcache_free(&names);
    for (int round = 0; round < 3; round++) {
        remove_tree(dir);
        int fds[2];
        CHECK(pipe(fds) == 0);
        fflush(NULL);
        pid_t kids[2];
        for (int k = 0; k < 2; k++) {
            kids[k] = fork();
            CHECK(kids[k] >= 0);
            if (kids[k] == 0) {
                close(fds[1]);
                builder(fds[0], dir, k, entry);
            }
        }
        close(fds[0]);
        close(fds[1]); /* both children's read() returns now */
        for (int k = 0; k < 2; k++) {
            int status = 0;
            CHECK(waitpid(kids[k], &status, 0) == kids[k]);
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        int entries, temps;
        CHECK_INT_EQ(count_files(dir, &entries, &temps), 2);
        CHECK_INT_EQ(entries, 2);
        CHECK_INT_EQ(temps, 0);
        dcache_t c;
        dcache_init(&c, true, dir, NULL);
        bool mapped;
        load_and_check(&c, &mapped);
        CHECK(mapped);
        CHECK_INT_EQ(c.hits, 2);
        CHECK_INT_EQ(c.rejected, 0);
        dcache_free(&c);
    }
    free(dir), free(entry[0]), free(entry[1]);
}

/* ---- the real data ----------------------------------------------------------------------- */

/* Fashion-MNIST's test set, when installed: cached (miss, then hit) equals uncached. */
static void test_fashion_mnist_bits(void)
{
    const char *img = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
    const char *lab = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";
    if (access(img, R_OK) != 0 || access(lab, R_OK) != 0) {
        printf("fashion-mnist not installed: its part skipped\n");
        return;
    }
    sgd_dataset_t plain, cached;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(dataset_load_idx(img, lab, &plain, NULL, &err), 0);
    dcache_t c;
    dcache_init(&c, true, path_of("cache/fm"), NULL);
    for (int pass = 0; pass < 2; pass++) {
        CHECK_INT_EQ(dataset_load_idx_cached(img, lab, &c, &cached, NULL, &err), 0);
        CHECK_INT_EQ(cached.n, plain.n);
        CHECK(memcmp(cached.x, plain.x, sizeof(float) * (size_t)(plain.n * plain.dim)) == 0);
        CHECK(memcmp(cached.y, plain.y, sizeof(int32_t) * (size_t)plain.n) == 0);
        CHECK_INT_EQ(c.hits, 2 * pass);
        dataset_free(&cached);
    }
    CHECK_INT_EQ(c.hits, 2);
    dcache_free(&c);
    dataset_free(&plain);
}

int main(void)
{
    if (fixture_begin()) return 1;
    test_disabled_writes_nothing();
    test_unusable_dir_warns_once();
    test_non_regular_source();
    test_dir_precedence();
    test_two_processes_build_at_once();
    test_fashion_mnist_bits();
    fixture_end();
    return check_exit();
}
