#include "core/crypto/sha256.hpp"

#include <gtest/gtest.h>

#include <string>

namespace courier {
namespace {

// FIPS 180-2's examples.
TEST(Sha256, MatchesTheStandardsExamples) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex(std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, DigestsBinaryBytesIncludingNul) {
  EXPECT_NE(sha256_hex(std::string("a\0b", 3)), sha256_hex("a"));
  EXPECT_EQ(sha256_hex(std::string("a\0b", 3)).size(), 64U);
}

}  // namespace
}  // namespace courier
