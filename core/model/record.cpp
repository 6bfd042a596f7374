#include "core/model/record.hpp"

namespace courier {

std::optional<std::string_view> find_header(const header_list& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (k == name) {
      return std::string_view{v};
    }
  }
  return std::nullopt;
}

}  // namespace courier
