#pragma once

// The error a route's routing spec (an endpoint's filter, a route's endpoint_from) is refused
// with, and how its location and the spec's own text are spelled in it.

#include <stdexcept>
#include <string>
#include <string_view>

namespace courier::routing {

// A filter or selector spec that cannot serve. path() is the location inside the spec
// ("all[1].equals"; empty for the spec itself), so the config reader can put it after the
// endpoint's own key; what() is "path: problem", or the problem alone at the top. Only the spec's
// own text appears in it, never a record's.
class spec_error : public std::runtime_error {
 public:
  spec_error(std::string path, std::string problem);
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};

// "all[1]" + "equals" -> "all[1].equals"; the top of a spec is "".
std::string join_spec_path(const std::string& path, std::string_view key);

// The text quoted as JSON writes a string ("x-partner" with its quotes, escapes included), so a
// quote or a newline in a spec cannot break the one line an error or describe() is.
std::string in_quotes(std::string_view text);

}  // namespace courier::routing
