/* The table-driven option parser of every subcommand (options.h): finds each argument's
 * descriptor, parses and stores its value, collects positionals, and reports every mistake
 * in one form naming the argument. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "render/table.h"
#include "common/error.h"
#include "common/number.h"

const cli_opt_t cli_format_opts[] = {
    {.name = "--csv", .kind = CLI_ARG_CONST, .ival = RND_FMT_CSV},
    {.name = "--json", .kind = CLI_ARG_CONST, .ival = RND_FMT_JSON},
    {.name = NULL},
};

/* The descriptor that argument a names in the sets, or NULL.  *attached receives the value
 * of an attached short form ("-j8" -> "8": the short name, then a digit), else NULL. */
static const cli_opt_t *find_opt(const cli_cmd_spec_t *spec, const char *a, void **target,
                                 const char **attached)
{
    *attached = NULL;
    for (int s = 0; s < spec->nsets; s++) {
        const cli_opt_set_t *set = &spec->sets[s];
        for (const cli_opt_t *o = set->opts; o->name; o++) {
            if (o->group && !(o->group & set->accepted)) continue;
            *target = set->target;
            if (strcmp(a, o->name) == 0 || (o->alias && strcmp(a, o->alias) == 0)) return o;
            size_t n = o->alias ? strlen(o->alias) : 0;
            if ((o->flags & CLI_ARG_ATTACHED) && n && strncmp(a, o->alias, n) == 0 &&
                isdigit((unsigned char)a[n])) {
                *attached = a + n;
                return o;
            }
        }
    }
    return NULL;
}

static bool takes_value(const cli_opt_t *o)
{
    return o->kind != CLI_ARG_FLAG && o->kind != CLI_ARG_CONST;
}

/* Parses a typed value; false when it does not parse or is out of range. */
static bool parse_number(const cli_opt_t *o, const char *v, void *field)
{
    if (o->kind == CLI_ARG_U64) {
        uint64_t n;
        if (!cli_parse_u64(v, &n) || n < o->lo || n > o->hi) return false;
        *(uint64_t *)field = n;
        return true;
    }
    double d;
    if (!sgd_parse_decimal(v, &d) || !(d >= o->min)) return false;
    *(double *)field = d;
    return true;
}

/* Stores the value v of option o (given as `shown`; `attached` when v is the tail of shown,
 * as in -j8) into target; returns 0 or the exit code after the message. */
static int store(const char *cmd, const cli_opt_t *o, const char *shown, const char *v,
                 bool attached, void *target)
{
    void *field = (char *)target + o->off;
    char msg[SGD_ERR_MAX];
    switch (o->kind) {
    case CLI_ARG_FLAG: *(bool *)field = true; return 0;
    case CLI_ARG_CONST: *(int *)field = o->ival; return 0;
    case CLI_ARG_STRING: *(const char **)field = v; return 0;
    case CLI_ARG_LIST: {
        cli_list_t *l = field;
        /* Grown one at a time: lists hold a command line's worth of values. */
        l->v = sgd_xrealloc(l->v, (size_t)(l->n + 1) * sizeof *l->v);
        l->v[l->n++] = v;
        return 0;
    }
    case CLI_ARG_U64:
    case CLI_ARG_DOUBLE:
        if (parse_number(o, v, field)) return 0;
        if (attached) return cli_bad_input("%s: %s: %s", cmd, shown, o->expect);
        return cli_bad_input("%s: %s %s: %s", cmd, shown, v, o->expect);
    case CLI_ARG_CUSTOM:
        msg[0] = '\0';
        if (o->parse(target, shown, v, msg, sizeof msg)) return 0;
        return cli_bad_input("%s: %s", cmd, msg);
    }
    sgd_die(__FILE__, __LINE__, "an option kind store() does not know: %d", (int)o->kind);
}

/* One option argument at argv[*i] (its value, if any, follows or is attached). */
static int parse_option(const cli_cmd_spec_t *spec, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *attached;
    void *target = NULL;
    const cli_opt_t *o = find_opt(spec, a, &target, &attached);
    if (!o)
        return cli_bad_input("%s: unknown option %s (see sgdsim %s --help)", spec->cmd, a,
                             spec->cmd);
    if (!takes_value(o)) return store(spec->cmd, o, a, NULL, false, target);
    if (attached) return store(spec->cmd, o, a, attached, true, target);
    if (*i + 1 >= argc) return cli_bad_input("%s: %s: missing value", spec->cmd, a);
    return store(spec->cmd, o, a, argv[++*i], false, target);
}

/* After the last argument: the positionals' count and the required options. */
static int check_complete(const cli_cmd_spec_t *spec, const cli_args_t *args)
{
    if (args->npos < spec->npos)
        return cli_bad_input("%s: missing %s (see sgdsim %s --help)", spec->cmd,
                             spec->missing[args->npos], spec->cmd);
    for (int s = 0; s < spec->nsets; s++)
        for (const cli_opt_t *o = spec->sets[s].opts; o->name; o++) {
            const char *const *v = (const void *)((char *)spec->sets[s].target + o->off);
            if ((o->flags & CLI_ARG_REQUIRED) && !*v)
                return cli_bad_input("%s: missing %s %s (see sgdsim %s --help)", spec->cmd,
                                     o->alias ? o->alias : o->name, o->metavar, spec->cmd);
        }
    return 0;
}

int cli_args_parse(const cli_cmd_spec_t *spec, int argc, char **argv, cli_args_t *args)
{
    memset(args, 0, sizeof *args);
    args->pos = sgd_xcalloc((size_t)argc + 1, sizeof *args->pos);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            args->help = true;
            return 0;
        } else if (a[0] == '-' && a[1]) {
            rc = parse_option(spec, argc, argv, &i);
        } else if (args->npos == spec->npos && !spec->more_pos) {
            rc = cli_bad_input("%s: unexpected argument %s (see sgdsim %s --help)", spec->cmd,
                               a, spec->cmd);
        } else {
            args->pos[args->npos++] = a;
        }
        if (rc) return rc;
    }
    return check_complete(spec, args);
}

int cli_args_parse_fixed(const cli_cmd_spec_t *spec, int argc, char **argv, const char **pos,
                         bool *help)
{
    SGD_ASSERT(!spec->more_pos);
    cli_args_t args;
    int rc = cli_args_parse(spec, argc, argv, &args);
    *help = args.help;
    for (int i = 0; i < args.npos; i++) pos[i] = args.pos[i];
    cli_args_free(&args);
    return rc;
}

void cli_args_free(cli_args_t *args)
{
    free(args->pos);
    memset(args, 0, sizeof *args);
}

void cli_list_free(cli_list_t *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}
