/* analysis/clock.h: a run's recorded answer (runs.has_clock) wins; without one, the resolved
 * configuration's driver decides -- "uniform" has no clock whatever the algorithm is called
 * (b-fasgd and dc-asgd included, which a list of names once missed), timed and driverless
 * configurations have one, and so has text that is not JSON; a summary row reads its record,
 * or its configuration when it has none. */
#include "analysis/clock.h"
#include "tests/check.h"

static void check_config(const char *json, bool want)
{
    CHECK(ana_config_has_clock(json) == want);
    CHECK(ana_clock_of(-1, json) == want);
    CHECK(ana_clock_of(1, json));  /* a record wins over the configuration */
    CHECK(!ana_clock_of(0, json));
}

int main(void)
{
    /* the two a list of names once missed, and one no list can hold yet */
    static const char *const family[] = {"b-fasgd", "dc-asgd", "a-rule-yet-to-come"};
    char json[256];
    for (size_t i = 0; i < sizeof family / sizeof *family; i++) {
        snprintf(json, sizeof json, "{\"algorithm\":{\"name\":\"%s\",\"driver\":\"uniform\"}}",
                 family[i]);
        check_config(json, false);
        snprintf(json, sizeof json, "{\"algorithm\":{\"name\":\"%s\",\"driver\":\"timed\"}}",
                 family[i]);
        check_config(json, true);
    }
    check_config("{\"algorithm\":{\"name\":\"csgd\"}}", true);
    check_config("{\"algorithm\":{\"name\":\"lsgd\"},\"seed\":1}", true);
    check_config("not json", true);
    CHECK(ana_config_has_clock(NULL));

    rdb_run_row_t row = {.config_json = "{\"algorithm\":{\"name\":\"b-fasgd\",\"driver\":"
                                        "\"uniform\"}}"};
    CHECK(!ana_run_has_clock(&row)); /* not recorded: the configuration's driver */
    row.clock_recorded = true, row.has_clock = 1;
    CHECK(ana_run_has_clock(&row));
    row.config_json = "{\"algorithm\":{\"name\":\"csgd\"}}", row.has_clock = 0;
    CHECK(!ana_run_has_clock(&row));
    return check_exit();
}
