#include "core/retry/retry_headers.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace courier {
namespace {

using namespace std::chrono_literals;

const std::vector<std::chrono::milliseconds> tiers{5s, 30s, 5min};
constexpr std::int64_t now = 1'800'000'000'000;

std::size_t count_of(const header_list& headers, std::string_view name) {
  return static_cast<std::size_t>(std::count_if(
      headers.begin(), headers.end(), [name](const header& h) { return h.first == name; }));
}

std::string value_of(const header_list& headers, std::string_view name) {
  const auto v = find_header(headers, name);
  return v ? std::string{*v} : std::string{"<absent>"};
}

bool is_valid_utf8(std::string_view s) { return cap_header_value(s, s.size() + 8) == s; }

record source_record() {
  record r;
  r.topic = "brew.shipments.v1";
  r.partition = 3;
  r.offset = 42;
  r.key = "order-7";
  r.value = R"({"id":7})";
  r.headers = {{"traceparent", "00-abc-def-01"}, {"content-type", "application/json"}};
  r.timestamp_ms = 1'700'000'000'000;
  return r;
}

failure_info http_503(int attempts, std::int64_t at) {
  failure_info f;
  f.error_class = "http_503";
  f.error_message = "service unavailable";
  f.status = 503;
  f.response_excerpt = "try later";
  for (int i = 0; i < attempts; ++i) {
    f.trace.push_back(format_trace_entry(at - 1000 * (attempts - 1 - i), "http_503"));
  }
  f.attempts = attempts;
  f.failed_at_ms = at;
  return f;
}

destination to_tier(int index) {
  return next_destination(index - 1, false,
                          route_topics_named("brew.shipments.v1", tiers, "brew.shipments.dlq"));
}

destination to_dlq() {
  return next_destination(-1, true,
                          route_topics_named("brew.shipments.v1", tiers, "brew.shipments.dlq"));
}

// The record as the tier consumer will read it back.
record moved(const record& r, const header_list& headers, std::string topic, std::int64_t offset) {
  record next = r;
  next.topic = std::move(topic);
  next.partition = 0;
  next.offset = offset;
  next.headers = headers;
  next.timestamp_ms = r.timestamp_ms + 10'000;
  return next;
}

TEST(RetryHeaders, ASourceRecordIsItsOwnOriginAndKeyedByItsCoordinates) {
  const auto h = retry_headers(source_record(), "shipments", to_tier(0), http_503(3, now), now);
  EXPECT_EQ(value_of(h, idempotency_key_header), "brew.shipments.v1:3:42");
  EXPECT_EQ(value_of(h, correlation_id_header), "brew.shipments.v1:3:42");
  EXPECT_EQ(value_of(h, route_header), "shipments");
  EXPECT_EQ(value_of(h, origin_topic_header), "brew.shipments.v1");
  EXPECT_EQ(value_of(h, origin_partition_header), "3");
  EXPECT_EQ(value_of(h, origin_offset_header), "42");
  EXPECT_EQ(value_of(h, origin_timestamp_header), "1700000000000");
  EXPECT_EQ(value_of(h, attempts_header), "3");
  EXPECT_EQ(value_of(h, retry_tier_header), "0");
  EXPECT_EQ(value_of(h, error_class_header), "http_503");
  EXPECT_EQ(value_of(h, error_message_header), "service unavailable");
  EXPECT_EQ(value_of(h, error_status_header), "503");
  EXPECT_EQ(value_of(h, error_response_header), "try later");
  EXPECT_EQ(value_of(h, first_failure_header), std::to_string(now));
  EXPECT_EQ(value_of(h, last_failure_header), std::to_string(now));
}

TEST(RetryHeaders, UserHeadersComeFirstAndUnchanged) {
  const auto h = retry_headers(source_record(), "shipments", to_tier(0), http_503(1, now), now);
  ASSERT_GE(h.size(), 2U);
  EXPECT_EQ(h[0], (header{"traceparent", "00-abc-def-01"}));
  EXPECT_EQ(h[1], (header{"content-type", "application/json"}));
}

TEST(RetryHeaders, DueIsNowPlusTheTierDelay) {
  const auto first = retry_headers(source_record(), "r", to_tier(0), http_503(1, now), now);
  EXPECT_EQ(value_of(first, retry_due_header), std::to_string(now + 5'000));
  const auto third = retry_headers(source_record(), "r", to_tier(2), http_503(1, now), now);
  EXPECT_EQ(value_of(third, retry_due_header), std::to_string(now + 300'000));
}

TEST(RetryHeaders, ATierRecordMovingOnKeepsWhatItsFirstAppearanceSet) {
  const record source = source_record();
  const auto first = retry_headers(source, "shipments", to_tier(0), http_503(3, now), now);
  const record in_tier = moved(source, first, "brew.shipments.v1.retry-5s", 9);

  failure_info timeout;
  timeout.error_class = "timeout";
  timeout.error_message = "no answer within 10s";
  timeout.trace = {format_trace_entry(now + 6'000, "timeout")};
  timeout.attempts = 2;
  timeout.failed_at_ms = now + 6'000;
  const auto h = retry_headers(in_tier, "shipments", to_tier(1), timeout, now + 6'000);

  EXPECT_EQ(value_of(h, "traceparent"), "00-abc-def-01");
  EXPECT_EQ(value_of(h, idempotency_key_header), "brew.shipments.v1:3:42");
  EXPECT_EQ(value_of(h, correlation_id_header), "brew.shipments.v1:3:42");
  EXPECT_EQ(value_of(h, origin_topic_header), "brew.shipments.v1");
  EXPECT_EQ(value_of(h, origin_partition_header), "3");
  EXPECT_EQ(value_of(h, origin_offset_header), "42");
  EXPECT_EQ(value_of(h, origin_timestamp_header), "1700000000000");
  EXPECT_EQ(value_of(h, first_failure_header), std::to_string(now));
  EXPECT_EQ(value_of(h, last_failure_header), std::to_string(now + 6'000));
  EXPECT_EQ(value_of(h, attempts_header), "5");
  EXPECT_EQ(value_of(h, retry_tier_header), "1");
  EXPECT_EQ(value_of(h, retry_due_header), std::to_string(now + 6'000 + 30'000));
  EXPECT_EQ(value_of(h, error_class_header), "timeout");
  EXPECT_EQ(value_of(h, error_status_header), "0");
  EXPECT_EQ(value_of(h, error_response_header), "");
}

TEST(RetryHeaders, OldErrorHeadersAreReplacedNotPiledUp) {
  record r = source_record();
  r.headers.emplace_back("courier.error.class", "http_500");
  r.headers.emplace_back("courier.error.legacy", "from an older courier");
  r.headers.emplace_back("courier.error.class", "http_502");
  const auto once = retry_headers(r, "r", to_tier(0), http_503(1, now), now);
  const auto twice = retry_headers(moved(r, once, "t", 1), "r", to_tier(1), http_503(1, now), now);

  for (const auto name : {error_class_header, error_message_header, error_status_header,
                          error_response_header, error_trace_header}) {
    EXPECT_EQ(count_of(twice, name), 1U) << name;
  }
  for (const auto name : {idempotency_key_header, route_header, origin_topic_header,
                          attempts_header, retry_tier_header, retry_due_header,
                          first_failure_header, last_failure_header, correlation_id_header}) {
    EXPECT_EQ(count_of(twice, name), 1U) << name;
  }
  EXPECT_EQ(count_of(twice, "courier.error.legacy"), 0U);
  EXPECT_EQ(value_of(twice, error_class_header), "http_503");
}

TEST(RetryHeaders, TheFollowersOfADeadLetteredRecordAreNamedWithinTheHeaderCap) {
  EXPECT_EQ(followers_value({}), "");
  EXPECT_EQ(followers_value({11, 12, 40}), "11,12,40");
  std::vector<std::int64_t> many;
  for (std::int64_t o = 1'000'000'000; o < 1'000'000'200; ++o) {
    many.push_back(o);
  }
  const auto v = followers_value(many);
  EXPECT_LE(v.size(), max_header_value);
  // 10 digits and a comma each: 92 fit beside ",+108".
  EXPECT_EQ(v.substr(0, 21), "1000000000,1000000001");
  EXPECT_EQ(v.substr(v.size() - 15), "1000000091,+108");
}

TEST(RetryHeaders, AnEarlierDlqRecordsFollowersAreNotCarriedOn) {
  record r = source_record();
  r.headers.emplace_back(std::string{followers_header}, "11,12");
  EXPECT_EQ(count_of(retry_headers(r, "r", to_tier(0), http_503(1, now), now), followers_header),
            0U);
}

TEST(RetryHeaders, AttemptsAccumulateOverEveryTier) {
  record r = source_record();
  int expected = 0;
  for (int tier = 0; tier < 3; ++tier) {
    const auto h = retry_headers(r, "r", to_tier(tier), http_503(tier + 2, now), now);
    expected += tier + 2;
    EXPECT_EQ(value_of(h, attempts_header), std::to_string(expected));
    r = moved(r, h, "t", tier);
  }
  const auto dlq = retry_headers(r, "r", to_dlq(), http_503(4, now), now);
  EXPECT_EQ(value_of(dlq, attempts_header), std::to_string(expected + 4));
  EXPECT_EQ(read_retry_state(dlq).total_attempts, expected + 4);
}

TEST(RetryHeaders, TheTraceCarriesTheWholeHistoryOldestFirst) {
  const auto first = retry_headers(source_record(), "r", to_tier(0), http_503(2, now), now);
  const auto second = retry_headers(moved(source_record(), first, "t", 1), "r", to_tier(1),
                                    http_503(1, now + 9'000), now + 9'000);
  EXPECT_EQ(value_of(second, error_trace_header), format_trace_entry(now - 1'000, "http_503") +
                                                      "\n" + format_trace_entry(now, "http_503") +
                                                      "\n" +
                                                      format_trace_entry(now + 9'000, "http_503"));
}

TEST(RetryHeaders, ADlqRecordHasNoDueAndNamesTheTierItCameFrom) {
  const auto straight = retry_headers(source_record(), "r", to_dlq(), http_503(1, now), now);
  EXPECT_EQ(count_of(straight, retry_due_header), 0U);
  EXPECT_EQ(value_of(straight, retry_tier_header), "none");

  const auto in_tier = retry_headers(source_record(), "r", to_tier(1), http_503(1, now), now);
  const auto dlq =
      retry_headers(moved(source_record(), in_tier, "t", 1), "r", to_dlq(), http_503(1, now), now);
  EXPECT_EQ(count_of(dlq, retry_due_header), 0U);
  EXPECT_EQ(value_of(dlq, retry_tier_header), "1");
}

TEST(RetryHeaders, ATenKilobyteResponseIsCutToTheCap) {
  failure_info f = http_503(1, now);
  f.response_excerpt = std::string(10 * 1024, 'x');
  const auto h = retry_headers(source_record(), "r", to_tier(0), f, now);
  const std::string response = value_of(h, error_response_header);
  EXPECT_LE(response.size(), max_header_value);
  EXPECT_EQ(response, std::string(max_header_value - 3, 'x') + "\xE2\x80\xA6");
}

TEST(RetryHeaders, ALongTraceKeepsItsNewestEntries) {
  failure_info f = http_503(200, now);
  const auto h = retry_headers(source_record(), "r", to_tier(0), f, now);
  const std::string trace = value_of(h, error_trace_header);
  EXPECT_LE(trace.size(), max_header_value);
  EXPECT_THAT(trace, ::testing::StartsWith("\xE2\x80\xA6\n"));
  EXPECT_THAT(trace, ::testing::EndsWith("\n" + f.trace.back()));
  EXPECT_EQ(trace.find(f.trace.front()), std::string::npos);
  EXPECT_NE(trace.find(f.trace[f.trace.size() - 2] + "\n" + f.trace.back()), std::string::npos);
}

TEST(RetryHeaders, EveryValueIsCutOnACharacterBoundary) {
  // "é" is two bytes and the 1021 bytes before the marker are odd: a byte cut would split one.
  failure_info f = http_503(1, now);
  f.error_message.clear();
  for (int i = 0; i < 800; ++i) {
    f.error_message += "\xC3\xA9";
  }
  f.response_excerpt = f.error_message;
  const auto h = retry_headers(source_record(), std::string(2000, 'r'), to_tier(0), f, now);
  for (const auto& [name, value] : h) {
    EXPECT_LE(value.size(), max_header_value) << name;
    EXPECT_TRUE(is_valid_utf8(value)) << name;
  }
  const std::string message = value_of(h, error_message_header);
  EXPECT_THAT(message, ::testing::EndsWith("\xC3\xA9\xE2\x80\xA6"));
  EXPECT_EQ(message.size(), max_header_value - 1);
}

TEST(RetryHeaders, CapCutsBeforeAFourByteCharacterThatWouldCross) {
  const std::string emoji = "\xF0\x9F\x93\xA6";  // U+1F4E6, four bytes
  EXPECT_EQ(cap_header_value("ab" + emoji + "cd", 7), "ab\xE2\x80\xA6");
  EXPECT_EQ(cap_header_value("ab" + emoji, 6), "ab" + emoji);
  EXPECT_EQ(cap_header_value("abcdef", 2), "ab");
}

TEST(RetryHeaders, InvalidUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(cap_header_value("ok\xFF\xC3("), "ok\xEF\xBF\xBD\xEF\xBF\xBD(");
  EXPECT_EQ(cap_header_value("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(RetryHeaders, TraceEntriesAreIsoUtcWithMilliseconds) {
  EXPECT_EQ(format_trace_entry(0, "connect"), "1970-01-01T00:00:00.000Z connect");
  EXPECT_EQ(format_trace_entry(1'796'032'800'123, "http_503"), "2026-11-30T10:00:00.123Z http_503");
  EXPECT_EQ(format_trace_entry(951'782'400'007, "tls"), "2000-02-29T00:00:00.007Z tls");
  EXPECT_EQ(format_trace_entry(-1, "x"), "1969-12-31T23:59:59.999Z x");
}

TEST(RetryHeaders, ReadRetryStateReadsBackWhatWasWritten) {
  const auto h = retry_headers(source_record(), "shipments", to_tier(2), http_503(4, now), now);
  const retry_state s = read_retry_state(h);
  EXPECT_EQ(s.idempotency_key, "brew.shipments.v1:3:42");
  ASSERT_TRUE(s.from.has_value());
  EXPECT_EQ(s.from->topic, "brew.shipments.v1");
  EXPECT_EQ(s.from->partition, 3);
  EXPECT_EQ(s.from->offset, 42);
  EXPECT_EQ(s.from->timestamp_ms, 1'700'000'000'000);
  EXPECT_EQ(s.total_attempts, 4);
  EXPECT_EQ(s.tier, 2);
  EXPECT_EQ(s.due_ms, now + 300'000);
  EXPECT_EQ(s.first_failure_ms, now);
  EXPECT_EQ(s.correlation_id, "brew.shipments.v1:3:42");
}

TEST(RetryHeaders, ARecordWithoutCourierHeadersHasTheDefaultState) {
  const retry_state s = read_retry_state(source_record().headers);
  EXPECT_FALSE(s.idempotency_key.has_value());
  EXPECT_FALSE(s.from.has_value());
  EXPECT_EQ(s.total_attempts, 0);
  EXPECT_EQ(s.tier, -1);
  EXPECT_FALSE(s.due_ms.has_value());
  EXPECT_FALSE(s.first_failure_ms.has_value());
  EXPECT_FALSE(s.correlation_id.has_value());
}

TEST(RetryHeaders, AMalformedNumberIsAnErrorNamingTheHeaderAndValue) {
  try {
    (void)read_retry_state({{"courier.retry.due", "soon"}});
    FAIL() << "expected header_error";
  } catch (const header_error& e) {
    EXPECT_EQ(e.header(), "courier.retry.due");
    EXPECT_EQ(e.value(), "soon");
    EXPECT_THAT(e.what(), ::testing::HasSubstr("courier.retry.due"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("soon"));
  }
  EXPECT_THROW((void)read_retry_state({{"courier.attempts", "-1"}}), header_error);
  EXPECT_THROW((void)read_retry_state({{"courier.attempts", " 3"}}), header_error);
  EXPECT_THROW((void)read_retry_state({{"courier.retry.tier", "first"}}), header_error);
  EXPECT_THROW(
      (void)read_retry_state({{"courier.origin.topic", "t"}, {"courier.origin.offset", "1e3"}}),
      header_error);
  EXPECT_EQ(read_retry_state({{"courier.retry.tier", "none"}}).tier, -1);
}

TEST(RetryHeaders, WritingNeverFailsOnMalformedIncomingHeaders) {
  record r = source_record();
  r.headers.emplace_back("courier.attempts", "lots");
  r.headers.emplace_back("courier.first.failure", "yesterday");
  r.headers.emplace_back("courier.retry.tier", "?");
  const auto h = retry_headers(r, "r", to_dlq(), http_503(2, now), now);
  EXPECT_EQ(value_of(h, attempts_header), "2");
  EXPECT_EQ(value_of(h, first_failure_header), std::to_string(now));
  EXPECT_EQ(value_of(h, retry_tier_header), "none");
  EXPECT_NO_THROW((void)read_retry_state(h));
}

// Found by tests/fuzz/retry_headers_fuzz.cpp (corpus: malformed_origin): a carried origin
// was kept byte for byte, so an edited, malformed partition or offset made the next hop's
// read_retry_state throw, and the due gate ignored the record's due.
TEST(RetryHeaders, AMalformedCarriedOriginNumberIsDroppedSoTheNextHopCanReadIt) {
  record r = source_record();
  r.headers.emplace_back("courier.origin.topic", "brew.shipments.v1");
  r.headers.emplace_back("courier.origin.partition", "-1");
  r.headers.emplace_back("courier.origin.offset", "1e3");
  r.headers.emplace_back("courier.origin.timestamp", "1700000000000");
  const auto h = retry_headers(r, "r", to_tier(1), http_503(1, now), now);
  EXPECT_EQ(count_of(h, origin_partition_header), 0U);
  EXPECT_EQ(count_of(h, origin_offset_header), 0U);
  EXPECT_EQ(value_of(h, origin_timestamp_header), "1700000000000") << "well formed: kept";
  retry_state s;
  ASSERT_NO_THROW(s = read_retry_state(h));
  ASSERT_TRUE(s.from.has_value());
  EXPECT_EQ(s.from->topic, "brew.shipments.v1");
  EXPECT_EQ(s.from->partition, 0);
  EXPECT_EQ(s.due_ms, now + 30000);
}

// Found by the same target (corpus: number_limits): attempts past INT_MAX were written as a
// number courier.attempts cannot read back (and past INT64_MAX the sum overflowed).
TEST(RetryHeaders, AttemptsSaturateAtWhatTheHeaderReadsBackAs) {
  for (const char* carried : {"2147483647", "2147483646", "9223372036854775807"}) {
    record r = source_record();
    r.headers.emplace_back("courier.attempts", carried);
    const auto h = retry_headers(r, "r", to_dlq(), http_503(4, now), now);
    EXPECT_EQ(value_of(h, attempts_header), "2147483647") << carried;
    retry_state s;
    ASSERT_NO_THROW(s = read_retry_state(h)) << carried;
    EXPECT_EQ(s.total_attempts, 2147483647);
  }
}

}  // namespace
}  // namespace courier
