#include "core/http/request_head.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>
#include <vector>

namespace courier::http {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

using field = std::pair<std::string_view, std::string_view>;

void set(std::vector<field>& fields, std::string_view name, std::string_view value) {
  const auto it = std::find_if(fields.begin(), fields.end(),
                               [&](const field& f) { return same_name(f.first, name); });
  if (it != fields.end()) {
    it->second = value;
  } else {
    fields.emplace_back(name, value);
  }
}

}  // namespace

std::string request_head(const endpoint& ep, const std::string& user_agent, const request& r) {
  const std::string host = host_header(ep);
  std::vector<field> fields;
  fields.reserve(r.headers.size() + 3);
  fields.emplace_back("Host", host);
  fields.emplace_back("User-Agent", user_agent);
  if (!r.content_type.empty()) {
    fields.emplace_back("Content-Type", r.content_type);
  }
  for (const auto& [name, value] : r.headers) {
    if (same_name(name, "Content-Length") || same_name(name, "Transfer-Encoding")) {
      continue;
    }
    set(fields, name, value);
  }
  const std::string length = std::to_string(r.body.size());
  std::size_t size = 5 + ep.target.size() + 11 + 18 + length.size() + 4;
  for (const auto& [name, value] : fields) {
    size += name.size() + value.size() + 4;
  }
  std::string head;
  head.reserve(size);
  head.append("POST ").append(ep.target).append(" HTTP/1.1\r\n");
  for (const auto& [name, value] : fields) {
    head.append(name).append(": ").append(value).append("\r\n");
  }
  head.append("Content-Length: ").append(length).append("\r\n\r\n");
  return head;
}

}  // namespace courier::http
