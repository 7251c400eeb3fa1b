/* How `sgdsim plot` hands a script to gnuplot: the script from an unlinked temporary file
 * on gnuplot's standard input, the figure on its standard output into a temporary file
 * beside FIG (common/outpath.h), renamed to FIG once gnuplot succeeds, so the figure's name
 * never reaches gnuplot and a failed plot never leaves a half-written figure under the
 * requested name.
 *
 * Errors: the message is printed (cli_bad_input) and the exit code returned. */
#ifndef SGDSIM_CLI_PLOT_DRAW_H
#define SGDSIM_CLI_PLOT_DRAW_H

#include <stdbool.h>
#include <stddef.h>

/* Finds an executable in PATH into out; false when absent. */
bool plot_find_in_path(const char *name, char *out, size_t size);

/* Draws script with gnuplot (its path) into out by way of a temporary file beside it
 * (common/outpath.h); 0 or the exit code. */
int plot_draw(const char *gnuplot, const char *script, const char *out);

#endif
