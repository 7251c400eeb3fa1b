/* The metric table (common/metric.h) and docs/results.md's list of metric names: every name
 * once, every field filled, each plot label the name followed by what it is; look-ups by
 * name; and the docs' "Metric names" table holds exactly the table's rows, in its order,
 * with the same unit, direction, clock, aggregation and meaning.
 *   test_common_metric DOCS_RESULTS_MD */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/metric.h"
#include "tests/check.h"

static void check_table(void)
{
    size_t n = sgd_metric_count();
    CHECK(n > 0);
    for (size_t i = 0; i < n; i++) {
        const sgd_metric_t *m = &sgd_metrics[i];
        CHECK(m->name[0] && m->unit && m->meaning[0]);
        CHECK(sgd_metric_find(m->name) == m); /* once: the look-up finds this line */
        size_t len = strlen(m->name);
        CHECK(strncmp(m->label, m->name, len) == 0 && strncmp(m->label + len, ": ", 2) == 0);
        CHECK(m->agg != SGD_METRIC_RUN || m->needs_clock); /* vtime_s: the run's clock */
    }
    CHECK(sgd_metric_find("no_such_metric") == NULL);
    CHECK(sgd_metric_find(NULL) == NULL);
    CHECK(!sgd_metric_needs_clock("no_such_metric"));
    CHECK(sgd_metric_needs_clock("images_per_s"));
    CHECK(!sgd_metric_needs_clock("val_error"));
    CHECK_INT_EQ(sgd_metric_find("val_error")->better, SGD_METRIC_LOWER);
}

/* The cells of one markdown table row "| a | b |", trimmed, into cell[] (at most max; the
 * line is cut in place). */
static int split_row(char *line, char **cell, int max)
{
    int n = 0;
    for (char *p = strchr(line, '|'), *end; p && n < max && (end = strchr(p + 1, '|')); p = end) {
        char *c = p + 1;
        *end = '\0';
        while (*c == ' ') c++;
        for (char *e = c + strlen(c); e > c && e[-1] == ' ';) *--e = '\0';
        cell[n++] = c;
    }
    return n;
}

static void check_docs(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f) return;
    static const char *const better[] = {"—", "lower", "higher"};
    static const char *const agg[] = {"window", "last", "run"};
    char line[4096];
    bool in_section = false, in_table = false;
    size_t row = 0, n = sgd_metric_count();
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "### ", 4) == 0) in_section = strcmp(line, "### Metric names") == 0;
        if (!in_section) continue;
        if (strncmp(line, "| name |", 8) == 0) {
            in_table = true;
            continue;
        }
        if (!in_table || strncmp(line, "|---", 4) == 0) continue;
        if (line[0] != '|') break;
        char copy[4096], *cell[8];
        snprintf(copy, sizeof copy, "%s", line);
        int nc = split_row(copy, cell, 8);
        CHECK_INT_EQ(nc, 6);
        if (nc != 6) continue;
        if (row >= n) {
            fprintf(stderr, "%s: a row the metric table does not hold: %s\n", path, line);
            CHECK(row < n);
            row++;
            continue;
        }
        const sgd_metric_t *m = &sgd_metrics[row++];
        char name[128];
        snprintf(name, sizeof name, "`%s`", m->name);
        CHECK_STR_EQ(cell[0], name);
        CHECK_STR_EQ(cell[1], m->unit[0] ? m->unit : "—");
        CHECK_STR_EQ(cell[2], better[m->better]);
        CHECK_STR_EQ(cell[3], m->needs_clock ? "yes" : "no");
        CHECK_STR_EQ(cell[4], agg[m->agg]);
        CHECK_STR_EQ(cell[5], m->meaning);
    }
    fclose(f);
    CHECK(in_table);
    if (row != n) fprintf(stderr, "%s: %zu metric rows, the table has %zu\n", path, row, n);
    CHECK_INT_EQ(row, n);
}

int main(int argc, char **argv)
{
    check_table();
    CHECK(argc == 2);
    if (argc == 2) check_docs(argv[1]);
    return check_exit();
}
