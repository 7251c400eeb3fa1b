/* The data-only pickle reader (sim/pickle.h): every data opcode gives its value; the memo
 * shares containers; every pickle that names or calls something (os.system through GLOBAL or
 * STACK_GLOBAL and REDUCE, as Python writes them), protocol 0 text, tuples and unknown
 * opcodes are refused by name and offset; and malformed streams -- every prefix of the
 * committed FedScale-format files, lengths past the end, bad memo indices, a broken stack
 * at STOP -- are refused with a message, never a crash (the sanitizer build runs this too). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/pickle.h"
#include "tests/check.h"

#define BYTES(s) (const uint8_t *)(s), sizeof(s) - 1

static sim_pickle_t *parse_ok(const uint8_t *b, size_t n)
{
    sim_pickle_t *p = NULL;
    sgd_err_t err = {{0}};
    if (sim_pickle_parse(b, n, &p, &err)) {
        fprintf(stderr, "unexpected refusal: %s\n", err.msg);
        check_failures++;
    }
    return p;
}

/* Refused, with a message containing `needle`. */
static void refused(const uint8_t *b, size_t n, const char *needle)
{
    sim_pickle_t *p = (sim_pickle_t *)&p; /* must come back NULL */
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(sim_pickle_parse(b, n, &p, &err), -1);
    CHECK(p == NULL);
    CHECK_STR_CONTAINS(err.msg, needle);
}

static void every_data_opcode_gives_its_value(void)
{
    /* [-5, 255, 65535, 2^63-1, 0, -1, 1.5, "é", "abc", "", "py2", "s4", None, True, False] */
    static const char src[] =
        "\x80\x02]q\x00("
        "J\xfb\xff\xff\xff" "K\xff" "M\xff\xff"
        "\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f" "\x8a\x00" "\x8a\x01\xff"
        "G\x3f\xf8\x00\x00\x00\x00\x00\x00"
        "\x8c\x02\xc3\xa9" "X\x03\x00\x00\x00" "abc" "\x8d\x00\x00\x00\x00\x00\x00\x00\x00"
        "U\x03py2" "T\x02\x00\x00\x00s4" "N\x88\x89"
        "e.";
    sim_pickle_t *p = parse_ok(BYTES(src));
    if (!p) return;
    sim_pickle_val_t l = sim_pickle_root(p);
    CHECK_INT_EQ(l.type, SIM_PICKLE_LIST);
    CHECK_INT_EQ(sim_pickle_count(p, l), 15);
    int64_t ints[] = {-5, 255, 65535, INT64_MAX, 0, -1};
    for (int i = 0; i < 6; i++) {
        CHECK_INT_EQ(sim_pickle_item(p, l, (size_t)i).type, SIM_PICKLE_INT);
        CHECK(sim_pickle_item(p, l, (size_t)i).u.i == ints[i]);
    }
    CHECK(sim_pickle_item(p, l, 6).type == SIM_PICKLE_FLOAT && sim_pickle_item(p, l, 6).u.f == 1.5);
    CHECK(sim_pickle_str_is(p, sim_pickle_item(p, l, 7), "\xc3\xa9"));
    CHECK(sim_pickle_str_is(p, sim_pickle_item(p, l, 8), "abc"));
    CHECK(sim_pickle_str_is(p, sim_pickle_item(p, l, 9), ""));
    CHECK(sim_pickle_str_is(p, sim_pickle_item(p, l, 10), "py2"));
    CHECK(sim_pickle_str_is(p, sim_pickle_item(p, l, 11), "s4"));
    CHECK(!sim_pickle_str_is(p, sim_pickle_item(p, l, 11), "s"));
    CHECK_INT_EQ(sim_pickle_item(p, l, 12).type, SIM_PICKLE_NONE);
    CHECK(sim_pickle_item(p, l, 13).type == SIM_PICKLE_BOOL && sim_pickle_item(p, l, 13).u.i == 1);
    CHECK(sim_pickle_item(p, l, 14).type == SIM_PICKLE_BOOL && sim_pickle_item(p, l, 14).u.i == 0);
    CHECK_STR_EQ(sim_pickle_type_name(sim_pickle_item(p, l, 12)), "None");
    sim_pickle_free(p);
}

