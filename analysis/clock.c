/* Whether a run has a clock (clock.h): its record, else its configuration's driver. */
#include "analysis/clock.h"

#include <string.h>

#include <cJSON.h>

bool ana_config_has_clock(const char *config_json)
{
    cJSON *cfg = config_json ? cJSON_Parse(config_json) : NULL;
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(cfg, "algorithm");
    const cJSON *drv = cJSON_GetObjectItemCaseSensitive(alg, "driver");
    bool clock = !cJSON_IsString(drv) || strcmp(drv->valuestring, "uniform") != 0;
    cJSON_Delete(cfg);
    return clock;
}

bool ana_clock_of(int recorded, const char *config_json)
{
    return recorded >= 0 ? recorded != 0 : ana_config_has_clock(config_json);
}

bool ana_run_has_clock(const rdb_run_row_t *row)
{
    return ana_clock_of(row->clock_recorded ? (int)row->has_clock : -1, row->config_json);
}
