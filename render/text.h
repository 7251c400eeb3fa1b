/* Text safety for what sgdsim prints and what it hands to other programs: strings from a
 * results database (scenario names, configuration values, metric names) are whatever its
 * writer put there, so before they reach a terminal or gnuplot they are checked here.
 *
 *   (sgd_utf8_len, common/json.h: the length of one well-formed UTF-8 sequence, so callers
 *   can pass text through unchanged and treat anything else as single bytes)
 *   rnd_is_control   C0 controls, DEL and the C1 controls U+0080..U+009F, which terminals
 *                    obey (ESC sequences, 8-bit CSI) instead of showing
 *   rnd_text_escape  the form shown in text tables and report lines: printable text as it
 *                    is, every control character and invalid byte as an escape
 *   rnd_shell_words  a command line as one string a POSIX shell reads back into the same
 *                    words (runs.command_line)
 *
 * Pure functions; what they return is malloc'ed and owned by the caller. */
#ifndef SGDSIM_RENDER_TEXT_H
#define SGDSIM_RENDER_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* True when the sequence of len bytes at s (as sgd_utf8_len measured it) is a control
 * character: bytes 0x01..0x1f and 0x7f, or U+0080..U+009F. */
bool rnd_is_control(const char *s, size_t len);

/* s for a terminal: \n, \t and \r as those two characters, other control bytes and bytes
 * that are not well-formed UTF-8 as \xHH, C1 controls as \u0080..\u009f; everything else,
 * backslashes included, as it is.  The caller frees the result. */
char *rnd_text_escape(const char *s);

/* prefix (e.g. "sgdsim run", taken as it is), then argv[0..argc) separated by spaces, each
 * word bare when it is made of letters, digits and _ - . / = : , + @ % only, else in single
 * quotes (a quote inside as '\'').  The caller frees the result. */
char *rnd_shell_words(const char *prefix, int argc, char *const *argv);

#endif
