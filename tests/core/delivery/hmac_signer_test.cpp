#include "core/delivery/hmac_signer.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace courier {
namespace {

constexpr const char* jefe_mac = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";

TEST(Signer, MatchesRfc4231TestCase1) {
  const hmac_signer signer{std::string(20, '\x0b')};
  EXPECT_EQ(signer.sign("Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(Signer, MatchesRfc4231TestCase2) {
  const hmac_signer signer{"Jefe"};
  EXPECT_EQ(signer.sign("what do ya want for nothing?"), jefe_mac);
}

TEST(Signer, MatchesRfc4231TestCase3WithBinaryKeyAndBody) {
  const hmac_signer signer{std::string(20, '\xaa')};
  EXPECT_EQ(signer.sign(std::string(50, '\xdd')),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
}

TEST(Signer, MatchesRfc4231TestCase6WithKeyLongerThanABlock) {
  const hmac_signer signer{std::string(131, '\xaa')};
  EXPECT_EQ(signer.sign("Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(Signer, SignsAnEmptyBodyWithAnEmptySecret) {
  const hmac_signer signer{""};
  EXPECT_EQ(signer.sign(""), "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}

TEST(Signer, TreatsBodyBytesVerbatimIncludingNul) {
  const hmac_signer signer{"Jefe"};
  const std::string with_nul("a\0b", 3);
  EXPECT_NE(signer.sign(with_nul), signer.sign("a"));
  EXPECT_NE(signer.sign(with_nul), signer.sign("ab"));
}

TEST(Signer, ProducesLowercaseHexOfSixtyFourCharacters) {
  const hmac_signer signer{"secret"};
  const std::string mac = signer.sign(R"({"order":42})");
  ASSERT_EQ(mac.size(), 64U);
  for (char c : mac) {
    EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << mac;
  }
}

TEST(Signer, VerifyAcceptsItsOwnSignature) {
  const hmac_signer signer{"Jefe"};
  EXPECT_TRUE(signer.verify("what do ya want for nothing?", jefe_mac));
}

TEST(Signer, VerifyAcceptsUppercaseHex) {
  const hmac_signer signer{"Jefe"};
  std::string upper = jefe_mac;
  for (char& c : upper) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  EXPECT_TRUE(signer.verify("what do ya want for nothing?", upper));
}

TEST(Signer, VerifyRejectsEveryOneBitChangeOfTheMac) {
  const hmac_signer signer{"Jefe"};
  const std::string good = jefe_mac;
  static constexpr char digits[] = "0123456789abcdef";
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (int bit = 0; bit < 4; ++bit) {
      std::string bad = good;
      const int nibble = (bad[i] >= 'a') ? bad[i] - 'a' + 10 : bad[i] - '0';
      bad[i] = digits[nibble ^ (1 << bit)];
      EXPECT_FALSE(signer.verify("what do ya want for nothing?", bad)) << bad;
    }
  }
}

TEST(Signer, VerifyRejectsAOneBitChangeOfTheBody) {
  const hmac_signer signer{"Jefe"};
  EXPECT_FALSE(signer.verify("what do ya want for nothing>", jefe_mac));  // '?' ^ 0x01
}

TEST(Signer, VerifyRejectsAnotherSecret) {
  const hmac_signer signer{"jefe"};
  EXPECT_FALSE(signer.verify("what do ya want for nothing?", jefe_mac));
}

TEST(Signer, VerifyRejectsWrongLength) {
  const hmac_signer signer{"Jefe"};
  const std::string good = jefe_mac;
  EXPECT_FALSE(signer.verify("what do ya want for nothing?", good.substr(0, 62)));
  EXPECT_FALSE(signer.verify("what do ya want for nothing?", good.substr(0, 63)));
  EXPECT_FALSE(signer.verify("what do ya want for nothing?", good + "00"));
  EXPECT_FALSE(signer.verify("what do ya want for nothing?", good + " "));
  EXPECT_FALSE(signer.verify("what do ya want for nothing?", ""));
}

TEST(Signer, VerifyRejectsInvalidHex) {
  const hmac_signer signer{"Jefe"};
  std::string bad = jefe_mac;
  bad[10] = 'g';
  EXPECT_FALSE(signer.verify("what do ya want for nothing?", bad));
  bad = jefe_mac;
  bad[0] = ' ';
  EXPECT_FALSE(signer.verify("what do ya want for nothing?", bad));
}

}  // namespace
}  // namespace courier
