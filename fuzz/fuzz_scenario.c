/* libFuzzer target: the scenario loader.  Any byte string must load or be refused with a
 * message — never crash, hang, leak or trip a sanitizer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/alg.h"
#include "fuzz/fuzz_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load_text(text, "fuzz.json", ".", NULL, 0, NULL, alg_scenario_table, &s, &err) == 0)
        scn_free(&s);
    else if (!err.msg[0])
        abort(); /* every refusal must say why */
    free(text);
    return 0;
}
