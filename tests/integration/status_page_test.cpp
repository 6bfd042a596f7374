// The admin listener's status page (GET /) in a real headless browser (Debian's chromium): the
// running pipeline's route is drawn with the breaker the test opened, the page's script runs
// without a console message, and a screenshot is kept in the build tree.

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/integration/serving_admin.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/http_get.hpp"
#include "tests/support/temp_dir.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in{p};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// chromium, headless, on `url` with `what` (--dump-dom, --screenshot=...): its exit status; what
// it printed goes to `out`, its log (the page's console among it) to `log`. The page's script
// runs for 3 s of virtual time first.
int chromium(const std::string& url, const std::string& what, const std::filesystem::path& out,
             const std::filesystem::path& log) {
  const std::string command =
      std::string{CHROMIUM_BINARY} +
      " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars"
      " --window-size=1200,500 --enable-logging=stderr --v=0"
      " --virtual-time-budget=3000 " +
      what + " '" + url + "' >" + out.string() + " 2>" + log.string();
  return std::system(command.c_str());  // NOLINT(cert-env33-c): the test's own fixed command
}

TEST(StatusPage, ABrowserDrawsTheRouteWithItsOpenBreakerAndNoConsoleMessage) {
  stand s{2};
  s.receiver->set_chaos(mock::chaos{1.0, 0, 0ms, 0, false});  // 503 to everything
  s.route().breaker.trip_after = 3;
  s.route().breaker.open_timeout = 60s;
  s.route().auto_redrive = auto_redrive_config{};  // watching the outage the breaker opened for
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  serving_admin admin_plane{sys, p};
  const auto port = admin_plane.port();
  s.seed(20);
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until([&] { return m.breaker_state.load() == 1; }, 30s)) << "breaker opens";
  ASSERT_TRUE(wait_until(
      [&] { return m.gauges[actors::route_gauge::auto_redrive_watching].load() == 1; }, 10s))
      << "the auto-redrive watches the outage";

  const auto page = http_get(port, "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");

  const temp_dir dir{"status-page", temp_dir::keep_if_failed};
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/";
  ASSERT_EQ(chromium(url, "--dump-dom", dir.path() / "dom.html", dir.path() / "console.log"), 0)
      << read_file(dir.path() / "console.log");
  const auto dom = read_file(dir.path() / "dom.html");
  EXPECT_NE(dom.find(R"(<tr data-route="shipments"><td>shipments</td><td class="open">open</td>)"),
            std::string::npos)
      << "the route's row, its breaker open\n"
      << dom;
  EXPECT_NE(dom.find("breaker"), std::string::npos);
  EXPECT_NE(dom.find("<td>watching (0 events, 0 moved, 0 failed)</td>"), std::string::npos)
      << "the auto-redrive's phase and counts\n"
      << dom;
  const auto console = read_file(dir.path() / "console.log");
  EXPECT_EQ(console.find(":CONSOLE"), std::string::npos)
      << "the page logged to its console (an error, an uncaught exception):\n"
      << console;

  std::filesystem::remove(STATUS_PAGE_SCREENSHOT);
  ASSERT_EQ(chromium(url, std::string{"--screenshot="} + STATUS_PAGE_SCREENSHOT,
                     dir.path() / "screenshot.out", dir.path() / "screenshot.log"),
            0)
      << read_file(dir.path() / "screenshot.log");
  EXPECT_GT(std::filesystem::file_size(STATUS_PAGE_SCREENSHOT), 1000U)
      << "the screenshot, kept as the test's artifact";
  admin_plane.stop();
  p.stop();
}

}  // namespace
}  // namespace courier::testing
