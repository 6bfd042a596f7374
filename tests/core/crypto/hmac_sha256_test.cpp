#include "core/crypto/hmac_sha256.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace courier {
namespace {

std::string hex(const hmac_sha256::digest& d) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char b : d) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0x0f]);
  }
  return out;
}

TEST(HmacSha256, MatchesRfc4231TestCase2) {
  const hmac_sha256 key{"Jefe"};
  EXPECT_EQ(hex(key.mac("what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HmacSha256, TheMacOfPartsIsTheMacOfTheirConcatenation) {
  const hmac_sha256 key{"Jefe"};
  EXPECT_EQ(key.mac({"what do ya ", "", "want for nothing?"}),
            key.mac("what do ya want for nothing?"));
}

TEST(HmacSha256, OneKeySignsAgainAndAgainWithTheSameResult) {
  const hmac_sha256 key{std::string(20, '\x0b')};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(hex(key.mac("Hi There")),
              "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  }
}

TEST(HmacSha256, ACopySharesTheKey) {
  const hmac_sha256 key{"Jefe"};
  const hmac_sha256 copy = key;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy.mac("x"), key.mac("x"));
  EXPECT_NE(hmac_sha256{"other"}.mac("x"), key.mac("x"));
}

// The delivery pool signs on its actor's thread, mock_webhook verifies on its io threads:
// one key read from several threads at once must give every one of them the right MAC.
TEST(HmacSha256, ConcurrentMacsOnOneKeyAgree) {
  const hmac_sha256 key{"Jefe"};
  const auto expected = key.mac("what do ya want for nothing?");
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < wrong.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        wrong[t] += key.mac("what do ya want for nothing?") == expected ? 0 : 1;
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  for (const int w : wrong) {
    EXPECT_EQ(w, 0);
  }
}

}  // namespace
}  // namespace courier
