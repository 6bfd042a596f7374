// The selector that names a record's one endpoint (core/routing/endpoint_selector.cpp): from a
// header, the key's prefix or a string in the body, nothing when the record carries no name, the
// errors a spec is refused with, and describe().

#include "core/routing/endpoint_selector.hpp"

#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/routing/spec_error.hpp"
#include "tests/core/routing/a_record.hpp"

namespace courier::routing {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

endpoint_selector selector(const char* spec) { return endpoint_selector::parse(json::parse(spec)); }

std::optional<std::string> name_of(const char* spec, const record& r) {
  record_view view{r};
  return selector(spec).name_of(view);
}

// The error a spec is refused with; a failure when it is accepted.
spec_error refusal(const char* spec) {
  try {
    endpoint_selector::parse(json::parse(spec));
  } catch (const spec_error& e) {
    return e;
  }
  ADD_FAILURE() << "accepted " << spec;
  return spec_error{"", "accepted"};
}

TEST(EndpointSelector, AHeaderSelectorReadsTheHeadersFirstValue) {
  const char* spec = R"({"header": "x-partner"})";
  EXPECT_EQ(name_of(spec, a_record("", std::nullopt, {{"x-partner", "acme"}, {"x-partner", "b"}})),
            "acme");
  EXPECT_EQ(name_of(spec, a_record("", std::nullopt, {{"x-partner", ""}})), "");
  EXPECT_EQ(name_of(spec, a_record("", std::nullopt, {{"x-other", "acme"}})), std::nullopt);
}

TEST(EndpointSelector, AKeyPrefixSelectorReadsTheKeyBeforeTheFirstSeparator) {
  const char* spec = R"({"key_prefix_until": ":"})";
  EXPECT_EQ(name_of(spec, a_record("", "acme:42")), "acme");
  EXPECT_EQ(name_of(spec, a_record("", "acme:42:7")), "acme");
  EXPECT_EQ(name_of(spec, a_record("", ":42")), "");
  EXPECT_EQ(name_of(spec, a_record("", "acme")), std::nullopt) << "a key without the separator";
  EXPECT_EQ(name_of(spec, a_record("", std::nullopt)), std::nullopt) << "a record without a key";
  EXPECT_EQ(name_of(R"({"key_prefix_until": "::"})", a_record("", "a:b::c")), "a:b");
}

TEST(EndpointSelector, AJsonSelectorReadsAStringAtThePointer) {
  const char* spec = R"({"json": "/meta/partner"})";
  EXPECT_EQ(name_of(spec, a_record(R"({"meta": {"partner": "acme"}})")), "acme");
  EXPECT_EQ(name_of(spec, a_record(R"({"meta": {"partner": 7}})")), std::nullopt)
      << "a value that is no string names nothing";
  EXPECT_EQ(name_of(spec, a_record(R"({"meta": {"partner": null}})")), std::nullopt);
  EXPECT_EQ(name_of(spec, a_record(R"({"meta": {}})")), std::nullopt);
  EXPECT_EQ(name_of(spec, a_record("partner=acme")), std::nullopt) << "a body that is not JSON";
  EXPECT_EQ(name_of(R"({"json": ""})", a_record(R"("acme")")), "acme");
}

TEST(EndpointSelector, AHeaderOrKeySelectorLeavesTheBodyUnparsed) {
  const auto r = a_record(R"({"partner": "acme"})", "acme:1", {{"x-partner", "acme"}});
  for (const char* spec : {R"({"header": "x-partner"})", R"({"key_prefix_until": ":"})"}) {
    record_view view{r};
    EXPECT_EQ(selector(spec).name_of(view), "acme");
    EXPECT_FALSE(view.body_parsed()) << spec;
  }
  record_view view{r};
  EXPECT_EQ(selector(R"({"json": "/partner"})").name_of(view), "acme");
  EXPECT_TRUE(view.body_parsed());
}

TEST(EndpointSelector, ASpecThatIsNotExactlyOneKnownKeyIsRefused) {
  for (const char* spec : {R"("x-partner")", "{}", R"({"header": "a", "json": "/a"})"}) {
    const auto e = refusal(spec);
    EXPECT_EQ(e.path(), "") << spec;
    EXPECT_THAT(e.problem(), HasSubstr(R"(expected one of {"header": NAME})")) << spec;
  }
  const auto unknown = refusal(R"({"heder": "x-partner"})");
  EXPECT_EQ(unknown.path(), "heder");
  EXPECT_THAT(unknown.problem(), HasSubstr("unknown key"));
}

TEST(EndpointSelector, AValueOfTheWrongKindIsRefusedByItsKey) {
  struct wrong {
    const char* spec;
    const char* path;
    const char* problem;
  };
  for (const auto& w : {
           wrong{R"({"header": 1})", "header", "expected a header name (a string), got number"},
           wrong{R"({"header": ""})", "header", "must name a header, not be empty"},
           wrong{R"({"key_prefix_until": ""})", "key_prefix_until",
                 "must not be empty: the name is the key's text before it"},
           wrong{R"({"key_prefix_until": true})", "key_prefix_until",
                 "expected a separator (a string such as \":\"), got boolean"},
           wrong{R"({"json": "partner"})", "json",
                 "\"partner\" is not a JSON pointer: it must be \"\" or start with \"/\", and a "
                 "\"~\" in it must be followed by 0 or 1"},
       }) {
    const auto e = refusal(w.spec);
    EXPECT_EQ(e.path(), w.path) << w.spec;
    EXPECT_EQ(e.problem(), w.problem) << w.spec;
  }
}

TEST(EndpointSelector, DescribeSaysWhereTheNameIsRead) {
  EXPECT_EQ(selector(R"({"header": "x-partner"})").describe(), R"(header "x-partner")");
  EXPECT_EQ(selector(R"({"key_prefix_until": ":"})").describe(), R"(key prefix until ":")");
  EXPECT_EQ(selector(R"({"json": "/partner"})").describe(), "json /partner");
}

}  // namespace
}  // namespace courier::routing
