/* The page's own script and styles (web/pack.js and web/app.js as one script, web/style.css),
 * compiled into sgdsim by cmake/embed.cmake so that a page needs no file of sgdsim's at run
 * time. */
#ifndef SGDSIM_WEB_ASSETS_H
#define SGDSIM_WEB_ASSETS_H

#include <stddef.h>

extern const char web_app_js[];
extern const size_t web_app_js_len;
extern const char web_style_css[];
extern const size_t web_style_css_len;

#endif
