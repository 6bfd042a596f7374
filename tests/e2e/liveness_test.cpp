// Liveness that means it, on the real broker: a fatal librdkafka error is not a process that is
// up and consumes nothing. The fatal error here is one a deployment meets for real: two pods
// started with the same static `group.instance.id` (a StatefulSet's name reused, a copied
// config). The broker hands the identity to the newer one and fences the older (librdkafka
// raises FENCED_INSTANCE_ID as a fatal consumer error); the older must say why and exit
// non-zero, and the newer delivers everything, each record's duplicates bounded by what the
// fenced one delivered above its last commit.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.hpp"

namespace courier::e2e {
namespace {

TEST(EndToEndLiveness, AFencedStaticMemberSaysWhyAndExitsNonZeroAndItsSuccessorDeliversAll) {
  constexpr std::uint64_t n = 3000;
  constexpr int partitions = 4;
  const temp_dir scratch{"e2e-fenced", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  webhook w{dir, 40};
  const courier_settings s{unique_name("fenced-group"), unique_name("fenced"), w.url(), 8, 100};
  create_topic(s.topic, partitions);
  seed(s.topic, 0, n);
  const auto config =
      prepare_with(s, nlohmann::json::object(), dir, {{"group.instance.id", "courier-0"}});

  auto older = start_courier(config, dir, "courier-older");
  ASSERT_TRUE(wait_delivered(w, 100, 60s, {older.get()})) << w.stats().raw << "\n"
                                                          << tail(older->log());
  // Until the broker fences it, the older one delivers on while the newer one fetches from the
  // group's commit point: what the older one delivers above the commit point as the newer one
  // starts is what can arrive twice.
  const auto committed_at_join = committed_total(s.group, s.topic, partitions);
  auto newer = start_courier(config, dir, "courier-newer");

  // The older one ends by itself, non-zero, naming the fatal error.
  const auto code = older->wait_exit(60s);
  ASSERT_TRUE(code.has_value()) << "the fenced instance is still up: " << tail(older->log());
  EXPECT_NE(*code, 0) << tail(older->log());
  const auto older_log = older->log();
  EXPECT_NE(older_log.find("fatal error"), std::string::npos) << tail(older_log);
  EXPECT_NE(older_log.find("FENCED_INSTANCE_ID"), std::string::npos) << tail(older_log);
  // Every answer so far, the newer one's included (the older one drained its requests before it
  // exited): an upper bound of what the older one delivered.
  const auto answered_at_exit = w.stats().total;
  ASSERT_LT(answered_at_exit, n) << "everything was delivered before the fence";

  ASSERT_TRUE(wait_delivered(w, n, 90s, {newer.get()})) << w.stats().raw << "\n"
                                                        << tail(newer->log());
  ASSERT_TRUE(committed_reaches(s.group, s.topic, partitions, static_cast<std::int64_t>(n)));
  expect_clean_stop(*newer);

  const auto stats = w.settled_stats();
  EXPECT_EQ(stats.unique_keys, n) << stats.raw;
  EXPECT_EQ(stats.fail_401, 0U) << stats.raw;
  const auto above_commit =
      answered_at_exit - static_cast<std::uint64_t>(std::max<std::int64_t>(committed_at_join, 0));
  EXPECT_LE(stats.duplicates, above_commit)
      << "delivered twice beyond what was delivered above the commit point as the newer one "
         "joined ("
      << answered_at_exit << " answered when the older exited, " << committed_at_join
      << " committed at the join): " << stats.raw;
}

}  // namespace
}  // namespace courier::e2e
