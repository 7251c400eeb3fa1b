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

int report_html(const char *const *dbs, int n, const char *file)
{
    sgd_err_t err = {{0}};
    web_build_opts_t o = {.paths = dbs, .npaths = n, .generator = report_html_generator(),
                          .dygraphs_dir = report_html_dygraphs_dir()};
    if (web_write_html(&o, file, &err)) return cli_bad_input("report: %s", err.msg);
    return SGD_EXIT_OK;
}
