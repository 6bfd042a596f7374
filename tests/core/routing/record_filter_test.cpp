// The filter language of a route's endpoints (core/routing/record_filter.cpp): every condition
// matching and not, all/any/not, the body parsed lazily and once, the limits on a filter's
// nesting and a body's, the errors a spec is refused with, and describe().

#include "core/routing/record_filter.hpp"

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

record with_headers(header_list headers) { return a_record("", std::nullopt, std::move(headers)); }

record with_key(std::optional<std::string> key) { return a_record("", std::move(key)); }

record with_body(payload value) { return a_record(std::move(value)); }

record_filter filter(const char* spec) { return record_filter::parse(json::parse(spec)); }

bool matches(const char* spec, const record& r) {
  record_view view{r};
  return filter(spec).matches(view);
}

// The error a spec is refused with; a failure when it is accepted.
spec_error refusal(const json& spec) {
  try {
    record_filter::parse(spec);
  } catch (const spec_error& e) {
    return e;
  }
  ADD_FAILURE() << "accepted " << spec.dump();
  return spec_error{"", "accepted"};
}

spec_error refusal(const char* spec) { return refusal(json::parse(spec)); }

// `levels` arrays one inside the other around a string.
std::string nested_arrays(std::size_t levels) {
  return std::string(levels, '[') + "\"x\"" + std::string(levels, ']');
}

// `levels` nots one inside the other around a header condition.
json nested_nots(std::size_t levels) {
  json spec = {{"header", "t"}, {"exists", true}};
  for (std::size_t i = 0; i < levels; ++i) {
    spec = json{{"not", spec}};
  }
  return spec;
}

// -- each condition ---

TEST(RecordFilter, AHeaderEqualsMatchesOnlyItsValue) {
  const char* spec = R"({"header": "x-partner", "equals": "acme"})";
  EXPECT_TRUE(matches(spec, with_headers({{"x-partner", "acme"}})));
  EXPECT_FALSE(matches(spec, with_headers({{"x-partner", "acme2"}})));
  EXPECT_FALSE(matches(spec, with_headers({{"x-partner", "ACME"}})));
  EXPECT_FALSE(matches(spec, with_headers({{"x-other", "acme"}})));
  EXPECT_FALSE(matches(spec, with_headers({{"x-partner", "other"}, {"x-partner", "acme"}})))
      << "the first occurrence of the header is the one judged";
}

TEST(RecordFilter, AHeaderInMatchesAnyOfItsValues) {
  const char* spec = R"({"header": "t", "in": ["a", "b"]})";
  EXPECT_TRUE(matches(spec, with_headers({{"t", "a"}})));
  EXPECT_TRUE(matches(spec, with_headers({{"t", "b"}})));
  EXPECT_FALSE(matches(spec, with_headers({{"t", "c"}})));
  EXPECT_FALSE(matches(spec, with_headers({})));
}

TEST(RecordFilter, AHeaderExistsTellsWhetherTheRecordCarriesIt) {
  EXPECT_TRUE(matches(R"({"header": "t", "exists": true})", with_headers({{"t", ""}})));
  EXPECT_FALSE(matches(R"({"header": "t", "exists": true})", with_headers({{"u", "1"}})));
  EXPECT_TRUE(matches(R"({"header": "t", "exists": false})", with_headers({{"u", "1"}})));
  EXPECT_FALSE(matches(R"({"header": "t", "exists": false})", with_headers({{"t", "1"}})));
}

TEST(RecordFilter, AKeyPrefixMatchesKeysThatStartWithIt) {
  const char* spec = R"({"key_prefix": "eu:"})";
  EXPECT_TRUE(matches(spec, with_key("eu:42")));
  EXPECT_TRUE(matches(spec, with_key("eu:")));
  EXPECT_FALSE(matches(spec, with_key("us:42")));
  EXPECT_FALSE(matches(spec, with_key("eu")));
  EXPECT_FALSE(matches(spec, with_key(std::nullopt))) << "a record without a key";
  EXPECT_TRUE(matches(R"({"key_prefix": ""})", with_key(""))) << "any key starts with nothing";
  EXPECT_FALSE(matches(R"({"key_prefix": ""})", with_key(std::nullopt)));
}

