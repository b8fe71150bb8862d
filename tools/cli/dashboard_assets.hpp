#pragma once
// The dashboard page's files, compiled into the binary (no build step, no
// network): the HTML shell, its style sheet and its plain JavaScript.

#include <string_view>

namespace ad::cli {

extern const std::string_view dashboard_html;
extern const std::string_view dashboard_css;
extern const std::string_view dashboard_js;

} // namespace ad::cli
