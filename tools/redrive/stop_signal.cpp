#include "tools/redrive/stop_signal.hpp"

#include <csignal>

namespace courier::redrive {
namespace {

volatile std::sig_atomic_t arrived = 0;

extern "C" void on_stop_signal(int /*signal*/) { arrived = 1; }

}  // namespace

void catch_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // the second signal takes the default action
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool stop_signal_arrived() { return arrived != 0; }

}  // namespace courier::redrive