TEST(RecordFilter, AJsonEqualsComparesAnyJsonValue) {
  const auto body = with_body(R"({"type": "order", "n": 1, "tags": ["a"], "none": null})");
  EXPECT_TRUE(matches(R"({"json": "/type", "equals": "order"})", body));
  EXPECT_FALSE(matches(R"({"json": "/type", "equals": "refund"})", body));
  EXPECT_TRUE(matches(R"({"json": "/n", "equals": 1})", body));
  EXPECT_TRUE(matches(R"({"json": "/n", "equals": 1.0})", body)) << "JSON equality of numbers";
  EXPECT_FALSE(matches(R"({"json": "/n", "equals": "1"})", body));
  EXPECT_TRUE(matches(R"({"json": "/tags", "equals": ["a"]})", body));
  EXPECT_TRUE(matches(R"({"json": "/none", "equals": null})", body));
  EXPECT_FALSE(matches(R"({"json": "/missing", "equals": null})", body));
}

TEST(RecordFilter, AJsonInMatchesAnyOfItsValues) {
  const char* spec = R"({"json": "/type", "in": ["a", 2, {"k": true}]})";
  EXPECT_TRUE(matches(spec, with_body(R"({"type": "a"})")));
  EXPECT_TRUE(matches(spec, with_body(R"({"type": 2})")));
  EXPECT_TRUE(matches(spec, with_body(R"({"type": {"k": true}})")));
  EXPECT_FALSE(matches(spec, with_body(R"({"type": "b"})")));
  EXPECT_FALSE(matches(spec, with_body(R"({"other": "a"})")));
}

TEST(RecordFilter, AJsonExistsTellsWhetherThePointerFindsAValue) {
  const auto body = with_body(R"({"a": {"b": [10, 20]}, "x/y": 1, "m~n": 2, "": 3})");
  const auto exists = [&](const std::string& pointer) {
    return matches(json{{"json", pointer}, {"exists", true}}.dump().c_str(), body);
  };
  EXPECT_TRUE(exists("/a/b/1"));
  EXPECT_FALSE(exists("/a/b/2")) << "past the end of the array";
  EXPECT_FALSE(exists("/a/b/-")) << "RFC 6901's past-the-end element is no value";
  EXPECT_FALSE(exists("/a/b/01")) << "a leading zero is no index";
  EXPECT_FALSE(exists("/a/b/x"));
  EXPECT_FALSE(exists("/a/b/0/c")) << "a number has no members";
  EXPECT_TRUE(exists("/x~1y"));
  EXPECT_TRUE(exists("/m~0n"));
  EXPECT_TRUE(exists("/")) << "the member named by the empty string";
  EXPECT_TRUE(exists("")) << "the whole body";
  EXPECT_TRUE(matches(R"({"json": "/missing", "exists": false})", body));
  EXPECT_FALSE(matches(R"({"json": "/a", "exists": false})", body));
}

// -- all, any, not ---

TEST(RecordFilter, AllNeedsEveryFilterAnyOneAndNotTheOpposite) {
  const auto r = a_record(R"({"type": "order"})", "eu:1", {{"t", "a"}});
  EXPECT_TRUE(
      matches(R"({"all": [{"key_prefix": "eu:"}, {"json": "/type", "equals": "order"}]})", r));
  EXPECT_FALSE(matches(R"({"all": [{"key_prefix": "eu:"}, {"header": "t", "equals": "b"}]})", r));
  EXPECT_TRUE(matches(R"({"any": [{"key_prefix": "us:"}, {"header": "t", "equals": "a"}]})", r));
  EXPECT_FALSE(matches(R"({"any": [{"key_prefix": "us:"}, {"json": "/type", "equals": "x"}]})", r));
  EXPECT_FALSE(matches(R"({"not": {"key_prefix": "eu:"}})", r));
  EXPECT_TRUE(matches(R"({"not": {"key_prefix": "us:"}})", r));
  EXPECT_TRUE(matches(
      R"({"all": [{"header": "t", "exists": true}, {"not": {"any": [{"key_prefix": "test:"},
          {"json": "/type", "in": ["refund", "test"]}]}}]})",
      r));
}

// -- the body ---

