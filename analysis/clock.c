/* Whether a run has a clock (clock.h). */
#include "analysis/clock.h"

#include <string.h>

#include <cJSON.h>

/* The parameter-server family (algorithms/ps.c), whose `driver` defaults to "uniform". */
static const char *const ps_family[] = {"sasgd", "fasgd", "bfasgd", "downpour", "hardsync",
                                        NULL};

static bool in_ps_family(const cJSON *name)
{
    if (!cJSON_IsString(name)) return false;
    for (int i = 0; ps_family[i]; i++)
        if (strcmp(name->valuestring, ps_family[i]) == 0) return true;
    return false;
}

bool ana_run_has_clock(const char *config_json)
{
    cJSON *c = config_json ? cJSON_Parse(config_json) : NULL;
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(c, "algorithm");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(alg, "name");
    const cJSON *driver = cJSON_GetObjectItemCaseSensitive(alg, "driver");
    bool uniform = cJSON_IsString(driver) ? strcmp(driver->valuestring, "uniform") == 0
                                          : in_ps_family(name);
    bool has = !cJSON_IsObject(c) || !uniform;
    cJSON_Delete(c);
    return has;
}
