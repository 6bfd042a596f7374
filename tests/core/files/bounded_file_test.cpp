// The bounded reader of an operator's file (core/files/bounded_file.cpp): a regular file of at
// most 64 KiB is read whole; anything else is refused with the reason, never with its content.

#include "core/files/bounded_file.hpp"

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace courier {
namespace {

using ::testing::HasSubstr;
using courier::testing::temp_dir;

TEST(BoundedFile, AFileOfAtMost64KiBIsReadWholeAndUntrimmed) {
  temp_dir dir{"bounded-file"};
  const auto read = read_bounded_file(dir.write("a", " token \n").string());
  EXPECT_EQ(read.problem, "");
  EXPECT_EQ(read.text, " token \n");
  const std::string full(largest_secret_file, 'x');
  EXPECT_EQ(read_bounded_file(dir.write("full", full).string()).text, full);
}

TEST(BoundedFile, OneByteMoreADeviceAFifoOrAMissingFileIsRefusedWithTheReason) {
  temp_dir dir{"bounded-file"};
  const auto big =
      read_bounded_file(dir.write("big", std::string(largest_secret_file + 1, 'y')).string());
  EXPECT_THAT(big.problem, HasSubstr("larger than 64 KiB"));
  EXPECT_EQ(big.text, "") << "nothing of a refused file is kept";
  EXPECT_THAT(read_bounded_file("/dev/zero").problem, HasSubstr("not a regular file"));
  const auto fifo = (dir.path() / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(read_bounded_file(fifo).problem, HasSubstr("not a regular file"));
  EXPECT_THAT(read_bounded_file((dir.path() / "missing").string()).problem,
              HasSubstr("No such file"));
}

TEST(BoundedFile, TrimTakesTheSpacesAroundTheSecretOnly) {
  EXPECT_EQ(trim_secret(" \t to ken\r\n\n"), "to ken");
  EXPECT_EQ(trim_secret("\n \n"), "");
}

}  // namespace
}  // namespace courier
