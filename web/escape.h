/* Escaping for each context a string from a results database can reach on a page: HTML text,
 * an HTML attribute's value, and a JSON (or JavaScript) string literal inside a <script>
 * element.  A database is input like any file: a run name, tag, metric name or status detail
 * may hold "</script>", quotes, "<img onerror=...>" or U+2028, and must arrive on the page as
 * the text it is, never as markup or code.
 *
 *   web_html_text   & < > " ' as character references: safe as element content and as a
 *                   double- or single-quoted attribute value (one function for both, so no
 *                   caller picks the weaker one);
 *   web_json_string a JSON string literal that is also a JavaScript string literal and
 *                   cannot end the <script> element it sits in: besides " \ and control
 *                   characters, < > & and U+2028, U+2029 as \uXXXX;
 *   web_base64      bytes as base64 (A-Z a-z 0-9 + / =, no character that could end an
 *                   element): binary data in a non-executed <script> element.
 * Bytes that are not UTF-8 become U+FFFD in the first two, so the page is always valid UTF-8 and
 * JSON.parse never sees a broken sequence.  NULL reads as the empty string in HTML and as
 * null in JSON. */
#ifndef SGDSIM_WEB_ESCAPE_H
#define SGDSIM_WEB_ESCAPE_H

#include "common/strbuf.h"

void web_html_text(sgd_strbuf_t *b, const char *s);

void web_json_string(sgd_strbuf_t *b, const char *s);

void web_base64(sgd_strbuf_t *b, const void *data, size_t n);

/* A number as JSON: the shortest text that reads back as the same double
 * (sgd_json_format_number); null when not finite (JSON has no NaN). */
void web_json_number(sgd_strbuf_t *b, double d);

/* A number as JSON rounded to `digits` significant digits (what a drawing needs, in less
 * text); null when not finite. */
void web_json_number_digits(sgd_strbuf_t *b, double d, int digits);

#endif