TEST(RecordFilter, ABodyThatIsNotJsonMatchesNoJsonCondition) {
  for (const char* body : {"not json", "{\"type\": ", "", "{\"a\": 1} trailing"}) {
    const auto r = with_body(body);
    EXPECT_FALSE(matches(R"({"json": "/type", "exists": true})", r)) << body;
    EXPECT_FALSE(matches(R"({"json": "/type", "exists": false})", r)) << body;
    EXPECT_FALSE(matches(R"({"json": "", "exists": true})", r)) << body;
    EXPECT_TRUE(matches(R"({"not": {"json": "/type", "exists": false}})", r))
        << "not of a json condition holds for a body that is not JSON";
  }
}

TEST(RecordFilter, HeaderAndKeyConditionsThatDecideLeaveTheBodyUnparsed) {
  const auto r = a_record(R"({"type": "order"})", "eu:1", {{"t", "a"}});
  const auto body_parsed = [&](const char* spec) {
    record_view view{r};
    filter(spec).matches(view);
    return view.body_parsed();
  };
  EXPECT_FALSE(body_parsed(R"({"header": "t", "equals": "a"})"));
  EXPECT_FALSE(
      body_parsed(R"({"all": [{"json": "/type", "exists": true}, {"key_prefix": "us:"}]})"))
      << "the key condition is judged first though written last, and decides";
  EXPECT_FALSE(
      body_parsed(R"({"any": [{"json": "/type", "exists": true}, {"key_prefix": "eu:"}]})"));
  EXPECT_FALSE(body_parsed(
      R"({"all": [{"json": "/type", "exists": true}, {"not": {"header": "t", "exists": true}}]})"));
  EXPECT_TRUE(body_parsed(R"({"all": [{"json": "/type", "exists": true}, {"key_prefix": "eu:"}]})"))
      << "the body is parsed when the key condition leaves the answer open";
}

TEST(RecordFilter, TheBodyIsParsedOnceForAllTheFiltersOfARecord) {
  const auto r = with_body(R"({"type": "order", "n": 2})");
  record_view view{r};
  EXPECT_FALSE(view.body_parsed());
  EXPECT_TRUE(filter(R"({"json": "/type", "equals": "order"})").matches(view));
  EXPECT_TRUE(view.body_parsed());
  const nlohmann::json* first = view.body();
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(filter(R"({"json": "/n", "in": [1, 2]})").matches(view));
  EXPECT_FALSE(filter(R"({"json": "/type", "exists": false})").matches(view));
  EXPECT_EQ(view.body(), first) << "the later filters read the parse the first one made";
  EXPECT_EQ(&view.get(), &r);
}

TEST(RecordFilter, ABodyNestedDeeperThan64LevelsIsNotJson) {
  const char* any_json = R"({"json": "", "exists": true})";
  EXPECT_TRUE(matches(any_json, with_body(nested_arrays(deepest_body))));
  EXPECT_FALSE(matches(any_json, with_body(nested_arrays(deepest_body + 1))));
  EXPECT_FALSE(matches(any_json, with_body(std::string(100000, '['))))
      << "a hostile body is refused by its depth before it is parsed";
  const std::string brackets_in_strings = R"({"a": ")" + std::string(100, '[') +
                                          R"(\"{{{{", "b": [")" + std::string(100, '{') + R"("]})";
  EXPECT_TRUE(matches(R"({"json": "/b/0", "exists": true})", with_body(brackets_in_strings)))
      << "brackets inside strings, after an escaped quote too, do not nest";
}

// -- the spec ---

TEST(RecordFilter, FiltersNestUpToSixteenLevelsOfAllAnyAndNot) {
  const auto r = with_headers({{"t", "1"}});
  record_view view{r};
  EXPECT_TRUE(record_filter::parse(nested_nots(deepest_filter)).matches(view));
  const auto e = refusal(nested_nots(deepest_filter + 1));
  std::string path = "not";
  for (std::size_t i = 1; i < deepest_filter; ++i) {
    path += ".not";
  }
  EXPECT_EQ(e.path(), path) << "the seventeenth not is the one refused";
  EXPECT_EQ(e.problem(), "nests all, any and not deeper than 16 levels");
  EXPECT_EQ(refusal(json{{"all", json::array({nested_nots(deepest_filter)})}}).problem(),
            "nests all, any and not deeper than 16 levels");
}

