// The one reader of secret files (core/config/secret_file.cpp): regular files of at most 64 KiB,
// trimmed; FIFOs, devices and larger files refused at once, naming the key.

#include "core/config/secret_file.hpp"

#include <sys/stat.h>
#include <sys/types.h>

#include <chrono>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config/config.hpp"
#include "tests/support/temp_dir.hpp"

namespace courier {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using courier::testing::temp_dir;

config_error secret_error_of(const std::string& path, const std::string& key) {
  try {
    (void)read_secret_file(path, key);
  } catch (const config_error& e) {
    return e;
  }
  ADD_FAILURE() << path << " was read as a secret";
  return config_error{"", ""};
}

TEST(SecretFile, IsTheContentWithoutTheWhitespaceAroundIt) {
  temp_dir dir{"secret-file"};
  EXPECT_EQ(read_secret_file(dir.write("a", "token \n").string(), "k"), "token");
  EXPECT_EQ(read_secret_file(dir.write("b", "\t token\r\n\n").string(), "k"), "token");
  EXPECT_EQ(read_secret_file(dir.write("c", "to ken").string(), "k"), "to ken");
}

TEST(SecretFile, OfExactly64KiBIsRead) {
  temp_dir dir{"secret-file"};
  const std::string secret(largest_secret_file, 'x');
  EXPECT_EQ(read_secret_file(dir.write("s", secret).string(), "k"), secret);
}

TEST(SecretFile, LargerThan64KiBIsRefusedNamingTheKey) {
  temp_dir dir{"secret-file"};
  const auto path = dir.write("big", std::string(largest_secret_file + 1, 'x')).string();
  auto e = secret_error_of(path, "routes[0].hmac_secret_file");
  EXPECT_EQ(e.key(), "routes[0].hmac_secret_file");
  EXPECT_THAT(e.problem(), HasSubstr("larger than 64 KiB"));
  const auto mib = dir.write("mib", std::string(std::size_t{1024} * 1024, 'y')).string();
  e = secret_error_of(mib, "admin.token_file");
  EXPECT_EQ(e.key(), "admin.token_file");
  EXPECT_THAT(e.problem(), HasSubstr(mib));
  EXPECT_THAT(std::string{e.what()}, Not(HasSubstr("yyyy")));
}

TEST(SecretFile, ADeviceIsRefusedWithoutReadingIt) {
  const auto e = secret_error_of("/dev/zero", "routes[0].auth.oauth2.client_secret_file");
  EXPECT_EQ(e.key(), "routes[0].auth.oauth2.client_secret_file");
  EXPECT_THAT(e.problem(), HasSubstr("not a regular file"));
}

TEST(SecretFile, AFifoIsRefusedAtOnceWithoutAWriter) {
  temp_dir dir{"secret-file"};
  const auto fifo = (dir.path() / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto started = std::chrono::steady_clock::now();
  const auto e = secret_error_of(fifo, "routes[0].headers.X-Api-Key.file");
  EXPECT_EQ(e.key(), "routes[0].headers.X-Api-Key.file");
  EXPECT_THAT(e.problem(), HasSubstr("not a regular file"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds{1});
}

TEST(SecretFile, ADirectoryAMissingFileAndAnEmptyOneAreRefusedNamingTheKey) {
  temp_dir dir{"secret-file"};
  EXPECT_THAT(secret_error_of(dir.path().string(), "k").problem(), HasSubstr("not a regular file"));
  EXPECT_THAT(secret_error_of((dir.path() / "absent").string(), "k").problem(),
              HasSubstr("No such file"));
  EXPECT_THAT(secret_error_of(dir.write("blank", " \r\n\t\n").string(), "k").problem(),
              HasSubstr("is empty"));
}

TEST(SecretFile, LinesAreEachTrimmedAndBlankOnesSkipped) {
  temp_dir dir{"secret-file"};
  const auto path = dir.write("lines", "whsec_a \r\n\n  \t\nwhsec_b\n").string();
  EXPECT_EQ(read_secret_lines(path, "k"), (std::vector<std::string>{"whsec_a", "whsec_b"}));
}

TEST(SecretFile, LinesOfADeviceAreRefusedNamingTheKey) {
  try {
    (void)read_secret_lines("/dev/zero", "STANDARD_WEBHOOKS_SECRETS_FILE");
    FAIL() << "/dev/zero was read";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "STANDARD_WEBHOOKS_SECRETS_FILE");
  }
}

TEST(SecretFile, TrimTakesSpacesTabsCrAndLfFromBothEnds) {
  EXPECT_EQ(trim_secret(" \t\r\nabc \t\r\n"), "abc");
  EXPECT_EQ(trim_secret("a b"), "a b");
  EXPECT_EQ(trim_secret(" \n"), "");
}

}  // namespace
}  // namespace courier
