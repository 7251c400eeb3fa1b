/* The results browser's products from database paths (web/build.h). */
#include "web/build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/outpath.h"
#include "web/decimate.h"
#include "web/model_json.h"
#include "web/page.h"
#include "web/study.h"
#include "web/verdicts.h"

int web_build_model(const web_build_opts_t *o, web_docs_t *d, sgd_err_t *err)
{
    static const ana_match_t whole = {{0}, {0}, false};
    const ana_match_t *match = o->match ? o->match : &whole;
    web_study_t s;
    if (web_study_load(o->paths, o->npaths, match->pool_builds, &s, err)) return -1;
    web_verdicts_t v = {0};
    int rc = 0;
    if (s.ndbs == 2) rc = web_verdicts(&s, match, &v, err);
    else web_group_colors(&s, &v);
    if (rc == 0) {
        web_model_opts_t m = {.generator = o->generator, .live = o->live,
                              .columns = o->columns > 0 ? o->columns : WEB_COLUMNS};
        web_model_json(&s, &v, &m, &d->data, &d->series, &d->exact);
    }
    web_verdicts_free(&v);
    web_study_free(&s);
    return rc;
}

/* "sgdsim results: a.db" or "sgdsim results: a.db vs b.db" (or "+ N more"). */
static void title_of(const web_build_opts_t *o, sgd_strbuf_t *t)
{
    sgd_strbuf_puts(t, "sgdsim results");
    for (int i = 0; i < o->npaths && i < 2; i++)
        sgd_strbuf_printf(t, "%s%s", i ? (o->npaths == 2 ? " vs " : ", ") : ": ", o->paths[i]);
    if (o->npaths > 2) sgd_strbuf_printf(t, " + %d more", o->npaths - 2);
}

void web_docs_free(web_docs_t *d)
{
    sgd_strbuf_free(&d->data), sgd_strbuf_free(&d->series), sgd_strbuf_free(&d->exact);
}

int web_build_page(const web_build_opts_t *o, const web_docs_t *d, sgd_strbuf_t *page,
                   sgd_strbuf_t *csp, sgd_err_t *err)
{
    sgd_strbuf_t title = {0};
    if (o->paths) title_of(o, &title);
    else sgd_strbuf_puts(&title, "sgdsim results");
    web_page_opts_t p = {.title = title.p, .live = o->live,
                         .data_json = d ? d->data.p : NULL, .series = d ? &d->series : NULL,
                         .exact = d ? &d->exact : NULL, .dygraphs_dir = o->dygraphs_dir};
    int rc = web_page_html(&p, page, csp, err);
    sgd_strbuf_free(&title);
    return rc;
}

/* All of b to fd; -1 with errno set. */
static int write_all(int fd, const sgd_strbuf_t *b)
{
    for (size_t at = 0; at < b->n;) {
        ssize_t w = write(fd, b->p + at, b->n - at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        at += (size_t)w;
    }
    return 0;
}

static int refuse_inputs(const web_build_opts_t *o, const char *file, sgd_err_t *err)
{
    sgd_outpath_input_t *in = sgd_xcalloc((size_t)o->npaths + 1, sizeof *in);
    for (int i = 0; i < o->npaths; i++) in[i] = (sgd_outpath_input_t){o->paths[i], "a results "
                                                                      "database DB", true};
    char label[4200];
    snprintf(label, sizeof label, "--html %s", file);
    int rc = sgd_outpath_check(label, file, false, in, (size_t)o->npaths, err);
    free(in);
    return rc;
}

int web_write_html(const web_build_opts_t *o, const char *file, sgd_err_t *err)
{
    if (refuse_inputs(o, file, err)) return -1;
    web_docs_t d = {0};
    sgd_strbuf_t page = {0}, csp = {0};
    int rc = web_build_model(o, &d, err) || web_build_page(o, &d, &page, &csp, err) ? -1 : 0;
    sgd_outfile_t out;
    if (rc == 0 && sgd_outfile_open(&out, file, err)) rc = -1;
    else if (rc == 0 && write_all(out.fd, &page)) {
        rc = sgd_errf(err, "%s: cannot write: %s", file, strerror(errno));
        sgd_outfile_abort(&out, false);
    } else if (rc == 0) {
        rc = sgd_outfile_commit(&out, false, err);
    }
    web_docs_free(&d), sgd_strbuf_free(&page), sgd_strbuf_free(&csp);
    return rc;
}
