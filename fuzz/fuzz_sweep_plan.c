/* libFuzzer target: the sweep planner (sweep/plan.h).  The input is split into lines,
 * each one `sweep --set key=v1,v2,...` list, planned against a small scenario file whose own
 * sweep block has a seed axis (so points are loaded from the JSON without that block).
 * Aborts unless:
 *   - sweep_split either refuses a line with a message, or returns a key and non-empty
 *     values that, joined with commas after "key=", give the line back exactly;
 *   - sweep_plan either refuses with a message, or gives 1 <= points <= combinations,
 *     every point with one assignment per axis, and no run key twice.
 * Inputs whose combinations exceed MAX_POINTS are skipped (each point is a scenario load). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/machine.h"
#include "sweep/plan.h"
#include "fuzz/fuzz_text.h"

#define MAX_SETS 8
#define MAX_POINTS 64

static const char *scenario_text =
    "{\"schema_version\": 1, \"cluster\": {\"workers\": 2}, \"model\": {\"hidden\": [8]},"
    " \"data\": {\"n_train\": 64, \"n_validation\": 16, \"dim\": 4, \"classes\": 2},"
    " \"sweep\": {\"seed\": [1, 2]}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir_path[64], file_path[128];

static void remove_scenario(void)
{
    unlink(file_path);
    rmdir(dir_path);
}

/* The scenario file, written once per process into a private directory removed at exit. */
static const char *scenario_path(void)
{
    if (file_path[0]) return file_path;
    snprintf(dir_path, sizeof dir_path, "/tmp/sgdsim-fuzz-plan-XXXXXX");
    if (!mkdtemp(dir_path)) abort();
    snprintf(file_path, sizeof file_path, "%s/s.json", dir_path);
    FILE *f = fopen(file_path, "w");
    if (!f || fputs(scenario_text, f) < 0 || fclose(f) != 0) abort();
    atexit(remove_scenario);
    return file_path;
}

/* Splits one line and checks the split; returns its number of values (0 if refused). */
static int check_split(const char *line)
{
    char *key, **values;
    int n;
    sgd_err_t err = {{0}};
    if (sweep_split(line, &key, &values, &n, &err)) {
        if (!err.msg[0]) abort();
        return 0;
    }
    if (n < 1) abort();
    size_t len = strlen(key) + 1;
    for (int i = 0; i < n; i++) {
        if (!values[i][0]) abort();
        len += strlen(values[i]) + 1;
    }
    char *joined = malloc(len + 1);
    if (!joined) abort();
    strcpy(joined, key);
    strcat(joined, "=");
    for (int i = 0; i < n; i++) {
        if (i) strcat(joined, ",");
        strcat(joined, values[i]);
        free(values[i]);
    }
    if (strcmp(joined, line) != 0) abort();
    free(joined);
    free(values);
    free(key);
    return n;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void check_plan(const char *const *sets, int nsets)
{
    static scn_machine_t machine;
    static bool have_machine;
    if (!have_machine) { /* this process's machine, as a sweep resolves its points */
        cli_machine_get(1, &machine);
        have_machine = true;
    }
    const sweep_plan_opts_t o = {.lists = sets, .nlists = nsets, .machine = &machine};
    sweep_plan_t plan;
    sgd_err_t err = {{0}};
    if (sweep_plan(scenario_path(), &o, &plan, &err)) {
        if (!err.msg[0] || plan.points || plan.npoints) abort();
        return;
    }
    if (plan.npoints < 1 || plan.npoints > plan.nproduct) abort();
    const char **keys = malloc((size_t)plan.npoints * sizeof *keys);
    if (!keys) abort();
    for (int p = 0; p < plan.npoints; p++) {
        if (plan.points[p].nsets != plan.naxes || !plan.points[p].label) abort();
        keys[p] = plan.points[p].run_key;
    }
    qsort(keys, (size_t)plan.npoints, sizeof *keys, cmp_key);
    for (int p = 1; p < plan.npoints; p++)
        if (strcmp(keys[p - 1], keys[p]) == 0) abort();
    free(keys);
    sweep_plan_free(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    const char *sets[MAX_SETS];
    int n = 0;
    int64_t product = 2; /* the file's seed axis; a seed line replaces it, counted anyway */
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && n < MAX_SETS;
         line = strtok_r(NULL, "\n", &save)) {
        int nv = check_split(line);
        if (nv > 0) product *= nv;
        if (product > MAX_POINTS) product = MAX_POINTS + 1;
        sets[n++] = line;
    }
    if (product <= MAX_POINTS) check_plan(sets, n);
    free(text);
    return 0;
}
