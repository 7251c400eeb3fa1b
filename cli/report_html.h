/* `sgdsim report DB... --html FILE` and `sgdsim serve`'s shared command-line side: the
 * generator line, where dygraphs is read from, and the checks of report's flags. */
#ifndef SGDSIM_CLI_REPORT_HTML_H
#define SGDSIM_CLI_REPORT_HTML_H

#include <stdbool.h>

/* 0, or exit 2 after the message: several DBs without --html, --html with --json/--wide. */
int report_html_check_args(const char *html, int ndbs, bool json, bool wide);

/* Writes the page of dbs[0..n) to file; the exit code. */
int report_html(const char *const *dbs, int n, const char *file);

/* "sgdsim VERSION (REV)", the page's generator line (static storage). */
const char *report_html_generator(void);

/* The folder dygraphs is read from: $SGDSIM_DYGRAPHS_DIR, else Debian's (web/page.h). */
const char *report_html_dygraphs_dir(void);

#endif
