/* The CLI's side of the output guard (see outpath.h). */
#include "cli/outpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "render/text.h"

size_t cli_outpath_scenario_inputs(const char *scenario, const scn_t *s,
                                   sgd_outpath_input_t *in)
{
    size_t n = 0;
    in[n++] = (sgd_outpath_input_t){scenario, "the scenario", false};
    if (!s) return n;
    const char *files[] = {s->data.train_images, s->data.train_labels, s->data.test_images,
                           s->data.test_labels};
    const char *keys[] = {"the data file data.train_images", "the data file data.train_labels",
                          "the data file data.test_images", "the data file data.test_labels"};
    for (int i = 0; i < 4; i++)
        if (files[i]) in[n++] = (sgd_outpath_input_t){files[i], keys[i], false};
    return n;
}

/* "CMD: LABEL: ..." with the label's text escaped for the terminal. */
static int print_refusal(const char *cmd, const char *msg)
{
    char *shown = rnd_text_escape(msg);
    int rc = cli_bad_input("%s%s%s", cmd, *cmd ? ": " : "", shown);
    free(shown);
    return rc;
}

int cli_outpath_refuse(const char *cmd, const char *opt, const char *target, bool db,
                       const sgd_outpath_input_t *in, size_t n)
{
    sgd_err_t err = {{0}};
    size_t size = strlen(opt) + strlen(target) + 2;
    char *label = sgd_xmalloc(size);
    snprintf(label, size, "%s%s%s", opt, *opt ? " " : "", target);
    int bad = sgd_outpath_check(label, target, db, in, n, &err);
    free(label);
    return bad ? print_refusal(cmd, err.msg) : SGD_EXIT_OK;
}

int cli_outpath_refuse_fd(const char *cmd, const char *opt, int fd,
                          const sgd_outpath_input_t *in, size_t n)
{
    sgd_err_t err = {{0}};
    char label[128];
    snprintf(label, sizeof label, "%s %d", opt, fd);
    return sgd_outpath_check_fd(label, fd, in, n, &err) ? print_refusal(cmd, err.msg)
                                                        : SGD_EXIT_OK;
}
