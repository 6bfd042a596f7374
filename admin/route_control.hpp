#pragma once

// POST /routes/<name>/pause and /resume on the admin listener: what a request asks and whether
// it may, decided without threads or actors. admin_endpoints carries a command out (the
// route's consumer takes or drops pause_reason::operator_request) and answers with
// render_route_controlled.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "admin/exchange.hpp"

namespace courier::admin {

// POST /routes/<name>/pause, POST /routes/<name>/resume, GET /routes/<name>/auto-redrive (the
// auto-redrive's state and a dry run of what an event fired now would move) and
// POST /routes/<name>/auto-redrive/stop (drops an armed event, stops a running one).
// POST /routes/<name>/endpoints/<endpoint>/pause and /resume: one endpoint of a route with
// several (its records wait in the route's last retry tier meanwhile).
enum class route_action : std::uint8_t {
  pause,
  resume,
  auto_redrive_preview,
  auto_redrive_stop,
  endpoint_pause,
  endpoint_resume,
};

// The method an action takes: GET for the preview, POST for the others.
std::string_view method_of(route_action a);

// A request that passed every check: this route, this action.
struct route_command {
  std::string route;
  route_action action = route_action::pause;
  std::string endpoint;  // endpoint_pause, endpoint_resume: its name, percent-decoded
};

// Whether the target's path is under /routes/, which decide_route_control answers (the GET
// endpoints answer the rest).
bool is_route_control_target(std::string_view target);

// The decision on a request whose target is_route_control_target, checked in this order:
//   404 a path other than /routes/<name>/pause, /resume, /auto-redrive or /auto-redrive/stop
//       (a query is ignored);
//   400 a name with a malformed percent-escape (the name is percent-decoded: a route named
//       "a/b" is /routes/a%2Fb/pause);
//   405 a method other than the action's (Allow: POST, or GET for the preview);
//   403 no token configured (`token` empty): route control is off;
//   401 no "Authorization: Bearer <token>", or another token (WWW-Authenticate: Bearer);
//   404 a name that is no route of `routes`.
// The token is compared in constant time and appears in no answer. Authorization comes before
// the route's name is looked up, so whoever has no token learns nothing from the status.
std::variant<route_command, admin_reply> decide_route_control(
    const admin_request& req, std::string_view token, const std::vector<std::string>& routes);

// Whether an Authorization header's value is "Bearer <token>" (the scheme in any case, RFC 7235)
// for a non-empty token; the comparison takes as long for every token of the same length.
bool bearer_matches(std::string_view authorization, std::string_view token);

// The 200 answer once the route's consumer carried a pause or resume out: the route, whether it
// is paused by the operator now, and the partitions whose pause reasons changed (none when it
// already was; compacted, "t[0-3]").
admin_reply render_route_controlled(const route_command& done,
                                    const std::vector<std::string>& partitions_changed);

}  // namespace courier::admin
