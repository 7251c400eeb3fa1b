/* analysis/clock.h: the parameter-server family's uniform driver (explicit or by default)
 * has no clock; its timed driver, the synchronous algorithms and text that says nothing
 * have one. */
#include "analysis/clock.h"
#include "tests/check.h"

int main(void)
{
    CHECK(!ana_run_has_clock("{\"algorithm\":{\"name\":\"fasgd\",\"driver\":\"uniform\"}}"));
    CHECK(!ana_run_has_clock("{\"algorithm\":{\"name\":\"sasgd\"}}"));
    CHECK(!ana_run_has_clock("{\"algorithm\":{\"name\":\"hardsync\",\"c\":4}}"));
    CHECK(ana_run_has_clock("{\"algorithm\":{\"name\":\"fasgd\",\"driver\":\"timed\"}}"));
    CHECK(ana_run_has_clock("{\"algorithm\":{\"name\":\"downpour\",\"driver\":\"timed\"}}"));
    CHECK(ana_run_has_clock("{\"algorithm\":{\"name\":\"csgd\"}}"));
    CHECK(ana_run_has_clock("{\"algorithm\":{\"name\":\"lsgd\"},\"seed\":1}"));
    CHECK(ana_run_has_clock("not json"));
    CHECK(ana_run_has_clock(NULL));
    return check_exit();
}
