/* web/seed_list.h, and what web/study.h and web/model_json.h say of a run's progress and a
 * group's seeds: seeds as a count and compact ranges (one seed, a range, pairs, gaps, a long
 * list cut to its first pieces and its last, any order, negative seeds); a running run's last
 * update with rows and its stop.updates, in the study and in the data model, next to a
 * finished group of seeds 1-3, 7 and 9 whose legend text is "5 seeds: 1–3, 7, 9". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/rdb.h"
#include "tests/check.h"
#include "web/model_json.h"
#include "web/seed_list.h"
#include "web/study.h"
#include "web/verdicts.h"

static void check_list(const int64_t *seeds, int n, const char *want)
{
    char *got = web_seed_list(seeds, n);
    CHECK(got != NULL);
    if (!got) return;
    if (strcmp(got, want) != 0) fprintf(stderr, "seeds: got \"%s\", want \"%s\"\n", got, want);
    CHECK_STR_EQ(got, want);
    free(got);
}

static void check_seed_lists(void)
{
    int64_t forty[40], odd[20];
    for (int i = 0; i < 40; i++) forty[i] = 40 - i; /* any order */
    for (int i = 0; i < 20; i++) odd[i] = 2 * i + 1;
    check_list(forty, 40, "40 seeds: 1\u201340");
    check_list((const int64_t[]){4}, 1, "seed 4");
    check_list((const int64_t[]){1, 2}, 2, "2 seeds: 1, 2");
    check_list((const int64_t[]){9, 1, 2, 3, 7}, 5, "5 seeds: 1\u20133, 7, 9");
    check_list((const int64_t[]){1, 2, 5, 6}, 4, "4 seeds: 1, 2, 5, 6");
    check_list(odd, 20, "20 seeds: 1, 3, 5, 7, \u2026, 39");
    check_list((const int64_t[]){1, 2, 3, 10, 11, 12, 20, 30, 40, 50, 60, 70, 71, 72}, 14,
               "14 seeds: 1\u20133, 10\u201312, 20, 30, \u2026, 70\u201372");
    check_list((const int64_t[]){-2, -1, 0, 5}, 4, "4 seeds: -2\u20130, 5");
    check_list((const int64_t[]){INT64_MIN, INT64_MAX}, 2,
               "2 seeds: -9223372036854775808, 9223372036854775807");
    CHECK(web_seed_list(NULL, 0) == NULL);
}

/* A run of configuration config and seed: metric "loss" at updates 0, 10, .., last; ended
 * complete unless running. */
static void write_run(rdb_t *db, const char *config, int64_t seed, int last, bool running)
{
    sgd_err_t err = {{0}};
    rdb_run_info_t info = {.run_key = config, .scenario_name = "s", .algorithm = "csgd",
                           .workers = 2, .seed = (uint64_t)seed, .config_json = config,
                           .config_hash = "h"};
    int64_t id;
    CHECK(rdb_run_begin(db, &info, &id, &err) == 0);
    for (int u = 0; u <= last; u += 10)
        CHECK(rdb_metric(db, id, u, (int64_t)u * 1000, "loss", 1.0 / (1 + u), &err) == 0);
    if (running) {
        CHECK(rdb_flush(db, &err) == 0);
        return;
    }
    rdb_run_end_t end = {.status = "complete", .vtime_ns = (int64_t)last * 1000,
                         .updates = last};
    CHECK(rdb_run_end(db, id, &end, &err) == 0);
}

static void check_study(const char *path)
{
    rdb_t *db;
    sgd_err_t err = {{0}};
    unlink(path);
    CHECK(rdb_open(path, &db, &err) == 0);
    const char *a = "{\"optimizer\":{\"lr\":0.1},\"stop\":{\"updates\":50},\"seed\":1}";
    const int64_t seeds[] = {9, 1, 2, 3, 7};
    for (int i = 0; i < 5; i++) write_run(db, a, seeds[i], 50, false);
    const char *b = "{\"optimizer\":{\"lr\":0.2},\"stop\":{\"updates\":100},\"seed\":1}";
    write_run(db, b, 1, 40, true); /* rows up to update 40 of 100 committed */
    web_study_t s;
    CHECK(web_study_load((const char *const[]){path}, 1, false, &s, &err) == 0);
    CHECK_INT_EQ(s.nruns, 6);
    CHECK_INT_EQ(s.ngroups, 2);
    const web_run_t *r = &s.run[5];
    CHECK_STR_EQ(r->status, "running");
    CHECK(r->has_last_update && r->last_update == 40);
    CHECK(r->has_stop_updates && r->stop_updates == 100);
    CHECK_STR_EQ(s.group[0].seeds, "5 seeds: 1\u20133, 7, 9");
    CHECK_STR_EQ(s.group[1].seeds, "seed 1");

    sgd_strbuf_t data = {0}, series = {0}, exact = {0};
    web_verdicts_t colors = {0};
    web_group_colors(&s, &colors);
    web_model_json(&s, &colors, &(web_model_opts_t){.generator = "test", .columns = 10}, &data,
                   &series, &exact);
    web_verdicts_free(&colors);
    CHECK_STR_CONTAINS(data.p, "\"status\":\"running\"");
    CHECK_STR_CONTAINS(data.p, "\"last_update\":40,\"stop_updates\":100");
    CHECK_STR_CONTAINS(data.p, "\"last_update\":50,\"stop_updates\":50");
    CHECK_STR_CONTAINS(data.p, "\"seedsText\":\"5 seeds: 1\u20133, 7, 9\"");
    sgd_strbuf_free(&data), sgd_strbuf_free(&series), sgd_strbuf_free(&exact);
    web_study_free(&s);
    rdb_close(db);
}

int main(void)
{
    check_seed_lists();
    char path[] = "/tmp/test_web_progress_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    check_study(path);
    unlink(path);
    return check_exit();
}
