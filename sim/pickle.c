/* The data-only pickle reader declared in pickle.h: a loop over opcodes with a value stack,
 * a MARK stack, a memo and a table of containers.  Opcode values and meanings are those of
 * CPython's Lib/pickletools.py. */
#include "sim/pickle.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A list's items, or a dict's keys and values alternating (its type is in its handles). */
typedef struct container {
    sim_pickle_val_t *v;
    uint32_t n, cap;
} container_t;

struct sim_pickle {
    const uint8_t *buf;
    container_t *cont;
    uint32_t ncont, capcont;
    sim_pickle_val_t root;
};

/* The parser's working state. */
typedef struct parser {
    sim_pickle_t *doc;
    const uint8_t *p;
    size_t len, pos, op_at; /* op_at: where the current opcode starts */
    sim_pickle_val_t *stack, *memo;
    size_t nstack, capstack, nmemo, capmemo;
    size_t *marks, nmarks, capmarks;
    sgd_err_t *err;
} parser_t;

/* Grows *a (elements of `size` bytes) to hold at least need; never returns on no memory. */
static void reserve(void **a, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    *a = sgd_xrealloc(*a, c * size);
    *cap = c;
}

static int fail(parser_t *ps, const char *what, const char *detail)
{
    return sgd_errf(ps->err, "byte %zu: %s%s", ps->op_at, what, detail ? detail : "");
}

/* n bytes of operand at the cursor, or NULL after reporting a truncated file. */
static const uint8_t *take(parser_t *ps, uint64_t n)
{
    if (n > ps->len - ps->pos) {
        fail(ps, "the file ends inside an opcode's operand (truncated?)", NULL);
        return NULL;
    }
    const uint8_t *at = ps->p + ps->pos;
    ps->pos += (size_t)n;
    return at;
}

static uint64_t le(const uint8_t *b, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | b[i];
    return v;
}

static void push(parser_t *ps, sim_pickle_val_t v)
{
    reserve((void **)&ps->stack, &ps->capstack, ps->nstack + 1, sizeof *ps->stack);
    ps->stack[ps->nstack++] = v;
}

static sim_pickle_val_t scalar(sim_pickle_type_t t)
{
    sim_pickle_val_t v;
    memset(&v, 0, sizeof v);
    v.type = (uint8_t)t;
    return v;
}

static int push_container(parser_t *ps, sim_pickle_type_t t)
{
    sim_pickle_t *d = ps->doc;
    if (d->ncont == UINT32_MAX) return fail(ps, "too many lists and dicts", NULL);
    size_t cap = d->capcont;
    reserve((void **)&d->cont, &cap, (size_t)d->ncont + 1, sizeof *d->cont);
    d->capcont = (uint32_t)cap;
    d->cont[d->ncont] = (container_t){.v = NULL};
    sim_pickle_val_t v = scalar(t);
    v.u.cont = d->ncont++;
    push(ps, v);
    return 0;
}

/* The values above the innermost MARK (in *first, count in *n); the MARK is removed. */
static int pop_mark(parser_t *ps, size_t *first, size_t *n)
{
    if (ps->nmarks == 0) return fail(ps, "an opcode needs a MARK that was never set", NULL);
    *first = ps->marks[--ps->nmarks];
    *n = ps->nstack - *first;
    return 0;
}

/* Appends vals[0..n) to the container at stack position `at`, which must be of type t. */
static int extend(parser_t *ps, size_t at, sim_pickle_type_t t, const sim_pickle_val_t *vals,
                  size_t n)
{
    if (at >= ps->nstack || ps->stack[at].type != t)
        return fail(ps, t == SIM_PICKLE_DICT ? "SETITEM(S) on something that is not a dict"
                                             : "APPEND(S) on something that is not a list",
                    NULL);
    if (n == 0) return 0; /* APPENDS or SETITEMS of nothing (an empty batch) */
    container_t *c = &ps->doc->cont[ps->stack[at].u.cont];
    if ((uint64_t)c->n + n > UINT32_MAX) return fail(ps, "a container is too large", NULL);
    size_t cap = c->cap;
    reserve((void **)&c->v, &cap, (size_t)c->n + n, sizeof *c->v);
    c->cap = (uint32_t)cap;
    memcpy(c->v + c->n, vals, n * sizeof *vals);
    c->n += (uint32_t)n;
    return 0;
}

