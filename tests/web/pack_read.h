/* Reading a series pack (web/pack.h) back in a test as the page does (web/pack.js):
 * inflating its gzip bytes and taking an element out of a section stored byte plane by
 * byte plane. */
#ifndef SGDSIM_TESTS_WEB_PACK_READ_H
#define SGDSIM_TESTS_WEB_PACK_READ_H

#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "common/strbuf.h"

/* The gzip-compressed bytes gz inflated into out; -1 when they are not gzip. */
static inline int webt_gunzip(const sgd_strbuf_t *gz, sgd_strbuf_t *out)
{
    z_stream z = {0};
    unsigned char buf[1 << 14];
    if (inflateInit2(&z, 15 + 16) != Z_OK) return -1;
    z.next_in = (unsigned char *)gz->p;
    z.avail_in = (uInt)gz->n;
    int rc;
    do {
        z.next_out = buf;
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        sgd_strbuf_put(out, buf, sizeof buf - z.avail_out);
    } while (rc == Z_OK);
    inflateEnd(&z);
    return rc == Z_STREAM_END ? 0 : -1;
}

/* Element i of count elements of w bytes stored as byte planes at p, as a double. */
static inline double webt_element(const unsigned char *p, size_t count, size_t i, int w)
{
    uint64_t bits = 0;
    for (int b = 0; b < w; b++) bits |= (uint64_t)p[(size_t)b * count + i] << (8 * b);
    if (w == 8) {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    uint32_t b32 = (uint32_t)bits;
    float f;
    memcpy(&f, &b32, 4);
    return f;
}

#endif
