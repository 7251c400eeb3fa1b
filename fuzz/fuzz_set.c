/* libFuzzer target: the --set override parser.  The input is split into lines, each one
 * `--set` assignment applied to a small valid scenario; the loader must apply or refuse
 * them with a message, whatever they contain. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/alg.h"
#include "fuzz/fuzz_text.h"

#define MAX_SETS 16

static const char *base =
    "{\"schema_version\": 1, \"cluster\": {\"workers\": 2}, \"model\": {\"hidden\": [8]},"
    " \"io\": {\"time_s\": {\"dist\": \"gamma\", \"mean\": 0.001, \"cv\": 0.5}}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    scn_override_t sets[MAX_SETS];
    int n = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && n < MAX_SETS;
         line = strtok_r(NULL, "\n", &save))
        sets[n++].assignment = line;
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load_text(base, "fuzz.json", ".", sets, n, NULL, alg_scenario_table, &s, &err) == 0)
        scn_free(&s);
    else if (!err.msg[0])
        abort();
    free(text);
    return 0;
}