static int op_setitems(parser_t *ps, bool batch)
{
    size_t first = 0, n = 0;
    if (batch) {
        if (pop_mark(ps, &first, &n)) return -1;
        if (n % 2) return fail(ps, "SETITEMS with an odd number of values", NULL);
    } else {
        if (ps->nstack < 2) return fail(ps, "SETITEM with too few values on the stack", NULL);
        first = ps->nstack - 2;
        n = 2;
    }
    if (first == 0) return fail(ps, "SETITEM(S) with no dict below its values", NULL);
    if (extend(ps, first - 1, SIM_PICKLE_DICT, ps->stack + first, n)) return -1;
    ps->nstack = first;
    return 0;
}

static int op_appends(parser_t *ps, bool batch)
{
    size_t first = 0, n = 0;
    if (batch) {
        if (pop_mark(ps, &first, &n)) return -1;
    } else {
        if (ps->nstack < 1) return fail(ps, "APPEND with an empty stack", NULL);
        first = ps->nstack - 1;
        n = 1;
    }
    if (first == 0) return fail(ps, "APPEND(S) with no list below its values", NULL);
    if (extend(ps, first - 1, SIM_PICKLE_LIST, ps->stack + first, n)) return -1;
    ps->nstack = first;
    return 0;
}

/* An integer of nbytes little-endian two's-complement bytes (LONG1, LONG4). */
static int op_long(parser_t *ps, int len_bytes)
{
    const uint8_t *b = take(ps, (uint64_t)len_bytes);
    if (!b) return -1;
    uint64_t n = le(b, len_bytes);
    if (n > 8) return fail(ps, "an integer wider than 64 bits", NULL);
    if (!(b = take(ps, n))) return -1;
    uint64_t v = n ? le(b, (int)n) : 0;
    if (n && n < 8 && (b[n - 1] & 0x80)) v |= ~(uint64_t)0 << (8 * n); /* sign-extend */
    sim_pickle_val_t x = scalar(SIM_PICKLE_INT);
    x.u.i = (int64_t)v;
    push(ps, x);
    return 0;
}

static int op_int(parser_t *ps, int nbytes, bool is_signed)
{
    const uint8_t *b = take(ps, (uint64_t)nbytes);
    if (!b) return -1;
    uint64_t v = le(b, nbytes);
    sim_pickle_val_t x = scalar(SIM_PICKLE_INT);
    x.u.i = is_signed ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
    push(ps, x);
    return 0;
}

static int op_float(parser_t *ps)
{
    const uint8_t *b = take(ps, 8);
    if (!b) return -1;
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++) bits = (bits << 8) | b[i]; /* big-endian */
    sim_pickle_val_t x = scalar(SIM_PICKLE_FLOAT);
    memcpy(&x.u.f, &bits, sizeof bits);
    push(ps, x);
    return 0;
}

static int op_str(parser_t *ps, int len_bytes)
{
    const uint8_t *b = take(ps, (uint64_t)len_bytes);
    if (!b) return -1;
    uint64_t n = le(b, len_bytes);
    if (len_bytes == 4 && ps->p[ps->op_at] == 'T' && (n >> 31))
        return fail(ps, "BINSTRING with a negative length", NULL);
    if (n > UINT32_MAX) return fail(ps, "a string longer than 4 GiB", NULL);
    size_t at = ps->pos;
    if (!take(ps, n)) return -1;
    sim_pickle_val_t x = scalar(SIM_PICKLE_STR);
    x.len = (uint32_t)n;
    x.u.off = at;
    push(ps, x);
    return 0;
}

/* BINPUT, LONG_BINPUT, MEMOIZE (idx = the memo's size): remember the top of the stack. */
static int op_put(parser_t *ps, uint64_t idx)
{
    if (ps->nstack == 0) return fail(ps, "a memo store with an empty stack", NULL);
    if (idx > ps->nmemo) return fail(ps, "a memo index out of sequence", NULL);
    if (idx == ps->nmemo) {
        reserve((void **)&ps->memo, &ps->capmemo, ps->nmemo + 1, sizeof *ps->memo);
        ps->nmemo++;
    }
    ps->memo[idx] = ps->stack[ps->nstack - 1];
    return 0;
}

