/* `sgdsim report DB... --html FILE` and `sgdsim serve`'s shared command-line side: the
 * generator line, where dygraphs is read from, and the checks of report's flags. */
#ifndef SGDSIM_CLI_REPORT_HTML_H
#define SGDSIM_CLI_REPORT_HTML_H

#include <stdbool.h>

#include "analysis/pairs.h"
#include "cli/options.h"

/* 0, or exit 2 after the message: several DBs without --html, --html with --json/--wide. */
int report_html_check_args(const char *html, int ndbs, bool json, bool wide);

/* The A/B view's --match-on and --ignore values (as given) and --pool-builds into *m
 * (ana_keys_free both lists); 0 or exit 2 after the message, which names cmd. */
int report_html_match(const char *cmd, const cli_list_t *match_on, const cli_list_t *ignore,
                      bool pool_builds, ana_match_t *m);

/* Writes the page of dbs[0..n) to file, two databases paired under --match-on / --ignore,
 * runs of several builds pooled with pool_builds; the exit code. */
int report_html(const char *const *dbs, int n, const char *file, const cli_list_t *match_on,
                const cli_list_t *ignore, bool pool_builds);

/* "sgdsim VERSION (REV)", the page's generator line (static storage). */
const char *report_html_generator(void);

/* The folder dygraphs is read from: $SGDSIM_DYGRAPHS_DIR, else Debian's (web/page.h). */
const char *report_html_dygraphs_dir(void);

#endif
