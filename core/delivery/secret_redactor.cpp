#include "core/delivery/secret_redactor.hpp"

#include <algorithm>
#include <utility>

namespace courier {
namespace {

bool worth_redacting(std::string_view s) { return s.size() >= secret_redactor::shortest_secret; }

// The secrets, worth redacting ones only, longest first.
std::vector<std::string_view> ordered(const std::vector<std::string>& fixed,
                                      const std::vector<std::string_view>& also) {
  std::vector<std::string_view> all;
  all.reserve(fixed.size() + also.size());
  all.insert(all.end(), fixed.begin(), fixed.end());
  for (const auto s : also) {
    if (worth_redacting(s)) {
      all.push_back(s);
    }
  }
  std::stable_sort(all.begin(), all.end(),
                   [](std::string_view a, std::string_view b) { return a.size() > b.size(); });
  return all;
}

}  // namespace

secret_redactor::secret_redactor(std::vector<std::string> secrets) {
  for (auto& s : secrets) {
    if (worth_redacting(s) && std::find(secrets_.begin(), secrets_.end(), s) == secrets_.end()) {
      secrets_.push_back(std::move(s));
    }
  }
  std::stable_sort(secrets_.begin(), secrets_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

bool secret_redactor::finds_any(std::string_view text,
                                const std::vector<std::string_view>& also) const {
  const auto in_text = [&](std::string_view s) {
    return worth_redacting(s) && text.find(s) != std::string_view::npos;
  };
  return std::any_of(secrets_.begin(), secrets_.end(),
                     [&](const std::string& s) { return in_text(s); }) ||
         std::any_of(also.begin(), also.end(), in_text);
}

std::string secret_redactor::redact(std::string_view text,
                                    const std::vector<std::string_view>& also) const {
  std::string out{text};
  for (const auto secret : ordered(secrets_, also)) {
    std::string next;
    std::size_t from = 0;
    for (auto at = out.find(secret); at != std::string::npos; at = out.find(secret, from)) {
      next.append(out, from, at - from);
      next.append(mark);
      from = at + secret.size();
    }
    if (from == 0) {
      continue;  // not in the text
    }
    next.append(out, from, std::string::npos);
    out = std::move(next);
  }
  return out;
}

std::vector<std::string_view> authorization_secrets(std::string_view authorization) {
  std::vector<std::string_view> out;
  if (authorization.empty()) {
    return out;
  }
  out.push_back(authorization);
  const auto space = authorization.find(' ');
  if (space != std::string_view::npos) {
    std::string_view credential = authorization.substr(space + 1);
    while (!credential.empty() && credential.front() == ' ') {
      credential.remove_prefix(1);
    }
    if (!credential.empty()) {
      out.push_back(credential);
    }
  }
  return out;
}

std::optional<attempt_answer> redacted(const attempt_answer& a, const secret_redactor& r,
                                       const std::vector<std::string_view>& also) {
  const bool in_headers = std::any_of(a.response_headers.begin(), a.response_headers.end(),
                                      [&](const auto& h) { return r.finds_any(h.second, also); });
  if (!in_headers && !r.finds_any(a.body, also) && !r.finds_any(a.error_message, also)) {
    return std::nullopt;
  }
  attempt_answer clean = a;
  clean.body = r.redact(a.body, also);
  clean.error_message = r.redact(a.error_message, also);
  for (auto& h : clean.response_headers) {
    h.second = r.redact(h.second, also);
  }
  return clean;
}

}  // namespace courier