TEST(RecordFilter, NeedsBodyTellsWhetherAJsonConditionIsInside) {
  EXPECT_FALSE(filter(R"({"header": "t", "exists": true})").needs_body());
  EXPECT_FALSE(
      filter(R"({"any": [{"key_prefix": "a"}, {"not": {"key_prefix": "b"}}]})").needs_body());
  EXPECT_TRUE(filter(R"({"any": [{"key_prefix": "a"}, {"not": {"json": "/b", "exists": true}}]})")
                  .needs_body());
}

TEST(RecordFilter, ASpecThatIsNoFilterObjectIsRefusedAtTheTop) {
  const auto not_object = refusal("[]");
  EXPECT_EQ(not_object.path(), "");
  EXPECT_EQ(not_object.problem(), "expected a filter object, got array");
  EXPECT_STREQ(not_object.what(), "expected a filter object, got array");
  EXPECT_EQ(refusal("{}").path(), "");
  EXPECT_THAT(refusal("{}").problem(), HasSubstr("names no condition"));
  EXPECT_EQ(refusal(R"({"all": [{"key_prefix": "a"}, {}]})").path(), "all[1]");
}

TEST(RecordFilter, AnUnknownKeyIsRefusedByItsName) {
  const auto e = refusal(R"({"header": "t", "equls": "a"})");
  EXPECT_EQ(e.path(), "equls");
  EXPECT_THAT(e.problem(), HasSubstr("unknown key"));
  const auto nested = refusal(R"({"any": [{"key_prefix": "a"}, {"not": {"hedaer": "t"}}]})");
  EXPECT_EQ(nested.path(), "any[1].not.hedaer");
  EXPECT_THAT(nested.what(), HasSubstr("any[1].not.hedaer: unknown key; expected one of"));
}

TEST(RecordFilter, TwoConditionsInOneObjectAreRefused) {
  const auto e = refusal(R"({"header": "t", "exists": true, "key_prefix": "a"})");
  EXPECT_EQ(e.path(), "key_prefix");
  EXPECT_EQ(e.problem(),
            R"(cannot be combined with "header" in one filter; combine filters with all)");
}

TEST(RecordFilter, AConditionTakesExactlyOneComparison) {
  const auto none = refusal(R"({"all": [{"key_prefix": "a"}, {"header": "t"}]})");
  EXPECT_EQ(none.path(), "all[1]");
  EXPECT_EQ(none.problem(), "needs one of equals, in, exists");
  const auto two = refusal(R"({"json": "/t", "equals": 1, "in": [1]})");
  EXPECT_EQ(two.path(), "in");
  EXPECT_THAT(two.problem(), HasSubstr("exactly one of equals, in, exists"));
  const auto on_key = refusal(R"({"key_prefix": "a", "exists": true})");
  EXPECT_EQ(on_key.path(), "exists");
  EXPECT_EQ(on_key.problem(), "applies to a header or json condition, not to key_prefix");
  EXPECT_EQ(refusal(R"({"not": {"key_prefix": "a"}, "equals": 1})").path(), "equals");
}

TEST(RecordFilter, AValueOfTheWrongTypeIsRefusedWhereItIs) {
  struct wrong {
    const char* spec;
    const char* path;
    const char* problem;
  };
  for (const auto& w : {
           wrong{R"({"header": 1, "exists": true})", "header",
                 "expected a header name (a string), got number"},
           wrong{R"({"header": "", "exists": true})", "header", "must name a header, not be empty"},
           wrong{R"({"all": [{"key_prefix": "a"}, {"header": "t", "equals": 1}]})", "all[1].equals",
                 "expected a string (a header's value is text), got number"},
           wrong{R"({"header": "t", "in": "a"})", "in", "expected a non-empty array, got string"},
           wrong{R"({"header": "t", "in": ["a", null]})", "in[1]", "expected a string, got null"},
           wrong{R"({"json": "/a", "exists": "yes"})", "exists",
                 "expected true or false, got string"},
           wrong{R"({"key_prefix": 3})", "key_prefix", "expected a string, got number"},
           wrong{R"({"json": ["/a"], "exists": true})", "json",
                 "expected a JSON pointer (a string such as \"/type\"), got array"},
           wrong{R"({"any": {"key_prefix": "a"}})", "any",
                 "expected a non-empty array of filters, got object"},
           wrong{R"({"all": []})", "all", "must hold at least one filter"},
           wrong{R"({"not": [{"key_prefix": "a"}]})", "not", "expected a filter object, got array"},
           wrong{R"({"not": {"any": [{"header": "t", "in": []}]}})", "not.any[0].in",
                 "must hold at least one value"},
       }) {
    const auto e = refusal(w.spec);
    EXPECT_EQ(e.path(), w.path) << w.spec;
    EXPECT_EQ(e.problem(), w.problem) << w.spec;
    EXPECT_EQ(std::string{e.what()}, std::string{w.path} + ": " + w.problem) << w.spec;
  }
}

