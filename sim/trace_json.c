/* The JSON text of a trace (trace_internal.h): strings, exact times, numbers, args, and one
 * event of each kind, appended to a growable buffer that trace.c writes out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/trace_internal.h"

void tr_json_string(sgd_strbuf_t *b, const char *s)
{
    sgd_strbuf_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') sgd_strbuf_printf(b, "\\%c", c);
        else if (c < 0x20) sgd_strbuf_printf(b, "\\u%04x", c);
        else sgd_strbuf_putc(b, (char)c);
    }
    sgd_strbuf_putc(b, '"');
}

/* Microseconds with exactly three decimals from integer nanoseconds (no rounding). */
void tr_json_us(sgd_strbuf_t *b, int64_t ns)
{
    if (ns < 0) {
        sgd_strbuf_puts(b, "-");
        ns = -ns;
    }
    sgd_strbuf_printf(b, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* The shortest of %.15g .. %.17g that reads back as the same double: short for values such
 * as 2.5, exact for all, and a function of the bits only. */
void tr_json_double(sgd_strbuf_t *b, double v)
{
    if (!isfinite(v)) {
        sgd_strbuf_puts(b, "null");
        return;
    }
    char buf[32];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    sgd_strbuf_puts(b, buf);
}

void tr_json_args(sgd_strbuf_t *b, const sim_trace_arg_t *args, int n)
{
    for (int i = 0; i < n; i++) {
        const sim_trace_arg_t *a = &args[i];
        if (i) sgd_strbuf_puts(b, ", ");
        tr_json_string(b, a->key);
        sgd_strbuf_puts(b, ": ");
        switch (a->type) {
        case SIM_TRACE_INT: sgd_strbuf_printf(b, "%lld", (long long)a->i); break;
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

void tr_json_span(sgd_strbuf_t *b, sim_track_kind_t kind, uint32_t id, const char *name,
                  int64_t t0, int64_t t1, const char *args, bool cut)
{
    sgd_strbuf_puts(b, "{\"ph\": \"X\", \"name\": ");
    tr_json_string(b, name);
    sgd_strbuf_printf(b, ", \"cat\": \"%s\", \"pid\": %d, \"tid\": %u, \"ts\": ", tr_kind_name(kind),
                  (int)kind, id);
    tr_json_us(b, t0);
    sgd_strbuf_puts(b, ", \"dur\": ");
    tr_json_us(b, t1 - t0);
    bool any = args && args[0];
    if (any || cut) {
        sgd_strbuf_puts(b, ", \"args\": {");
        if (any) sgd_strbuf_puts(b, args);
        if (cut) sgd_strbuf_puts(b, any ? ", \"cut_at_run_end\": true" : "\"cut_at_run_end\": true");
        sgd_strbuf_puts(b, "}");
    }
    sgd_strbuf_puts(b, "}");
}

/* {"ph": "s"|"f", "name", "cat": "flow", "id", "pid", "tid", "ts"[, "bp": "e"]} */
void tr_json_flow(sgd_strbuf_t *b, char ph, const char *name, uint64_t flow, sim_track_kind_t kind,
                  uint32_t id, int64_t t_ns)
{
    sgd_strbuf_printf(b, "{\"ph\": \"%c\", \"name\": ", ph);
    tr_json_string(b, name);
    sgd_strbuf_printf(b, ", \"cat\": \"flow\", \"id\": %llu, \"pid\": %d, \"tid\": %u, \"ts\": ",
                  (unsigned long long)flow, (int)kind, id);
    tr_json_us(b, t_ns);
    sgd_strbuf_puts(b, ph == 'f' ? ", \"bp\": \"e\"}" : "}");
}

void tr_json_sample(sgd_strbuf_t *b, sim_track_kind_t kind, const char *name, int64_t t_ns,
                    const char *args)
{
    sgd_strbuf_puts(b, "{\"ph\": \"C\", \"name\": ");
    tr_json_string(b, name);
    sgd_strbuf_printf(b, ", \"pid\": %d, \"ts\": ", (int)kind);
    tr_json_us(b, t_ns);
    sgd_strbuf_puts(b, ", \"args\": {");
    sgd_strbuf_puts(b, args);
    sgd_strbuf_puts(b, "}}");
}
