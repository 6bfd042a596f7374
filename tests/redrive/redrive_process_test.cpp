// The `redrive` executable as a child process: killed mid-run, and against a broker that is
// not there.

#include "tests/redrive/dlq_stand.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <set>
#include <string>

namespace courier::redrive::test {
namespace {

using courier::testing::stand_redrive_config;
using courier::testing::child_process;
using courier::testing::temp_dir;
using courier::testing::wait_until;

// Records in the target topic so far, control records included: a cheap trigger only.
std::int64_t target_high_watermarks(const dlq_stand& stand) {
  kafka::range_reader reader{stand.bootstrap(), 5s};
  std::int64_t n = 0;
  for (const auto& r : reader.ranges(dlq_stand::origin, dlq_stand::partitions)) {
    n += r.high;
  }
  return n;
}

// Whether what a run wrote agrees: the ledger names exactly the DLQ records whose copies are in
// the target topic.
bool ledger_matches_target(const dlq_stand& stand) {
  std::set<std::string> ledger;
  for (const auto& r : stand.read_all(dlq_stand::ledger_topic)) {
    if (r.key) {
      ledger.insert(*r.key);
    }
  }
  std::set<std::string> moved;
  for (const auto& [from, n] : count_by_source(stand.read_all(dlq_stand::origin))) {
    moved.insert(from);
  }
  return !ledger.empty() && ledger == moved;
}

// The mock cluster never aborts a transaction (its EndTxn writes no markers): a run killed
// inside one would leave the part of its batch that reached the cluster visible for good, say
// ledger entries without their records, which a real broker aborts when the next run fences it
// (tests/e2e/e2e_test.cpp, g., kills redrive in an open transaction on a real broker). Here the
// kill comes where the cluster holds whole transactions only: the run is frozen, and killed
// once the ledger and the target agree; if they do not, it goes on and is frozen again later.
TEST(RedriveProcess, KilledMidRunThenRunAgainPublishesEachRecordExactlyOnce) {
  dlq_stand stand;
  constexpr int records = 400;
  stand.park(parked_specs(records));

  temp_dir dir;
  {
    // 100 records a second in transactions of 10: the run takes about 4 s.
    child_process child{
        REDRIVE_BINARY,
        {"--config", stand_redrive_config(), "--from", dlq_stand::dlq, "--bootstrap",
         stand.bootstrap(), "--rate", "100", "--batch", "10", "--timeout", "5s"},
        {},
        (dir.path() / "first.log").string()};
    std::optional<int> exited;
    std::int64_t next_try = 60;
    bool killed = false;
    for (int attempt = 0; attempt < 10 && !killed; ++attempt) {
      wait_until([&] { return exited || target_high_watermarks(stand) >= next_try; }, 20s,
                 [&] { exited = child.wait_exit(20ms); });
      ASSERT_FALSE(exited) << "redrive ended before it could be killed: " << child.log();
      child.signal(SIGSTOP);
      // What the frozen run had sent reaches the cluster within moments.
      if (wait_until([&] { return ledger_matches_target(stand); }, 1s)) {
        child.signal(SIGKILL);
        killed = true;
      } else {
        child.signal(SIGCONT);
        next_try = target_high_watermarks(stand) + 10;
      }
    }
    ASSERT_TRUE(killed) << "never frozen between transactions: " << child.log();
    EXPECT_EQ(child.wait_exit(10s), -1);
  }
  const auto partial = count_by_source(stand.read_all(dlq_stand::origin));
  ASSERT_LT(partial.size(), static_cast<std::size_t>(records)) << "the kill came too late";

  child_process again{REDRIVE_BINARY,
                      {"--config", stand_redrive_config(), "--from", dlq_stand::dlq, "--bootstrap",
                       stand.bootstrap(), "--timeout", "5s"},
                      {},
                      (dir.path() / "second.log").string()};
  ASSERT_EQ(again.wait_exit(60s), 0) << again.log();

  const auto counts = count_by_source(stand.read_all(dlq_stand::origin));
  EXPECT_EQ(counts.size(), static_cast<std::size_t>(records));
  int duplicates = 0;
  for (const auto& [from, n] : counts) {
    duplicates += n > 1 ? 1 : 0;
  }
  EXPECT_EQ(duplicates, 0);
  EXPECT_EQ(counts.count("(missing)"), 0U);
}

TEST(RedriveProcess, AnUnreachableBrokerExitsWithTwoWithinTheTimeout) {
  temp_dir dir;
  const auto started = std::chrono::steady_clock::now();
  child_process child{REDRIVE_BINARY,
                      {"--config", stand_redrive_config(), "--from", "brew.shipments.dlq",
                       "--bootstrap", "127.0.0.1:1", "--timeout", "1s"},
                      {},
                      (dir.path() / "unreachable.log").string()};
  ASSERT_EQ(child.wait_exit(15s), 2) << child.log();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  const std::string log = child.log();
  EXPECT_NE(log.find("redrive: cannot reach Kafka at 127.0.0.1:1"), std::string::npos) << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << "one clear line: " << log;
}

// -X reaches the clients: told to speak SSL to this plaintext cluster, the run cannot read the
// DLQ it lists without it.
TEST(RedriveProcess, KafkaPropertiesReachTheClientsOfTheRun) {
  dlq_stand stand;
  stand.park(parked_specs(3));
  temp_dir dir;
  child_process plain{
      REDRIVE_BINARY,
      {"--from", dlq_stand::dlq, "--bootstrap", stand.bootstrap(), "--list", "--timeout", "5s"},
      {},
      (dir.path() / "plain.log").string()};
  ASSERT_EQ(plain.wait_exit(30s), 0) << plain.log();
  child_process over_ssl{REDRIVE_BINARY,
                         {"--from", dlq_stand::dlq, "--bootstrap", stand.bootstrap(), "--list",
                          "--timeout", "1s", "-X", "security.protocol=ssl"},
                         {},
                         (dir.path() / "ssl.log").string()};
  EXPECT_EQ(over_ssl.wait_exit(30s), 2) << over_ssl.log();
  EXPECT_NE(over_ssl.log().find("cannot reach Kafka"), std::string::npos) << over_ssl.log();
}

TEST(RedriveProcess, ABadFlagExitsWithTwoAndNamesIt) {
  temp_dir dir;
  child_process child{
      REDRIVE_BINARY, {"--from", "d", "--rate", "fast"}, {}, (dir.path() / "flag.log").string()};
  ASSERT_EQ(child.wait_exit(10s), 2);
  EXPECT_NE(child.log().find("--rate"), std::string::npos) << child.log();
}

}  // namespace
}  // namespace courier::redrive::test