TEST(RecordFilter, AJsonPointerIsCheckedWhenTheSpecIsRead) {
  for (const char* pointer : {"type", "/a~2", "/a~"}) {
    const auto e = refusal(json{{"json", pointer}, {"exists", true}});
    EXPECT_EQ(e.path(), "json") << pointer;
    EXPECT_THAT(e.problem(), HasSubstr("is not a JSON pointer")) << pointer;
  }
}

TEST(RecordFilter, AnInListHoldsAtMost1024Values) {
  json values = json::array();
  for (std::size_t i = 0; i < longest_in_list; ++i) {
    values.push_back(i);
  }
  const auto r = with_body(R"({"n": 1023})");
  record_view view{r};
  EXPECT_TRUE(record_filter::parse(json{{"json", "/n"}, {"in", values}}).matches(view));
  values.push_back(longest_in_list);
  const auto e = refusal(json{{"json", "/n"}, {"in", values}});
  EXPECT_EQ(e.path(), "in");
  EXPECT_EQ(e.problem(), "holds 1025 values; at most 1024 are allowed");
}

// -- describe() and copies ---

TEST(RecordFilter, DescribeSpellsTheFilterOnOneLine) {
  EXPECT_EQ(filter(R"({"header": "x-partner", "equals": "acme"})").describe(),
            R"(header "x-partner" equals "acme")");
  EXPECT_EQ(filter(R"({"header": "t", "in": ["a", "b"]})").describe(),
            R"(header "t" in ["a","b"])");
  EXPECT_EQ(filter(R"({"header": "t", "exists": false})").describe(), R"(header "t" absent)");
  EXPECT_EQ(filter(R"({"json": "/type", "in": ["a", 1, null]})").describe(),
            R"(json /type in ["a",1,null])");
  EXPECT_EQ(filter(R"({"json": "/n", "equals": {"a": [1]}})").describe(),
            R"(json /n equals {"a":[1]})");
  EXPECT_EQ(filter(R"({"json": "", "exists": true})").describe(), R"(json "" exists)");
  EXPECT_EQ(
      filter(R"({"all": [{"header": "t", "exists": true}, {"not": {"key_prefix": "test:"}}]})")
          .describe(),
      R"(all(header "t" exists, not(key_prefix "test:")))");
  EXPECT_EQ(filter(R"({"any": [{"key_prefix": "a"}, {"key_prefix": "b"}]})").describe(),
            R"(any(key_prefix "a", key_prefix "b"))");
  EXPECT_EQ(filter(R"({"header": "t", "equals": "a\"b\nc"})").describe(),
            R"(header "t" equals "a\"b\nc")")
      << "quotes and newlines are escaped: the text stays one line";
  EXPECT_EQ(filter(R"({"json": "/n", "in": [1,2,3,4,5,6,7,8,9,10,11,12]})").describe(),
            "json /n in [1,2,3,4,5,6,7,8,9,10,... 12 values in all]");
}

TEST(RecordFilter, ACopyJudgesAsTheOriginal) {
  const auto original = filter(R"({"key_prefix": "eu:"})");
  const record_filter copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  const auto r = with_key("eu:1");
  record_view view{r};
  EXPECT_TRUE(copy.matches(view));
  EXPECT_EQ(copy.describe(), original.describe());
}

}  // namespace
}  // namespace courier::routing
