/* A strict reader of Python pickles that hold only data: dicts, lists, integers, floats,
 * strings, None and booleans.  It exists to read FedScale's trace files (sim/fedscale.h)
 * without Python and without executing anything.
 *
 * A pickle is a program for a stack machine; most of its opcodes build data, but some import
 * a callable by name and call it (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ,
 * ...), which is how loading an untrusted pickle in Python runs code.  This reader interprets
 * only the binary data opcodes of protocols 1 to 5 and refuses every other opcode by name and
 * byte offset:
 *     PROTO FRAME STOP MARK EMPTY_DICT EMPTY_LIST SETITEM SETITEMS APPEND APPENDS
 *     BININT BININT1 BININT2 LONG1 LONG4 (at most 64 bits) BINFLOAT
 *     BINUNICODE SHORT_BINUNICODE BINUNICODE8 BINSTRING SHORT_BINSTRING
 *     NONE NEWTRUE NEWFALSE BINPUT LONG_BINPUT MEMOIZE BINGET LONG_BINGET
 * Protocol 0's text opcodes, tuples, bytes, sets and everything that names a class are
 * refused.  Every length is checked against the bytes left, memo indices must be given in
 * order (as Python writes them), STOP must end the input with exactly one value on the stack
 * and no open MARK.  Nothing is recursive, so nesting depth costs no stack.
 *
 * Values are small handles (sim_pickle_val_t); lists and dicts are numbered containers of
 * the document, shared when the pickle refers to one twice (memo), as in Python.  Strings
 * point into the input buffer, which must outlive the document.
 *
 * Ownership: sim_pickle_parse returns a document owned by the caller, freed with
 * sim_pickle_free; it borrows the input bytes. */
#ifndef SGDSIM_SIM_PICKLE_H
#define SGDSIM_SIM_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

typedef enum {
    SIM_PICKLE_NONE,
    SIM_PICKLE_BOOL,
    SIM_PICKLE_INT,
    SIM_PICKLE_FLOAT,
    SIM_PICKLE_STR,
    SIM_PICKLE_LIST,
    SIM_PICKLE_DICT,
} sim_pickle_type_t;

typedef struct sim_pickle_val {
    uint8_t type;  /* sim_pickle_type_t */
    uint32_t len;  /* STR: bytes */
    union {
        int64_t i;      /* BOOL (0 or 1), INT */
        double f;       /* FLOAT */
        uint64_t off;   /* STR: offset of its bytes in the input */
        uint32_t cont;  /* LIST, DICT: container number */
    } u;
} sim_pickle_val_t;

typedef struct sim_pickle sim_pickle_t;

/* Interprets buf[0..len).  Returns 0 with *out set, or -1 with err = "byte N: what" (the
 * caller prefixes the file name) and *out NULL. */
int sim_pickle_parse(const uint8_t *buf, size_t len, sim_pickle_t **out, sgd_err_t *err);

void sim_pickle_free(sim_pickle_t *p);

/* The value STOP returned. */
sim_pickle_val_t sim_pickle_root(const sim_pickle_t *p);

/* LIST: its items; DICT: its (key, value) pairs, in insertion order (a key set twice
 * appears twice: the caller decides). */
size_t sim_pickle_count(const sim_pickle_t *p, sim_pickle_val_t container);
sim_pickle_val_t sim_pickle_item(const sim_pickle_t *p, sim_pickle_val_t list, size_t i);
sim_pickle_val_t sim_pickle_key(const sim_pickle_t *p, sim_pickle_val_t dict, size_t i);
sim_pickle_val_t sim_pickle_value(const sim_pickle_t *p, sim_pickle_val_t dict, size_t i);

/* Whether v is a STR equal to s. */
int sim_pickle_str_is(const sim_pickle_t *p, sim_pickle_val_t v, const char *s);

/* The value of dict entry `key` (a STR key) in *out: 1 if found (the last setting wins, as
 * in Python), 0 if not. */
int sim_pickle_get(const sim_pickle_t *p, sim_pickle_val_t dict, const char *key,
                   sim_pickle_val_t *out);

/* "int", "float", "str", "list", "dict", "None", "bool": for messages. */
const char *sim_pickle_type_name(sim_pickle_val_t v);

#endif
