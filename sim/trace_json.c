/* The JSON text of a trace (trace_internal.h): strings, exact times, numbers, args, and one
 * event of each kind, appended to a growable buffer that trace.c writes out. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "sim/trace_internal.h"

static void reserve(tr_buf_t *b, size_t more)
{
    if (b->len + more + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1) cap *= 2;
    b->s = sgd_xrealloc(b->s, cap);
    b->cap = cap;
}

void tr_buf_puts(tr_buf_t *b, const char *s)
{
    size_t n = strlen(s);
    reserve(b, n);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void tr_buf_printf(tr_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[128];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    SGD_ASSERT(n >= 0);
    if ((size_t)n < sizeof small) {
        tr_buf_puts(b, small);
        return;
    }
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void tr_buf_free(tr_buf_t *b)
{
    free(b->s);
    *b = (tr_buf_t){0};
}

void tr_json_string(tr_buf_t *b, const char *s)
{
    reserve(b, strlen(s) + 2);
    b->s[b->len++] = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') tr_buf_printf(b, "\\%c", c);
        else if (c < 0x20) tr_buf_printf(b, "\\u%04x", c);
        else {
            reserve(b, 1);
            b->s[b->len++] = (char)c;
        }
    }
    reserve(b, 1);
    b->s[b->len++] = '"';
    b->s[b->len] = '\0';
}

/* Microseconds with exactly three decimals from integer nanoseconds (no rounding). */
void tr_json_us(tr_buf_t *b, int64_t ns)
{
    if (ns < 0) {
        tr_buf_puts(b, "-");
        ns = -ns;
    }
    tr_buf_printf(b, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* The shortest of %.15g .. %.17g that reads back as the same double: short for values such
 * as 2.5, exact for all, and a function of the bits only. */
void tr_json_double(tr_buf_t *b, double v)
{
    if (!isfinite(v)) {
        tr_buf_puts(b, "null");
        return;
    }
    char buf[32];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    tr_buf_puts(b, buf);
}

void tr_json_args(tr_buf_t *b, const sim_trace_arg_t *args, int n)
{
    for (int i = 0; i < n; i++) {
        const sim_trace_arg_t *a = &args[i];
        if (i) tr_buf_puts(b, ", ");
        tr_json_string(b, a->key);
        tr_buf_puts(b, ": ");
        switch (a->type) {
        case SIM_TRACE_INT: tr_buf_printf(b, "%lld", (long long)a->i); break;
        case SIM_TRACE_DOUBLE: tr_json_double(b, a->d); break;
        case SIM_TRACE_STR: tr_json_string(b, a->s); break;
        }
    }
}

const char *tr_kind_name(sim_track_kind_t k)
{
    switch (k) {
    case SIM_TRACK_WORKER: return "worker";
    case SIM_TRACK_SERVER: return "server";
    case SIM_TRACK_LINK: return "link";
    case SIM_TRACK_COMMUNICATOR: return "communicator";
    }
    return "track";
}

void tr_json_span(tr_buf_t *b, sim_track_kind_t kind, uint32_t id, const char *name,
                  int64_t t0, int64_t t1, const char *args, bool cut)
{
    tr_buf_puts(b, "{\"ph\": \"X\", \"name\": ");
    tr_json_string(b, name);
    tr_buf_printf(b, ", \"cat\": \"%s\", \"pid\": %d, \"tid\": %u, \"ts\": ", tr_kind_name(kind),
                  (int)kind, id);
    tr_json_us(b, t0);
    tr_buf_puts(b, ", \"dur\": ");
    tr_json_us(b, t1 - t0);
    bool any = args && args[0];
    if (any || cut) {
        tr_buf_puts(b, ", \"args\": {");
        if (any) tr_buf_puts(b, args);
        if (cut) tr_buf_puts(b, any ? ", \"cut_at_run_end\": true" : "\"cut_at_run_end\": true");
        tr_buf_puts(b, "}");
    }
    tr_buf_puts(b, "}");
}

/* {"ph": "s"|"f", "name", "cat": "flow", "id", "pid", "tid", "ts"[, "bp": "e"]} */
void tr_json_flow(tr_buf_t *b, char ph, const char *name, uint64_t flow, sim_track_kind_t kind,
                  uint32_t id, int64_t t_ns)
{
    tr_buf_printf(b, "{\"ph\": \"%c\", \"name\": ", ph);
    tr_json_string(b, name);
    tr_buf_printf(b, ", \"cat\": \"flow\", \"id\": %llu, \"pid\": %d, \"tid\": %u, \"ts\": ",
                  (unsigned long long)flow, (int)kind, id);
    tr_json_us(b, t_ns);
    tr_buf_puts(b, ph == 'f' ? ", \"bp\": \"e\"}" : "}");
}

void tr_json_sample(tr_buf_t *b, sim_track_kind_t kind, const char *name, int64_t t_ns,
                    const char *args)
{
    tr_buf_puts(b, "{\"ph\": \"C\", \"name\": ");
    tr_json_string(b, name);
    tr_buf_printf(b, ", \"pid\": %d, \"ts\": ", (int)kind);
    tr_json_us(b, t_ns);
    tr_buf_puts(b, ", \"args\": {");
    tr_buf_puts(b, args);
    tr_buf_puts(b, "}}");
}
