#include "core/crypto/base64.hpp"

#include <gtest/gtest.h>

#include <string>

namespace courier {
namespace {

// RFC 4648 section 10.
TEST(Base64, EncodesTheRfc4648TestVectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
}

TEST(Base64, DecodesTheRfc4648TestVectorsWithoutPaddingBytes) {
  EXPECT_EQ(base64_decode(""), std::string{});
  EXPECT_EQ(base64_decode("Zg=="), "f");
  EXPECT_EQ(base64_decode("Zm8="), "fo");
  EXPECT_EQ(base64_decode("Zm9v"), "foo");
  EXPECT_EQ(base64_decode("Zm9vYmE="), "fooba");
}

TEST(Base64, RoundTripsBinaryBytes) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) {
    bytes.push_back(static_cast<char>(i));
  }
  EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes);
}

TEST(Base64, RefusesWhatIsNotCanonicalPaddedBase64) {
  EXPECT_EQ(base64_decode("Zg"), std::nullopt) << "unpadded";
  EXPECT_EQ(base64_decode("Zg=a"), std::nullopt) << "padding inside";
  EXPECT_EQ(base64_decode("Z==="), std::nullopt) << "three padding characters";
  EXPECT_EQ(base64_decode(" Zm9v"), std::nullopt) << "whitespace";
  EXPECT_EQ(base64_decode("Zm9v\n"), std::nullopt) << "a newline";
  EXPECT_EQ(base64_decode("Zm-_"), std::nullopt) << "the URL-safe alphabet";
}

}  // namespace
}  // namespace courier
