#pragma once

#include <string_view>

namespace courier::admin {

// GET /: the status page a person on call opens in a browser. One self-contained HTML document
// (inline style and script, no external asset, nothing secret: it shows what /state shows) that
// reads /state every 2 s and draws each route: its breaker, why its partitions are paused, what
// is in flight, its lag and how long its oldest record has waited, and its records delivered,
// retried and dead-lettered (by error class). The data is written with textContent, never as
// markup.
std::string_view status_page();

}  // namespace courier::admin
