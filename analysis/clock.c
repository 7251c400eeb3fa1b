/* Whether a run has a clock (clock.h): algorithm.driver "uniform" has none, and so has the
 * parameter-server family without a driver key (its default). */
#include "analysis/clock.h"

#include <string.h>

#include <cJSON.h>

/* The parameter-server family (algorithms/ps.c), whose `driver` defaults to "uniform". */
static const char *const ps_family[] = {"sasgd", "fasgd", "bfasgd", "downpour", "hardsync",
                                        NULL};

static bool in_ps_family(const char *name)
{
    for (int i = 0; name && ps_family[i]; i++)
        if (strcmp(name, ps_family[i]) == 0) return true;
    return false;
}

/* The driver named by the configuration decides; without one, the family's default. */
static bool has_clock(const char *name, const char *driver)
{
    return driver ? strcmp(driver, "uniform") != 0 : !in_ps_family(name);
}

bool ana_config_has_clock(const char *config_json)
{
    cJSON *cfg = config_json ? cJSON_Parse(config_json) : NULL;
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(cfg, "algorithm");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(alg, "name");
    const cJSON *drv = cJSON_GetObjectItemCaseSensitive(alg, "driver");
    bool clock = !cJSON_IsObject(cfg) ||
                 has_clock(cJSON_IsString(name) ? name->valuestring : NULL,
                           cJSON_IsString(drv) ? drv->valuestring : NULL);
    cJSON_Delete(cfg);
    return clock;
}

bool ana_flat_has_clock(const ana_config_t *c)
{
    const char *name = ana_config_get(c, "algorithm.name");
    const char *drv = ana_config_get(c, "algorithm.driver");
    return has_clock(strcmp(name, "(absent)") == 0 ? NULL : name,
                     strcmp(drv, "(absent)") == 0 ? NULL : drv);
}
