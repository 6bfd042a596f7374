#include "actors/credential_keeper.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/auth/token_request.hpp"
#include "core/log/log_output.hpp"
#include "tests/actors/deterministic.hpp"
#include "tests/actors/fake_poster.hpp"
#include "tests/support/temp_dir.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* secret = "k33p-th1s-s3cret";

std::string token_body(const std::string& token, int expires_in) {
  return R"({"access_token":")" + token + R"(","token_type":"Bearer","expires_in":)" +
         std::to_string(expires_in) + "}";
}

// What the subscriber (the delivery pool) heard and what the refresh requests were answered.
struct heard {
  std::vector<std::string> pushed;     // credentials_atom values, in order
  std::vector<std::string> refreshed;  // answers to refresh_atom: the value or "error: ..."
};

struct CredentialKeeper : ::testing::Test {
  CredentialKeeper() {
    log::set_format(log::line_format::json);
    subscriber = d.sys->spawn(
        [](caf::event_based_actor*, std::shared_ptr<heard> h) -> caf::behavior {
          return {[h](actors::credentials_atom, const std::string& v) { h->pushed.push_back(v); }};
        },
        got);
    asker = d.sys->spawn(
        [](caf::event_based_actor* self, std::shared_ptr<heard> h) -> caf::behavior {
          return {[=](actors::refresh_atom, const std::string& stale, caf::actor to) {
            self->request(to, caf::infinite, actors::refresh_atom::value, stale)
                .then([h](const std::string& fresh) { h->refreshed.push_back(fresh); },
                      [h](const caf::error& e) {
                        h->refreshed.push_back("error: " + caf::to_string(e));
                      });
          }};
        },
        got);
  }

  ~CredentialKeeper() override {
    for (const auto& a : {keeper, subscriber, asker}) {
      if (a) {
        caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
      }
    }
    d.run();
  }

  static auth_config oauth2() {
    oauth2_config c;
    c.token_url = "https://auth.example/token";
    c.client_id = "courier";
    c.client_secret = secret;
    c.client_secret_file = "/run/secrets/client";
    auth_config a;
    a.oauth2 = c;
    return a;
  }

  void start(auth_config auth, std::optional<auth::credential> first = std::nullopt) {
    actors::credential_keeper_settings s;
    s.route = "shipments";
    s.auth = std::move(auth);
    s.first = std::move(first);
    keeper =
        d.sys->spawn(actors::credential_keeper, s, std::static_pointer_cast<http::poster>(poster));
    caf::anon_send(keeper, actors::subscribe_atom::value, subscriber);
    d.run();
  }

  void refresh(const std::string& stale) {
    caf::anon_send(asker, actors::refresh_atom::value, stale, keeper);
    d.run();
  }

  // Answers the token request `i` (in the order posted).
  void answer(std::size_t i, int status, const std::string& body) {
    ASSERT_LT(i, poster->posted.size());
    auto& e = poster->posted[i];
    ASSERT_FALSE(e.answered);
    e.answered = true;
    http::response r;
    r.status = status;
    r.body = body;
    e.on_done(std::move(r));
    d.run();
  }

  deterministic_system d;
  std::shared_ptr<fake_poster> poster = std::make_shared<fake_poster>();
  std::shared_ptr<heard> got = std::make_shared<heard>();
  caf::actor keeper;
  caf::actor subscriber;
  caf::actor asker;
};

TEST_F(CredentialKeeper, FetchesAFirstTokenAndTellsTheSubscriber) {
  start(oauth2());
  ASSERT_EQ(poster->posted.size(), 1U);
  const auto& req = poster->posted[0].request;
  EXPECT_EQ(req.body.str(), "grant_type=client_credentials");
  EXPECT_EQ(poster->posted[0].header("Authorization"),
            auth::basic_client_authorization("courier", secret));
  EXPECT_TRUE(got->pushed.empty()) << "nothing before a token";
  answer(0, 200, token_body("t1", 60));
  EXPECT_EQ(got->pushed, std::vector<std::string>{"Bearer t1"});
}

