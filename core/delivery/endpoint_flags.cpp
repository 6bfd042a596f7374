#include "core/delivery/endpoint_flags.hpp"

#include <cstdint>

namespace courier {

std::optional<log_line> endpoint_flags::on_blocked(const std::string& route,
                                                   const attempt_answer& a) {
  const bool blocked = a.transport == transport_error::ssrf_blocked;
  if (blocked == blocked_) {
    return std::nullopt;
  }
  blocked_ = blocked;
  if (blocked) {
    return log_line{log_level::error,
                    "route flagged: the SSRF guard refused its endpoint",
                    {{"route", route},
                     {"error_class", std::string{"ssrf_blocked"}},
                     {"error", a.error_message}}};
  }
  return log_line{
      log_level::info, "route unflagged: its endpoint is reachable", {{"route", route}}};
}

std::optional<log_line> endpoint_flags::on_gone(const std::string& route, const attempt_answer& a,
                                                answer_verdict verdict) {
  if (verdict == answer_verdict::endpoint_gone && !gone_) {
    gone_ = true;
    return log_line{log_level::error,
                    "route flagged: the receiver answered 410 Gone",
                    {{"route", route},
                     {"error_class", std::string{"http_410"}},
                     {"status", std::int64_t{a.status}}}};
  }
  if (verdict == answer_verdict::delivered && gone_) {
    gone_ = false;
    return log_line{
        log_level::info, "route unflagged: the receiver delivers again", {{"route", route}}};
  }
  return std::nullopt;
}

}  // namespace courier
