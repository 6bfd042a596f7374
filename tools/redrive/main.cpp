#include "tools/redrive/cli.hpp"
#include "tools/redrive/redrive.hpp"
#include "tools/redrive/stop_signal.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
  using namespace courier::redrive;
  const std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  cli_result parsed = parse_cli(
      argc, argv, [](const char* name) { return std::getenv(name); }, now_ms);
  if (!parsed.opts) {
    (parsed.exit_code == exit_done ? std::cout : std::cerr) << parsed.message << '\n';
    return parsed.exit_code;
  }
  parsed.opts->progress = isatty(STDERR_FILENO) != 0;
  catch_stop_signals();
  parsed.opts->run.stop_requested = stop_signal_arrived;
  return run(*parsed.opts, std::cout, std::cerr);
}