TEST_F(CredentialKeeper, StartsWithTheTokenOfStartUpAndRefreshesItShortlyBeforeItExpires) {
  start(oauth2(), auth::credential{"Bearer t0", 60s});
  EXPECT_EQ(got->pushed, std::vector<std::string>{"Bearer t0"});
  EXPECT_TRUE(poster->posted.empty()) << "start-up's token is not fetched again";
  d.advance(53s);
  EXPECT_TRUE(poster->posted.empty()) << "cached until shortly before expires_in";
  d.advance(1s);  // 60 s - max(10 %, 5 s)
  ASSERT_EQ(poster->posted.size(), 1U);
  answer(0, 200, token_body("t1", 60));
  EXPECT_EQ(got->pushed, (std::vector<std::string>{"Bearer t0", "Bearer t1"}));
  d.advance(54s);
  ASSERT_EQ(poster->posted.size(), 2U) << "the next refresh is on the new token's schedule";
}

TEST_F(CredentialKeeper, ARefreshOfTheCurrentValueFetchesOnceForEveryoneAsking) {
  start(oauth2(), auth::credential{"Bearer t0", 3600s});
  refresh("Bearer t0");
  refresh("Bearer t0");
  refresh("Bearer t0");
  ASSERT_EQ(poster->posted.size(), 1U) << "concurrent refreshes coalesce into one request";
  EXPECT_TRUE(got->refreshed.empty()) << "answered only when the token came";
  answer(0, 200, token_body("t1", 3600));
  EXPECT_EQ(got->refreshed, (std::vector<std::string>{"Bearer t1", "Bearer t1", "Bearer t1"}));
  EXPECT_EQ(got->pushed, (std::vector<std::string>{"Bearer t0", "Bearer t1"}));
}

TEST_F(CredentialKeeper, ARefreshOfAStaleValueIsAnsweredAtOnceWithTheCurrentOne) {
  start(oauth2(), auth::credential{"Bearer t1", 3600s});
  refresh("Bearer t0");
  EXPECT_EQ(got->refreshed, std::vector<std::string>{"Bearer t1"});
  EXPECT_TRUE(poster->posted.empty());
}

TEST_F(CredentialKeeper, ARefusedRefreshFailsTheWaitersKeepsTheTokenAndRetriesWithBackoff) {
  start(oauth2(), auth::credential{"Bearer t0", 3600s});
  ::testing::internal::CaptureStderr();
  refresh("Bearer t0");
  answer(0, 401,
         std::string{R"({"error":"invalid_client","error_description":"bad secret )"} + secret +
             R"("})");
  const auto log = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(got->refreshed.size(), 1U);
  EXPECT_EQ(got->refreshed[0].rfind("error: ", 0), 0U) << got->refreshed[0];
  EXPECT_NE(log.find("token request failed"), std::string::npos) << log;
  EXPECT_NE(log.find("invalid_client"), std::string::npos) << log;
  EXPECT_NE(log.find("401"), std::string::npos) << log;
  EXPECT_EQ(log.find(secret), std::string::npos) << "the secret stays out of the log: " << log;
  EXPECT_EQ(log.find("Bearer"), std::string::npos) << "the token stays out of the log: " << log;
  EXPECT_EQ(got->pushed, std::vector<std::string>{"Bearer t0"}) << "the current token is kept";

  d.advance(999ms);
  EXPECT_EQ(poster->posted.size(), 1U);
  d.advance(1ms);
  ASSERT_EQ(poster->posted.size(), 2U) << "retried after 1 s";
  answer(1, 503, "");
  d.advance(2s);
  ASSERT_EQ(poster->posted.size(), 3U) << "then after 2 s";
  answer(2, 200, token_body("t1", 3600));
  EXPECT_EQ(got->pushed, (std::vector<std::string>{"Bearer t0", "Bearer t1"}));
  d.advance(10s);
  EXPECT_EQ(poster->posted.size(), 3U) << "no retry once it worked";
}

