/* The results browser's page (web/page.h): the skeleton the script fills, with its assets
 * and data inlined and the hashes of its scripts and style in the policy. */
#include "web/page.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/sha256.h"
#include "web/assets.h"
#include "web/escape.h"

/* The file at dir/name, whole, into *text with its "sourceMappingURL" comment (a map the
 * page does not carry) cut off. */
static int read_asset(const char *dir, const char *name, sgd_strbuf_t *text, sgd_err_t *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return sgd_errf(err, "%s: cannot read the charting library (Debian package "
                        "libjs-dygraphs): %s", path, strerror(errno));
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sgd_strbuf_put(text, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad || text->n == 0) return sgd_errf(err, "%s: cannot read the charting library", path);
    char *map = strstr(text->p, "sourceMappingURL=");
    if (map) {
        while (map > text->p && map[-1] != '\n') map--;
        text->n = (size_t)(map - text->p);
        text->p[text->n] = '\0';
    }
    return 0;
}

/* Whether the text could end its <script> or <style> element or turn it into a comment. */
static bool leaves_element(const char *s)
{
    for (const char *p = s; *p; p++)
        if (*p == '<' && (strncasecmp(p, "</script", 8) == 0 || strncasecmp(p, "</style", 7) == 0
                          || strncmp(p, "<!--", 4) == 0))
            return true;
    return false;
}

/* "'sha256-BASE64'" of the bytes, the form a policy names an inline element by. */
static void csp_hash(sgd_strbuf_t *csp, const char *s, size_t n)
{
    char hex[SGD_SHA256_HEX_LEN + 1];
    unsigned char d[32];
    sgd_sha256_hex(s, n, hex);
    for (int i = 0; i < 32; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        d[i] = (unsigned char)v;
    }
    sgd_strbuf_puts(csp, " 'sha256-");
    web_base64(csp, d, sizeof d);
    sgd_strbuf_put(csp, "'", 1);
}

static void policy(sgd_strbuf_t *csp, const sgd_strbuf_t *dygraphs, const sgd_strbuf_t *style, bool live)
{
    sgd_strbuf_puts(csp, "default-src 'none'; script-src");
    csp_hash(csp, dygraphs->p, dygraphs->n);
    csp_hash(csp, web_app_js, web_app_js_len);
    sgd_strbuf_puts(csp, "; style-src");
    csp_hash(csp, style->p, style->n);
    sgd_strbuf_printf(csp, "; img-src data:; connect-src %s; base-uri 'none'; form-action 'none'",
                   live ? "'self'" : "'none'");
}

/* The static skeleton app.js fills; the title is the only text in it from outside. */
static void body(sgd_strbuf_t *h, const char *title)
{
    sgd_strbuf_puts(h, "<body>\n<header><h1>");
    web_html_text(h, title);
    sgd_strbuf_puts(h,
        "</h1><div id=\"summary\"></div><div id=\"live\" class=\"live\"></div></header>\n<main>\n"
        "<section id=\"curves\"><h2>Curves</h2><div class=\"controls\">"
        "<label>metric <select id=\"metric\"></select></label>"
        "<label>x axis <select id=\"xaxis\"></select></label>"
        "<label>draw <select id=\"view\"><option value=\"groups\">configurations: mean \u00b1 "
        "sd over seeds</option><option value=\"runs\">runs (the table's filter)</option>"
        "</select></label><span class=\"note\">drag to zoom, double-click to reset, "
        "hover for values</span></div>"
        "<div class=\"chart-wrap\"><div><div id=\"chart\"></div><div id=\"x-label\"></div></div>"
        "<div id=\"hover\"></div></div><div id=\"toggles\"></div><div id=\"curve-note\"></div>"
        "</section>\n<section id=\"compare\" hidden></section>\n"
        "<section id=\"runs\"><h2>Runs</h2><div class=\"controls\">"
        "<label>show <select id=\"table-view\"><option value=\"runs\">runs</option>"
        "<option value=\"groups\">configurations \u00d7 seeds</option></select></label>"
        "<input id=\"filter\" type=\"search\" placeholder=\"filter: text, key=value, key&lt;n, "
        "key&gt;n\" aria-label=\"filter runs\"><span id=\"table-count\" class=\"note\"></span>"
        "</div><div id=\"table-box\" class=\"table-box\"></div></section>\n"
        "<section id=\"run\"></section>\n</main>\n");
}

static void script_block(sgd_strbuf_t *h, const char *id, const char *json)
{
    sgd_strbuf_printf(h, "<script type=\"application/json\" id=\"%s\">", id);
    if (json) sgd_strbuf_puts(h, json); /* written by web/model_json.c: safe inside <script> */
    sgd_strbuf_puts(h, "</script>\n");
}

/* Gzip-compressed bytes as base64: a data block no browser executes or parses. */
static void binary_block(sgd_strbuf_t *h, const char *id, const sgd_strbuf_t *gz)
{
    sgd_strbuf_printf(h, "<script type=\"application/gzip\" id=\"%s\">", id);
    if (gz) web_base64(h, gz->p, gz->n);
    sgd_strbuf_puts(h, "</script>\n");
}

int web_page_html(const web_page_opts_t *o, sgd_strbuf_t *h, sgd_strbuf_t *csp, sgd_err_t *err)
{
    sgd_strbuf_t dy = {0}, dycss = {0}, style = {0};
    int rc = read_asset(o->dygraphs_dir, "dygraph.min.js", &dy, err) ||
             read_asset(o->dygraphs_dir, "dygraph.min.css", &dycss, err) ? -1 : 0;
    if (rc == 0 && (leaves_element(dy.p) || leaves_element(dycss.p)))
        rc = sgd_errf(err, "%s: the charting library holds text that would end its element",
                      o->dygraphs_dir);
    if (rc == 0) {
        sgd_strbuf_printf(&style, "\n%s\n%.*s\n", dycss.p, (int)web_style_css_len, web_style_css);
        policy(csp, &dy, &style, o->live);
        sgd_strbuf_puts(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                        "<meta http-equiv=\"Content-Security-Policy\" content=\"");
        web_html_text(h, csp->p);
        sgd_strbuf_puts(h, "\">\n<meta name=\"referrer\" content=\"no-referrer\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width\">\n"
                        "<link rel=\"icon\" href=\"data:,\">\n<title>");
        web_html_text(h, o->title);
        sgd_strbuf_puts(h, "</title>\n<style>");
        sgd_strbuf_put(h, style.p, style.n);
        sgd_strbuf_puts(h, "</style>\n</head>\n");
        body(h, o->title);
        script_block(h, "sgdsim-data", o->data_json);
        binary_block(h, "sgdsim-series", o->series);
        binary_block(h, "sgdsim-exact", o->exact);
        sgd_strbuf_puts(h, "<script>");
        sgd_strbuf_put(h, dy.p, dy.n);
        sgd_strbuf_puts(h, "</script>\n<script>");
        sgd_strbuf_put(h, web_app_js, web_app_js_len);
        sgd_strbuf_puts(h, "</script>\n</body></html>\n");
    }
    sgd_strbuf_free(&dy), sgd_strbuf_free(&dycss), sgd_strbuf_free(&style);
    return rc;
}
