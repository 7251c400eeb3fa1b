/* web/escape.h: each context's escaping of hostile text — "</script>", quotes, "<img
 * onerror>", U+2028/U+2029, control characters, bytes that are not UTF-8 — base64, exact
 * numbers and drawn ones (7 significant digits). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "web/escape.h"

static void check_html(const char *in, const char *want)
{
    sgd_strbuf_t b = {0};
    web_html_text(&b, in);
    CHECK(strcmp(b.p ? b.p : "", want) == 0);
    sgd_strbuf_free(&b);
}

static void check_json(const char *in, const char *want)
{
    sgd_strbuf_t b = {0};
    web_json_string(&b, in);
    CHECK(strcmp(b.p, want) == 0);
    sgd_strbuf_free(&b);
}

static void check_drawn(double d, const char *want)
{
    sgd_strbuf_t b = {0};
    web_json_number_digits(&b, d, 7);
    CHECK(strcmp(b.p, want) == 0);
    sgd_strbuf_free(&b);
}

static void check_base64(const char *in, const char *want)
{
    sgd_strbuf_t b = {0};
    web_base64(&b, in, strlen(in));
    CHECK(strcmp(b.p ? b.p : "", want) == 0);
    sgd_strbuf_free(&b);
}

static void check_number(double d, const char *want)
{
    sgd_strbuf_t b = {0};
    web_json_number(&b, d);
    CHECK(strcmp(b.p, want) == 0);
    sgd_strbuf_free(&b);
}

int main(void)
{
    check_html("</script><img src=x onerror=alert(1)>",
               "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
    check_html("a \"b\" 'c' & d", "a &quot;b&quot; &#39;c&#39; &amp; d");
    check_html("caf\xc3\xa9 \xe2\x80\xa8", "caf\xc3\xa9 \xe2\x80\xa8"); /* text: kept */
    check_html("bad \xff\xc0\xaf end", "bad \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd end");
    check_html(NULL, "");

    check_json("</script>", "\"\\u003c/script\\u003e\"");
    check_json("<!-- & -->", "\"\\u003c!-- \\u0026 --\\u003e\"");
    check_json("q\"b\\s", "\"q\\\"b\\\\s\"");
    check_json("l\xe2\x80\xa8p\xe2\x80\xa9", "\"l\\u2028p\\u2029\"");
    check_json("\n\t\x01\x7f", "\"\\u000a\\u0009\\u0001\\u007f\"");
    check_json("caf\xc3\xa9 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
    check_json("\xed\xa0\x80 \xe0\x80\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
                                            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    check_json(NULL, "null");

    /* RFC 4648's test vectors: every length modulo 3 */
    const char *b64[][2] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
                            {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
                            {"</script>\xff", "PC9zY3JpcHQ+/w=="}};
    for (size_t i = 0; i < sizeof b64 / sizeof *b64; i++) check_base64(b64[i][0], b64[i][1]);

    check_number(0.1, "0.1");
    check_number(0.30000000000000004, "0.30000000000000004");
    check_number(42, "42");
    check_number(NAN, "null");
    check_number(-INFINITY, "null");

    /* drawn values: 7 significant digits, still JSON numbers */
    check_drawn(0.30000000000000004, "0.3");
    check_drawn(2.8211068971913766, "2.821107");
    check_drawn(-1.234567891e-5, "-1.234568e-05");
    check_drawn(123456789, "1.234568e+08");
    check_drawn(NAN, "null");
    check_drawn(INFINITY, "null");
    return check_exit();
}
