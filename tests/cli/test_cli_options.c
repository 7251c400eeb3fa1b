/* The table-driven option parser (cli/options.h): every kind of descriptor stores what it
 * should, every mistake exits 2 with a message that names the argument, --help stops
 * parsing, and option groups a command does not accept are unknown to it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "render/table.h"
#include "common/error.h"
#include "tests/check.h"

typedef struct target {
    bool verbose;
    int format;
    const char *out, *name;
    uint64_t jobs;
    double rtol;
    cli_list_t sets;
    const char *custom_opt, *custom_value;
} target_t;

static bool parse_even(void *t, const char *opt, const char *v, char *msg, size_t size)
{
    target_t *x = t;
    if (strlen(v) % 2) {
        snprintf(msg, size, "%s %s: expected an even number of characters", opt, v);
        return false;
    }
    x->custom_opt = opt;
    x->custom_value = v;
    return true;
}

enum { GROUP_NAME = 1 };

static const cli_opt_t opts[] = {
    {.name = "--verbose", .alias = "-v", .kind = CLI_ARG_FLAG, .off = offsetof(target_t, verbose)},
    {.name = "--output", .alias = "-o", .kind = CLI_ARG_STRING, .off = offsetof(target_t, out),
     .metavar = "FILE", .flags = CLI_ARG_REQUIRED},
    {.name = "--name", .kind = CLI_ARG_STRING, .off = offsetof(target_t, name),
     .group = GROUP_NAME},
    {.name = "--jobs", .alias = "-j", .kind = CLI_ARG_U64, .off = offsetof(target_t, jobs),
     .lo = 1, .hi = 8, .flags = CLI_ARG_ATTACHED, .expect = "expected 1..8"},
    {.name = "--rtol", .kind = CLI_ARG_DOUBLE, .off = offsetof(target_t, rtol), .min = 0.0,
     .expect = "expected a number >= 0"},
    {.name = "--set", .kind = CLI_ARG_LIST, .off = offsetof(target_t, sets)},
    {.name = "--even", .kind = CLI_ARG_CUSTOM, .parse = parse_even},
    {.name = NULL},
};

static char captured[4096];

/* Parses the NULL-terminated words as `t` with two positionals (A, B) and the given groups;
 * what went to stderr lands in `captured`. */
static int parse(target_t *t, unsigned accepted, const char **pos, bool *help, const char *w0,
                 ...)
{
    static const char *const missing[] = {"A B", "B"};
    char *argv[32];
    int argc = 0;
    va_list ap;
    va_start(ap, w0);
    for (const char *w = w0; w && argc < 32; w = va_arg(ap, const char *)) argv[argc++] = (char *)w;
    va_end(ap);
    memset(t, 0, sizeof *t);
    t->format = RND_FMT_TEXT;
    cli_opt_set_t sets[] = {{opts, t, accepted}, {cli_format_opts, &t->format, 0}};
    cli_cmd_spec_t spec = {.cmd = "test", .npos = 2, .missing = missing, .sets = sets,
                           .nsets = 2};
    FILE *tmp = tmpfile();
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    int rc = cli_args_parse_fixed(&spec, argc, argv, pos, help);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(captured, 1, sizeof captured - 1, tmp);
    captured[n] = '\0';
    fclose(tmp);
    return rc;
}

static void test_every_kind_stores_its_value(void)
{
    target_t t;
    const char *pos[2] = {NULL, NULL};
    bool help;
    int rc = parse(&t, GROUP_NAME, pos, &help, "a", "-v", "-o", "f.png", "--name", "n", "-j3",
                   "--rtol", "0.5", "--set", "x=1", "b", "--set", "y=2", "--even", "ab",
                   "--json", NULL);
    CHECK_INT_EQ(rc, 0);
    CHECK(!help);
    CHECK_STR_EQ(pos[0], "a");
    CHECK_STR_EQ(pos[1], "b");
    CHECK(t.verbose);
    CHECK_STR_EQ(t.out, "f.png");
    CHECK_STR_EQ(t.name, "n");
    CHECK_INT_EQ(t.jobs, 3);
    CHECK_NEAR(t.rtol, 0.5, 0.0);
    CHECK_INT_EQ(t.sets.n, 2);
    if (t.sets.n == 2) {
        CHECK_STR_EQ(t.sets.v[0], "x=1");
        CHECK_STR_EQ(t.sets.v[1], "y=2");
    }
    CHECK_STR_EQ(t.custom_opt, "--even");
    CHECK_STR_EQ(t.custom_value, "ab");
    CHECK_INT_EQ(t.format, RND_FMT_JSON);
    CHECK_STR_EQ(captured, "");
    cli_list_free(&t.sets);
}

