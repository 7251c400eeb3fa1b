/* Whether a run has a clock (clock.h): algorithm.driver "uniform" has none. */
#include "analysis/clock.h"

#include <string.h>

#include <cJSON.h>

/* The driver named by the configuration decides; no driver key means a family without
 * drivers (the synchronous algorithms), which always runs on the clock. */
static bool driver_has_clock(const char *driver)
{
    return !driver || strcmp(driver, "uniform") != 0;
}

bool ana_config_has_clock(const char *config_json)
{
    cJSON *cfg = config_json ? cJSON_Parse(config_json) : NULL;
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(cfg, "algorithm");
    const cJSON *drv = cJSON_GetObjectItemCaseSensitive(alg, "driver");
    bool clock = driver_has_clock(cJSON_IsString(drv) ? drv->valuestring : NULL);
    cJSON_Delete(cfg);
    return clock;
}

bool ana_flat_has_clock(const ana_config_t *c)
{
    const char *drv = ana_config_get(c, "algorithm.driver");
    return driver_has_clock(strcmp(drv, "(absent)") == 0 ? NULL : drv);
}
