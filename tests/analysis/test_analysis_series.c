/* analysis/series.h without a database: series that hold one configuration are left alone;
 * one that mixes two is split by the key that tells them apart, a key that follows it is
 * left out, the seed and numerics.threads never split, and every mixed series counts. */
#include <stdlib.h>

#include "analysis/series.h"
#include "tests/check.h"

static const char *const fasgd1 =
    "{\"seed\":1,\"algorithm\":{\"name\":\"fasgd\",\"staleness\":\"fred\",\"driver\":\"timed\"},"
    "\"cluster\":{\"workers\":2},\"numerics\":{\"threads\":1}}";
static const char *const fasgd2 =
    "{\"seed\":2,\"algorithm\":{\"name\":\"fasgd\",\"staleness\":\"fred\",\"driver\":\"timed\"},"
    "\"cluster\":{\"workers\":2},\"numerics\":{\"threads\":4}}";
static const char *const sasgd1 =
    "{\"seed\":1,\"algorithm\":{\"name\":\"sasgd\",\"staleness\":\"none\",\"driver\":\"timed\"},"
    "\"cluster\":{\"workers\":2},\"numerics\":{\"threads\":1}}";
static const char *const fasgd1_uniform =
    "{\"seed\":1,\"algorithm\":{\"name\":\"fasgd\",\"staleness\":\"fred\",\"driver\":\"uniform\"},"
    "\"cluster\":{\"workers\":2},\"numerics\":{\"threads\":1}}";

static void one_configuration_is_not_split(void)
{
    const char *cfg[] = {fasgd1, fasgd2, sasgd1};
    int group[] = {0, 0, 1};
    char **keys = (char **)1;
    CHECK_INT_EQ(ana_series_split_keys(cfg, group, 3, &keys), 0);
    CHECK(keys == NULL);
}

static void two_algorithms_split_by_the_name(void)
{
    const char *cfg[] = {fasgd1, sasgd1, fasgd2};
    int group[] = {0, 0, 0};
    char **keys = NULL;
    int n = ana_series_split_keys(cfg, group, 3, &keys);
    CHECK_INT_EQ(n, 1); /* algorithm.staleness follows algorithm.name */
    if (n == 1) CHECK_STR_EQ(keys[0], "algorithm.name");
    char *joined = ana_keys_join(keys, n, ", ");
    CHECK_STR_EQ(joined, "algorithm.name");
    free(joined);
    ana_series_keys_free(keys, n);
}

static void two_drivers_and_two_algorithms(void)
{
    const char *cfg[] = {fasgd1, fasgd1_uniform, sasgd1, fasgd2};
    int group[] = {0, 0, 1, 0}; /* sasgd alone in its series */
    char **keys = NULL;
    int n = ana_series_split_keys(cfg, group, 4, &keys);
    CHECK_INT_EQ(n, 1);
    if (n == 1) CHECK_STR_EQ(keys[0], "algorithm.driver");
    ana_series_keys_free(keys, n);
    int one[] = {0, 0, 0, 0}; /* all in one: the name and the driver both needed */
    n = ana_series_split_keys(cfg, one, 4, &keys);
    CHECK_INT_EQ(n, 2);
    if (n == 2) {
        CHECK_STR_EQ(keys[0], "algorithm.name"); /* the legend's first choices */
        CHECK_STR_EQ(keys[1], "algorithm.driver");
        char *joined = ana_keys_join(keys, n, ", ");
        CHECK_STR_EQ(joined, "algorithm.name, algorithm.driver");
        free(joined);
    }
    ana_series_keys_free(keys, n);
}

static void a_key_only_some_runs_have(void)
{
    const char *cfg[] = {"{\"a\":1}", "{\"a\":1,\"b\":2}"};
    int group[] = {0, 0};
    char **keys = NULL;
    int n = ana_series_split_keys(cfg, group, 2, &keys);
    CHECK_INT_EQ(n, 1);
    if (n == 1) CHECK_STR_EQ(keys[0], "b");
    ana_series_keys_free(keys, n);
}

/* An option one algorithm has and the other lacks (sorted before "name") follows the name. */
static void the_name_before_an_option_of_one_algorithm(void)
{
    const char *cfg[] = {"{\"algorithm\":{\"name\":\"fasgd\"},\"cluster\":{\"workers\":2}}",
                         "{\"algorithm\":{\"decay\":0.9,\"name\":\"sasgd\"},\"cluster\":{\"workers\":2}}",
                         "{\"algorithm\":{\"name\":\"fasgd\"},\"cluster\":{\"workers\":4}}",
                         "{\"algorithm\":{\"decay\":0.9,\"name\":\"sasgd\"},\"cluster\":{\"workers\":4}}"};
    int group[] = {0, 0, 0, 0};
    char **keys = NULL;
    int n = ana_series_split_keys(cfg, group, 4, &keys);
    CHECK_INT_EQ(n, 2);
    if (n == 2) {
        CHECK_STR_EQ(keys[0], "algorithm.name");
        CHECK_STR_EQ(keys[1], "cluster.workers");
    }
    ana_series_keys_free(keys, n);
}

int main(void)
{
    the_name_before_an_option_of_one_algorithm();
    one_configuration_is_not_split();
    two_algorithms_split_by_the_name();
    two_drivers_and_two_algorithms();
    a_key_only_some_runs_have();
    return check_exit();
}
