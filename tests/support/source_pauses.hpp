#pragma once

// "No source partition is paused": what a test of one partner's outage checks while the other
// partners' records flow. Only the source topic's partitions are judged; a retry tier's waits
// for its next record's due time (retry_due) by design.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "actors/partition_board.hpp"

namespace courier::testing {

inline void expect_no_source_partition_paused(
    const std::vector<actors::partition_report>& partitions, const std::string& source_topic) {
  for (const auto& part : partitions) {
    if (part.id.topic != source_topic) {
      continue;
    }
    std::string reasons;
    for (const auto r : part.reasons) {
      reasons += std::string{to_string(r)} + " ";
    }
    EXPECT_TRUE(part.reasons.empty())
        << "no partition paused for one partner's outage: " << part.id.topic << "["
        << part.id.partition << "]: " << reasons;
  }
}

}  // namespace courier::testing