/* Each mistake: exit code 2 and the message naming the argument. */
static void test_mistakes_name_the_argument(void)
{
    static const struct {
        const char *words[6];
        const char *message;
    } cases[] = {
        {{"a", "b", "-o", "f", "--frob", NULL},
         "sgdsim: test: unknown option --frob (see sgdsim test --help)\n"},
        {{"a", "b", "-o", NULL}, "sgdsim: test: -o: missing value\n"},
        {{"a", "b", "-o", "f", "--jobs", "9"}, "sgdsim: test: --jobs 9: expected 1..8\n"},
        {{"a", "b", "-o", "f", "-j0", NULL}, "sgdsim: test: -j0: expected 1..8\n"},
        {{"a", "b", "-o", "f", "-jx", NULL},
         "sgdsim: test: unknown option -jx (see sgdsim test --help)\n"},
        {{"a", "b", "--rtol", "-1", NULL}, "sgdsim: test: --rtol -1: expected a number >= 0\n"},
        {{"a", "b", "--rtol", "inf", NULL}, "sgdsim: test: --rtol inf: expected a number >= 0\n"},
        {{"a", "b", "--even", "abc", NULL},
         "sgdsim: test: --even abc: expected an even number of characters\n"},
        {{"a", "b", "c", NULL}, "sgdsim: test: unexpected argument c (see sgdsim test --help)\n"},
        {{"-o", "f", NULL}, "sgdsim: test: missing A B (see sgdsim test --help)\n"},
        {{"a", "-o", "f", NULL}, "sgdsim: test: missing B (see sgdsim test --help)\n"},
        {{"a", "b", NULL}, "sgdsim: test: missing -o FILE (see sgdsim test --help)\n"},
        /* --name belongs to a group this parse does not accept. */
        {{"a", "b", "-o", "f", "--name", "n"},
         "sgdsim: test: unknown option --name (see sgdsim test --help)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        target_t t;
        const char *pos[2];
        bool help;
        const char *const *w = cases[i].words;
        int rc = parse(&t, 0, pos, &help, w[0], w[1], w[2], w[3], w[4], w[5], NULL);
        CHECK_INT_EQ(rc, SGD_EXIT_BAD_INPUT);
        CHECK_STR_EQ(captured, cases[i].message);
        cli_list_free(&t.sets);
    }
}

/* --help wins over what follows it (an unknown option, a missing positional), not over a
 * mistake before it. */
static void test_help_stops_parsing(void)
{
    target_t t;
    const char *pos[2];
    bool help = false;
    CHECK_INT_EQ(parse(&t, 0, pos, &help, "--help", "--frob", NULL), 0);
    CHECK(help);
    CHECK_STR_EQ(captured, "");
    help = false;
    CHECK_INT_EQ(parse(&t, 0, pos, &help, "-h", NULL), 0);
    CHECK(help);
    help = false;
    CHECK_INT_EQ(parse(&t, 0, pos, &help, "--frob", "--help", NULL), SGD_EXIT_BAD_INPUT);
    CHECK(!help);
}

/* A lone "-" is a positional (standard input, by convention), not an option. */
static void test_dash_is_positional(void)
{
    target_t t;
    const char *pos[2];
    bool help;
    CHECK_INT_EQ(parse(&t, 0, pos, &help, "-", "b", "-o", "f", NULL), 0);
    CHECK_STR_EQ(pos[0], "-");
}

int main(void)
{
    test_every_kind_stores_its_value();
    test_mistakes_name_the_argument();
    test_help_stops_parsing();
    test_dash_is_positional();
    return check_exit();
}
