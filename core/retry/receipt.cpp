#include "core/retry/receipt.hpp"

#include <nlohmann/json.hpp>

namespace courier {

using json = nlohmann::json;

bool operator==(const receipt& a, const receipt& b) {
  return a.route == b.route && a.origin == b.origin && a.attempts == b.attempts &&
         a.status == b.status && a.first_attempt_ms == b.first_attempt_ms &&
         a.delivered_ms == b.delivered_ms && a.response_headers == b.response_headers &&
         a.instance == b.instance && a.endpoint == b.endpoint;
}

std::string encode_receipt(const receipt& r) {
  // An object keeps its members sorted; the configured order of the headers is kept by an array
  // of pairs instead.
  json headers = json::array();
  for (const auto& [name, value] : r.response_headers) {
    headers.push_back(json::array({name, value}));
  }
  json v = {
      {"route", r.route},
      {"origin",
       {{"topic", r.origin.topic}, {"partition", r.origin.partition}, {"offset", r.origin.offset}}},
      {"attempts", r.attempts},
      {"status", r.status},
      {"first_attempt_ms", r.first_attempt_ms},
      {"delivered_ms", r.delivered_ms},
      {"response_headers", std::move(headers)},
      {"instance", r.instance}};
  if (!r.endpoint.empty()) {
    v["endpoint"] = r.endpoint;
  }
  // A header value is the partner's bytes: replaced, never thrown on, when it is not UTF-8.
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

const json& member(const json& o, const char* name, json::value_t type, const std::string& where) {
  const auto it = o.find(name);
  if (it == o.end()) {
    throw receipt_error{"receipt: " + where + name + " is missing"};
  }
  const bool number = type == json::value_t::number_integer;
  if (number ? !it->is_number_integer() : it->type() != type) {
    throw receipt_error{"receipt: " + where + name + " is not " +
                        (number ? std::string{"an integer"} : std::string{json(type).type_name()})};
  }
  return *it;
}

}  // namespace

receipt decode_receipt(std::string_view value) {
  json v;
  try {
    v = json::parse(value);
  } catch (const json::parse_error& e) {
    throw receipt_error{std::string{"receipt: not JSON: "} + e.what()};
  }
  if (!v.is_object()) {
    throw receipt_error{"receipt: not a JSON object"};
  }
  constexpr auto text = json::value_t::string;
  constexpr auto integer = json::value_t::number_integer;
  receipt r;
  r.route = member(v, "route", text, "").get<std::string>();
  const auto& o = member(v, "origin", json::value_t::object, "");
  r.origin.topic = member(o, "topic", text, "origin.").get<std::string>();
  r.origin.partition = member(o, "partition", integer, "origin.").get<std::int32_t>();
  r.origin.offset = member(o, "offset", integer, "origin.").get<std::int64_t>();
  r.attempts = member(v, "attempts", integer, "").get<int>();
  r.status = member(v, "status", integer, "").get<int>();
  r.first_attempt_ms = member(v, "first_attempt_ms", integer, "").get<std::int64_t>();
  r.delivered_ms = member(v, "delivered_ms", integer, "").get<std::int64_t>();
  for (const auto& pair : member(v, "response_headers", json::value_t::array, "")) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) {
      throw receipt_error{"receipt: response_headers holds something not a [name, value] pair"};
    }
    r.response_headers.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
  }
  r.instance = member(v, "instance", text, "").get<std::string>();
  if (const auto it = v.find("endpoint"); it != v.end()) {
    if (!it->is_string()) {
      throw receipt_error{"receipt: endpoint is not a string"};
    }
    r.endpoint = it->get<std::string>();
  }
  return r;
}

}  // namespace courier
