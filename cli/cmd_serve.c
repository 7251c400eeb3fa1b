/* `sgdsim serve DB... [--port N] [--host ADDR]`: the results browser's page, live, over HTTP
 * (web/server.h).  It listens on 127.0.0.1 unless --host names another address, and warns
 * when that address is not a loopback one: anyone who can reach it can read the study. */
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report_html.h"
#include "web/server.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim serve DB... [--port N] [--host ADDR]\n\n"
               "Serves the results browser's page of the databases DB... (read-only; with two,\n"
               "the first is the baseline and the page shows compare's verdicts) and keeps it\n"
               "live: rows that runs commit appear within a few seconds. Stop it with Ctrl-C.\n"
               "  --port N     the TCP port, 0-65535 (default 8080; 0: any free port)\n"
               "  --host ADDR  the numeric address to listen on (default 127.0.0.1, this\n"
               "               machine only); any other address is reachable by others\n\n"
               "exit codes: 0 stopped by a signal, 2 bad input (not a results database, bad\n"
               "option, an address that cannot be bound)\n");
}

typedef struct serve_args {
    uint64_t port;
    const char *host;
    cli_args_t pos;
} serve_args_t;

static const cli_opt_t serve_opts[] = {
    {.name = "--port", .kind = CLI_ARG_U64, .off = offsetof(serve_args_t, port), .lo = 0,
     .hi = 65535, .expect = "expected a port number 0-65535", .metavar = "N"},
    {.name = "--host", .kind = CLI_ARG_STRING, .off = offsetof(serve_args_t, host),
     .metavar = "ADDR"},
    {.name = NULL},
};

int cli_serve_main(int argc, char **argv)
{
    static const char *const missing[] = {"DB"};
    serve_args_t a = {.port = 8080, .host = "127.0.0.1"};
    cli_opt_set_t sets[] = {{serve_opts, &a, 0}};
    cli_cmd_spec_t spec = {.cmd = "serve", .npos = 1, .more_pos = true, .missing = missing,
                           .sets = sets, .nsets = 1};
    int rc = cli_args_parse(&spec, argc, argv, &a.pos);
    if (rc == 0 && a.pos.help) usage(stdout);
    int loopback = rc || a.pos.help ? 1 : web_host_is_loopback(a.host);
    if (loopback < 0)
        rc = cli_bad_input("serve: --host %s: expected a numeric IPv4 or IPv6 address", a.host);
    else if (!loopback)
        fprintf(stderr, "sgdsim: serve: warning: listening on %s, which is not a loopback "
                        "address: anyone who can reach it can read these databases\n", a.host);
    if (rc == 0 && !a.pos.help) {
        sgd_err_t err = {{0}};
        web_server_opts_t o = {.paths = a.pos.pos, .npaths = a.pos.npos, .host = a.host,
                               .port = (uint16_t)a.port, .generator = report_html_generator(),
                               .dygraphs_dir = report_html_dygraphs_dir()};
        if (web_serve(&o, &err)) rc = cli_bad_input("serve: %s", err.msg);
    }
    cli_args_free(&a.pos);
    return rc;
}