TEST_F(CredentialKeeper, AnUnreachableEndpointIsLoggedWithItsReason) {
  start(oauth2(), auth::credential{"Bearer t0", 3600s});
  refresh("Bearer t0");
  ::testing::internal::CaptureStderr();
  auto& e = poster->posted.at(0);
  e.answered = true;
  http::response r;
  r.error = transport_error::connect;
  r.error_message = "connection refused";
  e.on_done(std::move(r));
  d.run();
  const auto log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("the token endpoint did not answer: connection refused"), std::string::npos)
      << log;
  ASSERT_EQ(got->refreshed.size(), 1U);
  EXPECT_NE(got->refreshed[0].find("connection refused"), std::string::npos) << got->refreshed[0];
}

struct CredentialKeeperFile : CredentialKeeper {
  void write(const std::string& content) {
    const auto next = dir.path() / "token.next";
    std::ofstream{next} << content;
    std::filesystem::rename(next, path);  // as Kubernetes' atomic writer does
  }
  auth_config file_auth() const {
    auth_config a;
    a.bearer_token_file = path.string();
    return a;
  }

  temp_dir dir{"keeper"};
  std::filesystem::path path = dir.path() / "token";
};

TEST_F(CredentialKeeperFile, ReadsTheFileAndPicksUpARotationWithinACheckInterval) {
  write("one\n");
  start(file_auth());
  EXPECT_EQ(got->pushed, std::vector<std::string>{"Bearer one"});
  write("two\n");
  d.advance(1s);
  EXPECT_EQ(got->pushed, (std::vector<std::string>{"Bearer one", "Bearer two"}));
  d.advance(5s);
  EXPECT_EQ(got->pushed.size(), 2U) << "an unchanged file is no new value";
  EXPECT_TRUE(poster->posted.empty());
}

TEST_F(CredentialKeeperFile, ARefreshRereadsTheFileAndFailsWhenItStillHoldsTheRefusedToken) {
  write("one");
  start(file_auth(), auth::credential{"Bearer one", 0s});
  refresh("Bearer one");
  ASSERT_EQ(got->refreshed.size(), 1U);
  EXPECT_EQ(got->refreshed[0].rfind("error: ", 0), 0U) << got->refreshed[0];
  write("two");
  refresh("Bearer one");
  ASSERT_EQ(got->refreshed.size(), 2U);
  EXPECT_EQ(got->refreshed[1], "Bearer two") << "read at once, not at the next check";
  EXPECT_EQ(got->pushed, (std::vector<std::string>{"Bearer one", "Bearer two"}));
}

TEST_F(CredentialKeeperFile, AnEmptiedFileKeepsTheTokenAndIsLoggedOnceWithoutContent) {
  write("one");
  start(file_auth(), auth::credential{"Bearer one", 0s});
  ::testing::internal::CaptureStderr();
  write("\n");
  d.advance(1s);
  d.advance(1s);
  d.advance(1s);
  const auto log = ::testing::internal::GetCapturedStderr();
  const auto first = log.find("bearer token file unusable");
  ASSERT_NE(first, std::string::npos) << log;
  EXPECT_EQ(log.find("bearer token file unusable", first + 1), std::string::npos)
      << "one line per problem, not per check: " << log;
  EXPECT_NE(log.find(path.string() + ": is empty"), std::string::npos) << log;
  EXPECT_EQ(got->pushed, std::vector<std::string>{"Bearer one"});
  write("two");
  d.advance(1s);
  EXPECT_EQ(got->pushed, (std::vector<std::string>{"Bearer one", "Bearer two"}));
}

}  // namespace
}  // namespace courier::testing