/* {"a": L, "b": L, "a": 7} where L = [L] (a list holding itself, through the memo): both
 * keys see the same container, and the last "a" wins in sim_pickle_get. */
static void the_memo_shares_containers(void)
{
    static const char src[] = "\x80\x04}\x94(\x8c\x01" "a\x94]\x94h\x02" "a"
                              "\x8c\x01" "bh\x02" "h\x01K\x07u.";
    sim_pickle_t *p = parse_ok(BYTES(src));
    if (!p) return;
    sim_pickle_val_t d = sim_pickle_root(p), v;
    CHECK_INT_EQ(sim_pickle_count(p, d), 3);
    sim_pickle_val_t a = sim_pickle_value(p, d, 0), b = sim_pickle_value(p, d, 1);
    CHECK(a.type == SIM_PICKLE_LIST && b.type == SIM_PICKLE_LIST && a.u.cont == b.u.cont);
    CHECK_INT_EQ(sim_pickle_count(p, a), 1);
    CHECK(sim_pickle_item(p, a, 0).u.cont == a.u.cont);
    CHECK(sim_pickle_get(p, d, "a", &v) && v.type == SIM_PICKLE_INT && v.u.i == 7);
    CHECK(!sim_pickle_get(p, d, "c", &v));
    sim_pickle_free(p);
}

/* Batches of nothing leave fresh containers empty: {None: []} with the list's APPENDS
 * right after its MARK, and {} with the dict's SETITEMS right after its MARK. */
static void empty_batches_are_empty_containers(void)
{
    sim_pickle_t *p = parse_ok(BYTES("\x80\x02}(N](eu."));
    if (!p) return;
    sim_pickle_val_t d = sim_pickle_root(p);
    CHECK_INT_EQ(sim_pickle_count(p, d), 1);
    CHECK_INT_EQ(sim_pickle_key(p, d, 0).type, SIM_PICKLE_NONE);
    CHECK_INT_EQ(sim_pickle_value(p, d, 0).type, SIM_PICKLE_LIST);
    CHECK_INT_EQ(sim_pickle_count(p, sim_pickle_value(p, d, 0)), 0);
    sim_pickle_free(p);
    p = parse_ok(BYTES("\x80\x02}(u."));
    if (p) CHECK_INT_EQ(sim_pickle_count(p, sim_pickle_root(p)), 0);
    sim_pickle_free(p);
}

static void code_and_other_types_are_refused(void)
{
    /* pickle.dumps({1: E()}) with E.__reduce__ = (os.system, ('true',)), protocols 4 and 2. */
    refused(BYTES("\x80\x04\x95$\x00\x00\x00\x00\x00\x00\x00}\x94K\x01\x8c\x05posix\x94\x8c"
                  "\x06system\x94\x93\x94\x8c\x04true\x94\x85\x94R\x94s."),
            "byte 32: opcode 0x93, STACK_GLOBAL");
    refused(BYTES("\x80\x02}q\x00K\x01" "cposix\nsystem\nq\x01X\x04\x00\x00\x00trueq\x02\x85q"
                  "\x03Rq\x04s."),
            "byte 7: opcode 0x63, GLOBAL");
    refused(BYTES("\x80\x02NNR."), "REDUCE");
    refused(BYTES("\x80\x02}Nb."), "BUILD");
    refused(BYTES("\x80\x02K\x01K\x02\x86q\x00."), "a tuple");
    refused(BYTES("(dp0\nI1\nI2\ns."), "protocol 0 text opcode");
    refused(BYTES("\x80\x02\xff."), "opcode 0xff is not one of the data opcodes");
    refused(BYTES("\x80\x02" "C\x01x."), "opcode 0x43"); /* SHORT_BINBYTES */
    refused(BYTES("\x80\x06N."), "unknown pickle protocol");
    refused(BYTES("N\x80\x02."), "PROTO after the start");
}

