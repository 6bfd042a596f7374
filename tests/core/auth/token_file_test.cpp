#include "core/auth/token_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace courier::auth {
namespace {

namespace fs = std::filesystem;
using outcome = token_file_watch::outcome;

// Writes `content` beside `target` and renames it over it, as an atomic update does.
void replace(const fs::path& target, const std::string& content) {
  const fs::path next = target.string() + ".next";
  std::ofstream{next, std::ios::binary} << content;
  fs::rename(next, target);
}

TEST(ReadBearerToken, IsTheContentWithoutTheFinalNewline) {
  testing::temp_dir dir{"token-file"};
  EXPECT_EQ(read_bearer_token(dir.write("token", "abc.def\n").string()), "abc.def");
  EXPECT_EQ(read_bearer_token(dir.write("token", "  abc\r\n\n").string()), "abc");
}

TEST(ReadBearerToken, ADeviceIsRefusedAsEverySecretFileIs) {
  try {
    read_bearer_token("/dev/zero");
    FAIL() << "/dev/zero was read as a token";
  } catch (const token_file_error& e) {
    EXPECT_EQ(std::string{e.what()},
              "/dev/zero: is not a regular file (a FIFO, device, socket or directory)");
  }
}

TEST(ReadBearerToken, AnEmptyFileIsAnErrorNamingThePath) {
  testing::temp_dir dir{"token-file"};
  const auto path = dir.write("token", " \n").string();
  try {
    read_bearer_token(path);
    FAIL() << "an empty token file was taken";
  } catch (const token_file_error& e) {
    EXPECT_EQ(std::string{e.what()}, path + ": is empty");
  }
}

TEST(ReadBearerToken, AMissingFileIsAnErrorNamingThePath) {
  testing::temp_dir dir{"token-file"};
  const auto path = (dir.path() / "absent").string();
  try {
    read_bearer_token(path);
    FAIL() << "a missing token file was taken";
  } catch (const token_file_error& e) {
    EXPECT_EQ(std::string{e.what()}, path + ": No such file or directory");
  }
}

TEST(ReadBearerToken, ATokenAHeaderCannotCarryIsRefusedWithoutQuotingIt) {
  testing::temp_dir dir{"token-file"};
  const auto path = dir.write("token", "abc\ninjected: yes").string();
  try {
    read_bearer_token(path);
    FAIL() << "a token with a line break was taken";
  } catch (const token_file_error& e) {
    EXPECT_EQ(std::string{e.what()}.find("injected"), std::string::npos) << e.what();
    EXPECT_EQ(std::string{e.what()}.rfind(path, 0), 0U) << e.what();
  }
}

TEST(TokenFileWatch, TheFirstPollReadsTheFileAndLaterOnesOnlyWhenItChanged) {
  testing::temp_dir dir{"token-file"};
  const auto path = dir.write("token", "one\n");
  token_file_watch watch{path.string()};
  auto c = watch.poll();
  EXPECT_EQ(c.what, outcome::changed);
  EXPECT_EQ(c.token, "one");
  EXPECT_EQ(watch.poll().what, outcome::unchanged);
  replace(path, "two\n");
  c = watch.poll();
  EXPECT_EQ(c.what, outcome::changed);
  EXPECT_EQ(c.token, "two");
  EXPECT_EQ(watch.token(), "two");
}

TEST(TokenFileWatch, ANewVersionWithTheSameTokenIsNoChange) {
  testing::temp_dir dir{"token-file"};
  const auto path = dir.write("token", "same");
  token_file_watch watch{path.string(), "same"};
  replace(path, "same\n");
  EXPECT_EQ(watch.poll().what, outcome::unchanged);
}

TEST(TokenFileWatch, FollowsTheSymlinkKubernetesSwapsToANewDirectory) {
  // A projected volume: token -> ..data/token, ..data -> ..2024_01_01 (swapped atomically).
  testing::temp_dir dir{"token-file"};
  fs::create_directory(dir.path() / "..v1");
  std::ofstream{dir.path() / "..v1" / "token"} << "first";
  fs::create_directory_symlink("..v1", dir.path() / "..data");
  fs::create_symlink("..data/token", dir.path() / "token");
  token_file_watch watch{(dir.path() / "token").string(), "first"};
  EXPECT_EQ(watch.poll().what, outcome::unchanged);

  fs::create_directory(dir.path() / "..v2");
  std::ofstream{dir.path() / "..v2" / "token"} << "second";
  fs::create_directory_symlink("..v2", dir.path() / "..data_tmp");
  fs::rename(dir.path() / "..data_tmp", dir.path() / "..data");
  fs::remove_all(dir.path() / "..v1");
  const auto c = watch.poll();
  EXPECT_EQ(c.what, outcome::changed);
  EXPECT_EQ(c.token, "second");
}

TEST(TokenFileWatch, AFileGoneOrEmptiedFailsAndTheTokenIsKept) {
  testing::temp_dir dir{"token-file"};
  const auto path = dir.write("token", "kept");
  token_file_watch watch{path.string(), "kept"};
  replace(path, "");
  auto c = watch.poll();
  EXPECT_EQ(c.what, outcome::failed);
  EXPECT_EQ(c.problem, path.string() + ": is empty");
  fs::remove(path);
  c = watch.poll();
  EXPECT_EQ(c.what, outcome::failed);
  EXPECT_EQ(watch.token(), "kept");
  replace(path, "back");
  c = watch.poll();
  EXPECT_EQ(c.what, outcome::changed);
  EXPECT_EQ(c.token, "back");
}

TEST(TokenFileWatch, ARereadReadsEvenWhenTheFileLooksTheSame) {
  testing::temp_dir dir{"token-file"};
  const auto path = dir.write("token", "one");
  token_file_watch watch{path.string(), "one"};
  EXPECT_EQ(watch.reread().what, outcome::unchanged);
  replace(path, "two");
  const auto c = watch.reread();
  EXPECT_EQ(c.what, outcome::changed);
  EXPECT_EQ(c.token, "two");
}

}  // namespace
}  // namespace courier::auth
