/* `sgdsim serve DB... [--port N] [--host ADDR] [--request-timeout S] [--match-on KEYS |
 * --ignore KEYS] [--pool-builds]`: the results browser's page, live, over HTTP
 * (web/server.h).  It listens on 127.0.0.1 unless --host names another address or a host
 * name, and warns when that is not a loopback address: anyone who can reach it can read the
 * study. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report_html.h"
#include "web/server.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim serve DB... [--port N] [--host ADDR] [--request-timeout S]\n"
               "                    [--match-on KEYS | --ignore KEYS] [--pool-builds]\n\n"
               "Serves the results browser's page of the databases DB... (read-only; with two,\n"
               "the first is the baseline and the page shows compare's verdicts) and keeps it\n"
               "live: rows that runs commit appear within a few seconds. Stop it with Ctrl-C.\n"
               "  --port N     the TCP port, 0-65535 (default 8080; 0: any free port)\n"
               "  --host ADDR  the address to listen on, IPv4 or IPv6 (bare or in brackets), or\n"
               "               a host name such as localhost (default 127.0.0.1, this machine\n"
               "               only); any other than a loopback address is reachable by others\n"
               "  --request-timeout S\n"
               "               seconds a client has to send a request's headers, counted\n"
               "               from its connection or its previous answer, 1-3600 (default\n"
               "               %d); a slower one is cut, so slow clients cannot hold the\n"
               "               server's %d connections (a newcomer beyond them cuts the one\n"
               "               that has waited longest for a request)\n"
               "  --match-on KEYS, --ignore KEYS  with two databases: how configurations\n"
               "               pair, as for sgdsim compare\n"
               "  --pool-builds  a configuration's runs of several builds form one sample\n\n"
               "exit codes: 0 stopped by a signal, 2 bad input (not a results database, bad\n"
               "option, an address that cannot be bound)\n",
            WEB_REQUEST_TIMEOUT_S, WEB_MAX_CONNECTIONS);
}

typedef struct serve_args {
    uint64_t port, request_timeout;
    const char *host;
    cli_list_t match_on, ignore;
    bool pool_builds;
    cli_args_t pos;
} serve_args_t;

static const cli_opt_t serve_opts[] = {
    {.name = "--port", .kind = CLI_ARG_U64, .off = offsetof(serve_args_t, port), .lo = 0,
     .hi = 65535, .expect = "expected a port number 0-65535", .metavar = "N"},
    {.name = "--host", .kind = CLI_ARG_STRING, .off = offsetof(serve_args_t, host),
     .metavar = "ADDR"},
    {.name = "--request-timeout", .kind = CLI_ARG_U64,
     .off = offsetof(serve_args_t, request_timeout), .lo = 1, .hi = 3600,
     .expect = "expected seconds, 1-3600", .metavar = "S"},
    {.name = "--match-on", .kind = CLI_ARG_LIST, .off = offsetof(serve_args_t, match_on),
     .metavar = "KEYS"},
    {.name = "--ignore", .kind = CLI_ARG_LIST, .off = offsetof(serve_args_t, ignore),
     .metavar = "KEYS"},
    {.name = "--pool-builds", .kind = CLI_ARG_FLAG, .off = offsetof(serve_args_t, pool_builds)},
    {.name = NULL},
};

int cli_serve_main(int argc, char **argv)
{
    static const char *const missing[] = {"DB"};
    serve_args_t a = {.port = 8080, .host = "127.0.0.1",
                      .request_timeout = WEB_REQUEST_TIMEOUT_S};
    cli_opt_set_t sets[] = {{serve_opts, &a, 0}};
    cli_cmd_spec_t spec = {.cmd = "serve", .npos = 1, .more_pos = true, .missing = missing,
                           .sets = sets, .nsets = 1};
    int rc = cli_args_parse(&spec, argc, argv, &a.pos);
    if (rc == 0 && a.pos.help) usage(stdout);
    /* "[::1]", as an IPv6 address is written in a URL, is the address ::1 */
    char unbracketed[256];
    size_t n = strlen(a.host);
    if (n > 2 && n < sizeof unbracketed && a.host[0] == '[' && a.host[n - 1] == ']') {
        snprintf(unbracketed, sizeof unbracketed, "%.*s", (int)(n - 2), a.host + 1);
        a.host = unbracketed;
    }
    int loopback = rc || a.pos.help ? 1 : web_host_is_loopback(a.host);
    if (loopback < 0)
        rc = cli_bad_input("serve: --host %s: expected an IPv4 or IPv6 address, or a host "
                           "name this machine resolves", a.host);
    else if (!loopback)
        fprintf(stderr, "sgdsim: serve: warning: listening on %s, which is not a loopback "
                        "address: anyone who can reach it can read these databases\n", a.host);
    if (rc == 0 && !a.pos.help && (a.match_on.n || a.ignore.n) && a.pos.npos != 2)
        rc = cli_bad_input("serve: %s pairs the configurations of two databases: give "
                           "exactly two", a.match_on.n ? "--match-on" : "--ignore");
    ana_match_t m = {{0}, {0}, false};
    if (rc == 0 && !a.pos.help)
        rc = report_html_match("serve", &a.match_on, &a.ignore, a.pool_builds, &m);
    if (rc == 0 && !a.pos.help) {
        sgd_err_t err = {{0}};
        web_server_opts_t o = {.paths = a.pos.pos, .npaths = a.pos.npos, .host = a.host,
                               .port = (uint16_t)a.port,
                               .request_timeout_s = (unsigned)a.request_timeout,
                               .generator = report_html_generator(),
                               .dygraphs_dir = report_html_dygraphs_dir(), .match = &m};
        if (web_serve(&o, &err)) rc = cli_bad_input("serve: %s", err.msg);
    }
    ana_keys_free(&m.match_on), ana_keys_free(&m.ignore);
    cli_list_free(&a.match_on), cli_list_free(&a.ignore);
    cli_args_free(&a.pos);
    return rc;
}
