/* Shared by the libFuzzer targets that read their input as text: the bytes as a
 * NUL-terminated string (malloc'ed; NULL when out of memory, which the target skips). */
#ifndef SGDSIM_FUZZ_FUZZ_TEXT_H
#define SGDSIM_FUZZ_FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return NULL;
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

#endif