static void malformed_streams_are_refused(void)
{
    refused((const uint8_t *)"", 0, "byte 0: the file ends before STOP");
    refused(BYTES("\x80\x02N"), "ends before STOP");
    refused(BYTES("\x80\x02N.N"), "bytes after STOP");
    refused(BYTES("\x80\x02NN."), "STOP without exactly one");
    refused(BYTES("\x80\x02(N."), "STOP without exactly one");
    refused(BYTES("\x80\x02."), "STOP without exactly one");
    refused(BYTES("\x80\x02}(Nu."), "odd number");
    refused(BYTES("\x80\x02]NNs."), "not a dict");
    refused(BYTES("\x80\x02}Na."), "not a list");
    refused(BYTES("\x80\x02NNu."), "MARK that was never set");
    refused(BYTES("\x80\x02Ns."), "too few values");
    refused(BYTES("\x80\x02(NNu."), "no dict below");
    refused(BYTES("\x80\x02" "a."), "empty stack");
    refused(BYTES("\x80\x02Nq\x05."), "memo index out of sequence");
    refused(BYTES("\x80\x02h\x00."), "memo fetch of an index never stored");
    refused(BYTES("\x80\x02q\x00."), "memo store with an empty stack");
    refused(BYTES("\x80\x02\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01."), "wider than 64");
    refused(BYTES("\x80\x02\x8b\xff\xff\xff\x7f."), "wider than 64");
    refused(BYTES("\x80\x02X\xff\xff\xff\xff" "abc."), "ends inside an opcode's operand");
    refused(BYTES("\x80\x02\x8d\xff\xff\xff\xff\xff\xff\xff\xff."), "longer than 4 GiB");
    refused(BYTES("\x80\x02\x8d\x00\x01\x00\x00\x00\x00\x00\x00."), "ends inside");
    refused(BYTES("\x80\x02\x8c\x05" "abc."), "ends inside");
    refused(BYTES("\x80\x02T\xfe\xff\xff\xff."), "negative length");
    refused(BYTES("\x80\x04\x95\x00\x01\x00\x00\x00\x00\x00\x00N."), "FRAME longer than");
    refused(BYTES("\x80\x02J\x01\x00"), "ends inside");
    refused(BYTES("\x80\x02G\x00\x00\x00\x00."), "ends inside");
}

/* Every proper prefix of the committed files is refused; the whole file is read. */
static void every_prefix_of_a_real_file_is_refused(const char *dir)
{
    const char *names[] = {"client_device_capacity", "client_behave_trace",
                           "client_device_capacity.p2", "client_behave_trace.p2"};
    for (int f = 0; f < 4; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]);
        size_t len;
        uint8_t *b = check_read_file(path, &len);
        if (!b) continue;
        sim_pickle_t *p = parse_ok(b, len);
        CHECK(p && sim_pickle_root(p).type == SIM_PICKLE_DICT);
        sim_pickle_free(p);
        int accepted = 0;
        for (size_t n = 0; n < len; n++) {
            sgd_err_t err = {{0}};
            uint8_t *copy = malloc(n ? n : 1); /* exactly n bytes: ASan sees any overread */
            memcpy(copy, b, n);
            if (sim_pickle_parse(copy, n, &p, &err) == 0) {
                accepted++;
                sim_pickle_free(p);
            } else if (!err.msg[0]) {
                accepted++;
            }
            free(copy);
        }
        CHECK_INT_EQ(accepted, 0);
        free(b);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR (tests/data/fedscale)\n", argv[0]);
        return 2;
    }
    every_data_opcode_gives_its_value();
    the_memo_shares_containers();
    empty_batches_are_empty_containers();
    code_and_other_types_are_refused();
    malformed_streams_are_refused();
    every_prefix_of_a_real_file_is_refused(argv[1]);
    return check_exit();
}
