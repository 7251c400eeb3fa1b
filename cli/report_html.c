/* `sgdsim report DB... --html FILE` (cli/report_html.h): the command line's side only; the
 * page is made by web/build.h. */
#include "cli/report_html.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "web/build.h"
#include "web/page.h"

int report_html_check_args(const char *html, int ndbs, bool json, bool wide)
{
    if (!html && ndbs > 1)
        return cli_bad_input("report: several databases are read only with --html FILE "
                             "(see sgdsim report --help)");
    if (html && (json || wide))
        return cli_bad_input("report: --html writes a page; it takes neither --json nor "
                             "--wide");
    if (html && !*html) return cli_bad_input("report: --html: empty file name");
    return SGD_EXIT_OK;
}

const char *report_html_generator(void)
{
    static char line[256];
    snprintf(line, sizeof line, "sgdsim %s (%s)", cli_version(), cli_git_rev());
    return line;
}

const char *report_html_dygraphs_dir(void)
{
    const char *dir = getenv("SGDSIM_DYGRAPHS_DIR");
    return dir && *dir ? dir : WEB_DYGRAPHS_DIR;
}

int report_html_match(const char *cmd, const cli_list_t *match_on, const cli_list_t *ignore,
                      bool pool_builds, ana_match_t *m)
{
    sgd_err_t err = {{0}};
    *m = (ana_match_t){.pool_builds = pool_builds};
    for (int i = 0; i < match_on->n; i++)
        if (ana_keys_parse(match_on->v[i], "--match-on", &m->match_on, &err))
            return cli_bad_input("%s: %s", cmd, err.msg);
    for (int i = 0; i < ignore->n; i++)
        if (ana_keys_parse(ignore->v[i], "--ignore", &m->ignore, &err))
            return cli_bad_input("%s: %s", cmd, err.msg);
    return SGD_EXIT_OK;
}

int report_html(const char *const *dbs, int n, const char *file, const cli_list_t *match_on,
                const cli_list_t *ignore, bool pool_builds)
{
    sgd_err_t err = {{0}};
    ana_match_t m;
    int rc = report_html_match("report", match_on, ignore, pool_builds, &m);
    web_build_opts_t o = {.paths = dbs, .npaths = n, .generator = report_html_generator(),
                          .dygraphs_dir = report_html_dygraphs_dir(), .match = &m};
    if (rc == SGD_EXIT_OK && web_write_html(&o, file, &err))
        rc = cli_bad_input("report: %s", err.msg);
    ana_keys_free(&m.match_on);
    ana_keys_free(&m.ignore);
    return rc;
}
