/* analysis/clock.h: the parameter-server family's uniform driver has no clock, whether named
 * or left as the family's default; timed runs, the synchronous algorithms and configurations
 * that are not JSON have one; the JSON and flattened forms agree. */
#include "analysis/clock.h"
#include "tests/check.h"

static void check_both(const char *json, bool want)
{
    ana_config_t c;
    ana_config_flatten(json, &c);
    CHECK(ana_config_has_clock(json) == want);
    CHECK(ana_flat_has_clock(&c) == want);
    ana_config_free(&c);
}

int main(void)
{
    check_both("{\"algorithm\":{\"name\":\"fasgd\",\"driver\":\"uniform\"}}", false);
    check_both("{\"algorithm\":{\"name\":\"sasgd\"}}", false);
    check_both("{\"algorithm\":{\"name\":\"hardsync\",\"c\":4}}", false);
    check_both("{\"algorithm\":{\"name\":\"fasgd\",\"driver\":\"timed\"}}", true);
    check_both("{\"algorithm\":{\"name\":\"downpour\",\"driver\":\"timed\"}}", true);
    check_both("{\"algorithm\":{\"name\":\"csgd\"}}", true);
    check_both("{\"algorithm\":{\"name\":\"lsgd\"},\"seed\":1}", true);
    check_both("not json", true);
    CHECK(ana_config_has_clock(NULL));
    return check_exit();
}