static int op_get(parser_t *ps, uint64_t idx)
{
    if (idx >= ps->nmemo) return fail(ps, "a memo fetch of an index never stored", NULL);
    push(ps, ps->memo[idx]);
    return 0;
}

static int op_memo(parser_t *ps, int nbytes, bool put)
{
    const uint8_t *b = take(ps, (uint64_t)nbytes);
    if (!b) return -1;
    return put ? op_put(ps, le(b, nbytes)) : op_get(ps, le(b, nbytes));
}

/* Names of the opcodes most worth naming when refused. */
static const char *refused_name(uint8_t op)
{
    switch (op) {
    case 'c': return "GLOBAL (imports a callable)";
    case 0x93: return "STACK_GLOBAL (imports a callable)";
    case 'R': return "REDUCE (calls a callable)";
    case 'b': return "BUILD (calls __setstate__)";
    case 'i': return "INST (builds an object)";
    case 'o': return "OBJ (builds an object)";
    case 0x81: return "NEWOBJ (builds an object)";
    case 0x92: return "NEWOBJ_EX (builds an object)";
    case 'P': case 'Q': return "PERSID/BINPERSID (a persistent reference)";
    case 0x82: case 0x83: case 0x84: return "EXT1/2/4 (an extension registry reference)";
    case ')': case 't': case 0x85: case 0x86: case 0x87: return "a tuple";
    case 'I': case 'L': case 'F': case 'S': case 'V': case 'p': case 'g': case 'd': case 'l':
        return "a protocol 0 text opcode (save the file with protocol 2 or higher)";
    default: return NULL;
    }
}

static int refuse(parser_t *ps, uint8_t op)
{
    const char *name = refused_name(op);
    return sgd_errf(ps->err, "byte %zu: opcode 0x%02x%s%s is not one of the data opcodes this "
                             "reader accepts (dict, list, int, float, str, None, bool); "
                             "nothing is run", ps->op_at, op, name ? ", " : "",
                    name ? name : "");
}

static int op_proto(parser_t *ps)
{
    const uint8_t *b = take(ps, 1);
    if (!b) return -1;
    if (ps->op_at != 0) return fail(ps, "PROTO after the start of the file", NULL);
    if (*b < 2 || *b > 5) return fail(ps, "an unknown pickle protocol (2 to 5 are read)", NULL);
    return 0;
}

static int op_frame(parser_t *ps)
{
    const uint8_t *b = take(ps, 8);
    if (!b) return -1;
    if (le(b, 8) > ps->len - ps->pos) return fail(ps, "a FRAME longer than the file", NULL);
    return 0;
}

/* One opcode at ps->pos.  Returns 1 after STOP, 0 to go on, -1 on error. */
static int step(parser_t *ps)
{
    ps->op_at = ps->pos;
    uint8_t op = ps->p[ps->pos++];
    switch (op) {
    case 0x80: return op_proto(ps);
    case 0x95: return op_frame(ps);
    case '.':
        if (ps->nstack != 1 || ps->nmarks)
            return fail(ps, "STOP without exactly one finished value", NULL);
        if (ps->pos != ps->len) return fail(ps, "bytes after STOP", NULL);
        ps->doc->root = ps->stack[0];
        return 1;
    case '(':
        reserve((void **)&ps->marks, &ps->capmarks, ps->nmarks + 1, sizeof *ps->marks);
        ps->marks[ps->nmarks++] = ps->nstack;
        return 0;
    case '}': return push_container(ps, SIM_PICKLE_DICT);
    case ']': return push_container(ps, SIM_PICKLE_LIST);
    case 's': return op_setitems(ps, false);
    case 'u': return op_setitems(ps, true);
    case 'a': return op_appends(ps, false);
    case 'e': return op_appends(ps, true);
    case 'J': return op_int(ps, 4, true);
    case 'K': return op_int(ps, 1, false);
    case 'M': return op_int(ps, 2, false);
    case 0x8a: return op_long(ps, 1);
    case 0x8b: return op_long(ps, 4);
    case 'G': return op_float(ps);
    case 'X': case 'T': return op_str(ps, 4);
    case 0x8c: case 'U': return op_str(ps, 1);
    case 0x8d: return op_str(ps, 8);
    case 'N': push(ps, scalar(SIM_PICKLE_NONE)); return 0;
    case 0x88: case 0x89: {
        sim_pickle_val_t b = scalar(SIM_PICKLE_BOOL);
        b.u.i = op == 0x88;
        push(ps, b);
        return 0;
    }
    case 'q': return op_memo(ps, 1, true);
    case 'r': return op_memo(ps, 4, true);
    case 0x94: return op_put(ps, ps->nmemo);
    case 'h': return op_memo(ps, 1, false);
    case 'j': return op_memo(ps, 4, false);
    default: return refuse(ps, op);
    }
}

