#pragma once

// Support for partner_contract_test.cpp: records seeded with a traceparent each, the accounting
// of every record (delivered once at nginx or in the DLQ), and counting nginx's arrivals in
// windows of time.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/kafka/producer.hpp"
#include "demo/shipments.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/e2e/nginx_receiver.hpp"
#include "tests/support/metrics_text.hpp"

namespace courier::e2e {

// A W3C traceparent of its own for record `i` of this process.
inline std::string traceparent_for(std::size_t i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "00-%016llx%016llx-%016llx-01",
                static_cast<unsigned long long>(getpid()), static_cast<unsigned long long>(i),
                static_cast<unsigned long long>(i * 7919 + 1));
  return buf;
}

// Produces shipments [0, count) (keys shp-<index>, spread by the partitioner), each with its
// traceparent header, and waits for every ack. Returns each record's Idempotency-Key (courier's
// "<topic>:<partition>:<offset>", known from its delivery report) with its traceparent.
inline std::map<std::string, std::string> seed_traced(const std::string& topic, std::size_t count) {
  std::map<std::string, std::string> by_key;
  kafka::producer p{kafka_environment::bootstrap()};
  for (std::size_t i = 0; i < count; ++i) {
    auto trace = traceparent_for(i);
    p.produce(
        topic, -1, demo::shipment_id(i), demo::make_shipment(i, 7), {{"traceparent", trace}}, 0,
        [&by_key, &topic, trace](rd_kafka_resp_err_t err, std::int32_t partition,
                                 std::int64_t offset) {
          if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            by_key.emplace(topic + ":" + std::to_string(partition) + ":" + std::to_string(offset),
                           trace);
          }
        });
  }
  p.flush(std::chrono::seconds{30});
  if (p.failed() != 0 || by_key.size() != count) {
    throw std::runtime_error("seeding " + topic + ": " + std::to_string(p.failed()) +
                             " records failed");
  }
  return by_key;
}

// The keys nginx answered 2xx, each with how many times.
inline std::map<std::string, int> delivered_keys(const std::vector<arrival>& log) {
  std::map<std::string, int> out;
  for (const auto& a : log) {
    if (a.status >= 200 && a.status < 300) {
      ++out[a.key];
    }
  }
  return out;
}

// The Idempotency-Keys of the records in a DLQ (its courier.idempotency.key header), read to
// the end of every partition.
inline std::vector<std::string> dlq_keys(const std::string& dlq, int partitions) {
  std::vector<std::string> keys;
  for (const auto& r : read_to_end(dlq, partitions, "read_uncommitted", std::chrono::seconds{30})) {
    keys.emplace_back(find_header(r.headers, "courier.idempotency.key").value_or("(none)"));
  }
  return keys;
}

// Waits until every seeded record was delivered (a 2xx at nginx) or dead-lettered (counted by
// the DLQ's end offsets); gives up early when a courier exited.
inline bool wait_all_done(nginx_receiver& nginx, std::size_t n, const std::string& dlq,
                          int partitions, std::chrono::milliseconds timeout,
                          std::initializer_list<child_process*> couriers) {
  end_offsets_probe probe{"read_uncommitted"};
  bool exited = false;
  const bool done = wait_until(
      [&] {
        for (auto* c : couriers) {
          exited = exited || !c->running();
        }
        const auto delivered = delivered_keys(nginx.arrivals()).size();
        const auto dead = probe.total(dlq, partitions, std::chrono::seconds{5}).value_or(0);
        return exited || delivered + static_cast<std::size_t>(dead) >= n;
      },
      timeout, [] { std::this_thread::sleep_for(std::chrono::milliseconds{200}); });
  return done && !exited;
}

// Every seeded record is delivered (a 2xx at nginx) or in the DLQ, never both, the DLQ holds
// each at most once (but for `max_dead_duplicates` of them: a SIGKILL after the DLQ's ack and
// before the commit writes a record there again), nothing else arrived, and at most
// `max_duplicates` records were answered 2xx more than once. Returns how many are in the DLQ.
inline std::size_t expect_each_record_once(const std::vector<arrival>& log,
                                           const std::map<std::string, std::string>& seeded,
                                           const std::vector<std::string>& dead,
                                           std::size_t max_duplicates,
                                           std::size_t max_dead_duplicates = 0) {
  const auto delivered = delivered_keys(log);
  std::size_t duplicates = 0;
  for (const auto& [key, times] : delivered) {
    EXPECT_EQ(seeded.count(key), 1U) << "delivered a key never seeded: " << key;
    duplicates += times > 1 ? 1 : 0;
  }
  const std::set<std::string> dead_once{dead.begin(), dead.end()};
  EXPECT_LE(dead.size() - dead_once.size(), max_dead_duplicates) << "records in the DLQ twice";
  for (const auto& key : dead_once) {
    EXPECT_EQ(seeded.count(key), 1U) << "dead-lettered a key never seeded: " << key;
    EXPECT_EQ(delivered.count(key), 0U) << "delivered and dead-lettered: " << key;
  }
  EXPECT_EQ(delivered.size() + dead_once.size(), seeded.size())
      << delivered.size() << " delivered, " << dead_once.size() << " dead-lettered";
  EXPECT_LE(duplicates, max_duplicates) << "records answered 2xx more than once";
  std::cout << delivered.size() << " delivered, " << dead_once.size() << " dead-lettered ("
            << dead.size() - dead_once.size() << " twice), " << duplicates << " delivered twice"
            << std::endl;
  return dead_once.size();
}

// The arrivals' times, in order.
inline std::vector<std::int64_t> sorted_times(const std::vector<arrival>& log) {
  std::vector<std::int64_t> t;
  t.reserve(log.size());
  for (const auto& a : log) {
    t.push_back(a.ms);
  }
  std::sort(t.begin(), t.end());
  return t;
}

// How many of the sorted times lie in [from, to).
inline std::size_t count_in(const std::vector<std::int64_t>& sorted, std::int64_t from,
                            std::int64_t to) {
  return static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), to) -
                                  std::lower_bound(sorted.begin(), sorted.end(), from));
}

// The most arrivals in any window [t, t + width) that starts at an arrival at or after `from`,
// and where the fullest one starts.
struct fullest_window {
  std::size_t count = 0;
  std::int64_t at = 0;
};
inline fullest_window fullest(const std::vector<std::int64_t>& sorted, std::int64_t width,
                              std::int64_t from) {
  fullest_window best;
  for (auto it = std::lower_bound(sorted.begin(), sorted.end(), from); it != sorted.end(); ++it) {
    const auto n = count_in(sorted, *it, *it + width);
    if (n > best.count) {
      best = {n, *it};
    }
  }
  return best;
}

// A sum over one family of courier's /metrics for the route, or -1 without an admin listener.
inline double route_metric(const child_process& courier, const std::string& family) {
  const auto admin = admin_port_in(courier.log());
  if (admin == 0) {
    return -1;
  }
  const auto text = http_get(admin, "/metrics", std::chrono::seconds{2}).value_or("");
  return testing::sum_of(testing::samples_of(text), family, {{"route", "shipments"}});
}

inline std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace courier::e2e
