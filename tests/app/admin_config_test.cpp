// admin.listen: the key, its default, the --admin-listen flag, and what a bad value says.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "admin/listener.hpp"
#include "app/cli.hpp"

namespace courier::app {
namespace {

using admin::admin_listener;
using admin::open_admin_listener;

using ::testing::HasSubstr;

nlohmann::json minimal() {
  return nlohmann::json::parse(R"({"routes": [{"name": "shipments", "topic": "t",
    "url": "http://127.0.0.1:1/deliver", "hmac_secret": "s"}]})");
}

std::string error_key_of(const nlohmann::json& doc) {
  try {
    validate(parse_config(doc));
  } catch (const config_error& e) {
    return e.key();
  }
  return "";
}

TEST(AdminConfig, DefaultsToLoopback9464) {
  EXPECT_EQ(parse_config(minimal()).admin.listen, "127.0.0.1:9464");
}

TEST(AdminConfig, ReadsListenAndOff) {
  auto doc = minimal();
  doc["admin"] = {{"listen", "0.0.0.0:9100"}};
  EXPECT_EQ(parse_config(doc).admin.listen, "0.0.0.0:9100");
  doc["admin"] = {{"listen", "off"}};
  EXPECT_NO_THROW(validate(parse_config(doc)));
}

TEST(AdminConfig, ABadValueNamesTheKey) {
  for (const char* bad : {"9464", "127.0.0.1:", "127.0.0.1:65536", "example.com:80", "1.2.3:80",
                          "[zz]:80", "127.0.0.1:-1", "on"}) {
    auto doc = minimal();
    doc["admin"] = {{"listen", bad}};
    EXPECT_EQ(error_key_of(doc), "admin.listen") << bad;
  }
  auto doc = minimal();
  doc["admin"] = {{"listne", "off"}};
  EXPECT_EQ(error_key_of(doc), "admin.listne");
}

TEST(AdminConfig, ParsesTheAddressForms) {
  const auto v4 = parse_listen_address("127.0.0.1:0");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 0);
  const auto v6 = parse_listen_address("[::1]:9464");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 9464);
  EXPECT_TRUE(parse_listen_address("localhost:80"));
}

TEST(AdminConfig, TheFlagOverridesTheDefault) {
  const char* argv[] = {"courier", "demo", "--admin-listen", "off"};
  const auto r = parse_cli(4, argv);
  ASSERT_TRUE(r.command) << r.message;
  const auto cfg = resolve_config(*r.command, [](const char*) { return std::nullopt; });
  EXPECT_EQ(cfg.admin.listen, "off");
  const char* bad[] = {"courier", "run", "--admin-listen", "nowhere"};
  const auto e = parse_cli(4, bad);
  EXPECT_FALSE(e.command);
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_THAT(e.message, HasSubstr("--admin-listen"));
}

TEST(AdminListener, APortInUseIsAConfigErrorNamingTheKey) {
  admin_listener first{{"127.0.0.1", 0}};
  ASSERT_NE(first.port(), 0);
  try {
    admin_listener second{{"127.0.0.1", first.port()}};
    ADD_FAILURE() << "bound a port that is in use";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "admin.listen");
    EXPECT_THAT(e.problem(), HasSubstr(std::to_string(first.port())));
  }
}

TEST(AdminListener, OffOpensNothing) {
  admin_config off;
  off.listen = "off";
  EXPECT_FALSE(open_admin_listener(off));
}

}  // namespace
}  // namespace courier::app
