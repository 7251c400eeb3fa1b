/* web/page.h: the policy names exactly the page's two inline scripts and its style by their
 * SHA-256 (recomputed here from the page itself), allows no other source, connects only to
 * its own origin when live; the title is escaped; binary documents arrive as base64 in
 * blocks no browser executes; a missing charting library is an error naming the file and
 * its Debian package. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sha256.h"
#include "tests/check.h"
#include "web/page.h"

/* The text between the n-th occurrence of open and the next close. */
static char *between(const char *s, const char *open, const char *close, int nth)
{
    const char *p = s;
    for (int i = 0; i <= nth && p; i++) {
        p = strstr(p, open);
        if (p) p += strlen(open);
    }
    if (!p) return NULL;
    const char *e = strstr(p, close);
    return e ? strndup(p, (size_t)(e - p)) : NULL;
}

/* Whether the policy names the SHA-256 of text as a base64 source. */
static bool policy_has_hash_of(const char *csp, const char *text)
{
    char hex[SGD_SHA256_HEX_LEN + 1], cmd[256];
    sgd_sha256_hex(text, strlen(text), hex);
    /* base64 of the digest through the standard tool, so the page's encoder is checked
     * against another one */
    snprintf(cmd, sizeof cmd, "python3 -c 'import base64, sys; "
             "print(base64.b64encode(bytes.fromhex(sys.argv[1])).decode())' %s", hex);
    FILE *p = popen(cmd, "r");
    char b64[128] = {0};
    if (!p || !fgets(b64, sizeof b64, p)) return false;
    pclose(p);
    b64[strcspn(b64, "\n")] = '\0';
    char want[160];
    snprintf(want, sizeof want, "'sha256-%s'", b64);
    return strstr(csp, want) != NULL;
}

int main(void)
{
    sgd_strbuf_t html = {0}, csp = {0}, bytes = {0};
    sgd_err_t err = {{0}};
    sgd_strbuf_put(&bytes, "</script><img onerror=x>\0\xff", 26); /* binary: NUL, not UTF-8 */
    web_page_opts_t o = {.title = "t</title><script>x()</script>", .data_json = "{}",
                         .exact = &bytes, .dygraphs_dir = WEB_DYGRAPHS_DIR};
    CHECK(web_page_html(&o, &html, &csp, &err) == 0);
    CHECK(strstr(csp.p, "default-src 'none'") != NULL);
    CHECK(strstr(csp.p, "connect-src 'none'") != NULL);
    CHECK(strstr(csp.p, "unsafe") == NULL);
    CHECK(strstr(html.p, "<title>t&lt;/title&gt;&lt;script&gt;x()&lt;/script&gt;</title>"));
    char *dy = between(html.p, "<script>", "</script>", 0);
    char *app = between(html.p, "<script>", "</script>", 1);
    char *style = between(html.p, "<style>", "</style>", 0);
    CHECK(dy && app && style && !between(html.p, "<script>", "</script>", 2));
    CHECK(dy && policy_has_hash_of(csp.p, dy));
    CHECK(app && policy_has_hash_of(csp.p, app));
    CHECK(style && policy_has_hash_of(csp.p, style));
    CHECK(app && !strstr(app, "eval(") && !strstr(app, "innerHTML") && !strstr(app, "Function("));
    CHECK(!strstr(html.p, "sourceMappingURL"));
    /* binary documents as base64 in blocks no browser executes (Python's encoder agrees) */
    CHECK(strstr(html.p, "<script type=\"application/gzip\" id=\"sgdsim-exact\">"
                         "PC9zY3JpcHQ+PGltZyBvbmVycm9yPXg+AP8=</script>") != NULL);
    CHECK(strstr(html.p, "<script type=\"application/gzip\" id=\"sgdsim-series\"></script>"));
    CHECK(!strstr(html.p, "<img"));
    free(dy), free(app), free(style);
    sgd_strbuf_free(&html), sgd_strbuf_free(&csp);

    o.live = true, o.data_json = NULL, o.exact = NULL;
    CHECK(web_page_html(&o, &html, &csp, &err) == 0);
    CHECK(strstr(csp.p, "connect-src 'self'") != NULL);
    sgd_strbuf_free(&html), sgd_strbuf_free(&csp);

    o.dygraphs_dir = "/nonexistent-dygraphs";
    CHECK(web_page_html(&o, &html, &csp, &err) == -1);
    CHECK(strstr(err.msg, "/nonexistent-dygraphs/dygraph.min.js") != NULL);
    CHECK(strstr(err.msg, "libjs-dygraphs") != NULL);
    sgd_strbuf_free(&html), sgd_strbuf_free(&csp), sgd_strbuf_free(&bytes);
    return check_exit();
}