int sim_pickle_parse(const uint8_t *buf, size_t len, sim_pickle_t **out, sgd_err_t *err)
{
    *out = NULL;
    sim_pickle_t *doc = sgd_xcalloc(1, sizeof *doc);
    doc->buf = buf;
    parser_t ps = {.doc = doc, .p = buf, .len = len, .err = err};
    int rc = 0;
    while (rc == 0) {
        if (ps.pos >= len) {
            ps.op_at = len;
            rc = fail(&ps, "the file ends before STOP (truncated?)", NULL);
            break;
        }
        rc = step(&ps);
    }
    free(ps.stack);
    free(ps.memo);
    free(ps.marks);
    if (rc < 0) {
        sim_pickle_free(doc);
        return -1;
    }
    *out = doc;
    return 0;
}

void sim_pickle_free(sim_pickle_t *p)
{
    if (!p) return;
    for (uint32_t i = 0; i < p->ncont; i++) free(p->cont[i].v);
    free(p->cont);
    free(p);
}

sim_pickle_val_t sim_pickle_root(const sim_pickle_t *p) { return p->root; }

static const container_t *cont_of(const sim_pickle_t *p, sim_pickle_val_t v,
                                  sim_pickle_type_t t)
{
    SGD_ASSERT(v.type == (uint8_t)t && v.u.cont < p->ncont);
    return &p->cont[v.u.cont];
}

size_t sim_pickle_count(const sim_pickle_t *p, sim_pickle_val_t c)
{
    SGD_ASSERT(c.type == SIM_PICKLE_LIST || c.type == SIM_PICKLE_DICT);
    const container_t *k = cont_of(p, c, (sim_pickle_type_t)c.type);
    return c.type == SIM_PICKLE_DICT ? k->n / 2 : k->n;
}

sim_pickle_val_t sim_pickle_item(const sim_pickle_t *p, sim_pickle_val_t list, size_t i)
{
    const container_t *k = cont_of(p, list, SIM_PICKLE_LIST);
    SGD_ASSERT(i < k->n);
    return k->v[i];
}

sim_pickle_val_t sim_pickle_key(const sim_pickle_t *p, sim_pickle_val_t dict, size_t i)
{
    const container_t *k = cont_of(p, dict, SIM_PICKLE_DICT);
    SGD_ASSERT(i < k->n / 2);
    return k->v[2 * i];
}

sim_pickle_val_t sim_pickle_value(const sim_pickle_t *p, sim_pickle_val_t dict, size_t i)
{
    const container_t *k = cont_of(p, dict, SIM_PICKLE_DICT);
    SGD_ASSERT(i < k->n / 2);
    return k->v[2 * i + 1];
}

int sim_pickle_str_is(const sim_pickle_t *p, sim_pickle_val_t v, const char *s)
{
    size_t n = strlen(s);
    return v.type == SIM_PICKLE_STR && v.len == n && memcmp(p->buf + v.u.off, s, n) == 0;
}

int sim_pickle_get(const sim_pickle_t *p, sim_pickle_val_t dict, const char *key,
                   sim_pickle_val_t *out)
{
    int found = 0;
    for (size_t i = 0; i < sim_pickle_count(p, dict); i++)
        if (sim_pickle_str_is(p, sim_pickle_key(p, dict, i), key)) {
            *out = sim_pickle_value(p, dict, i);
            found = 1;
        }
    return found;
}

const char *sim_pickle_type_name(sim_pickle_val_t v)
{
    static const char *const names[] = {"None", "bool", "int", "float", "str", "list", "dict"};
    return v.type <= SIM_PICKLE_DICT ? names[v.type] : "?";
}
