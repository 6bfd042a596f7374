#pragma once

// Runs the `courier` executable as a child process, its stderr captured to a file.

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace courier::testing {

class courier_process {
 public:
  courier_process(const std::vector<std::string>& args, const std::vector<std::string>& env,
                  std::string log_path)
    : log_path_(std::move(log_path)) {
    std::vector<std::string> argv_store{COURIER_BINARY};
    argv_store.insert(argv_store.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_store) {
      argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    std::vector<std::string> env_store;
    // courier's own variables come only from the test, never from the caller's environment.
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry{*e};
      const auto name = entry.substr(0, entry.find('='));
      if (name != "HMAC_SECRET" && name != "HMAC_SECRET_FILE" && name != "KAFKA_BROKERS" &&
          name != "WEBHOOK_URL") {
        env_store.push_back(entry);
      }
    }
    env_store.insert(env_store.end(), env.begin(), env.end());
    std::vector<char*> envp;
    for (auto& e : env_store) {
      envp.push_back(e.data());
    }
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      throw std::runtime_error("cannot start " + std::string{COURIER_BINARY});
    }
  }

  ~courier_process() {
    if (!exit_code_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  courier_process(const courier_process&) = delete;
  courier_process& operator=(const courier_process&) = delete;

  void signal(int sig) const { kill(pid_, sig); }

  // The exit status once the process ended within `timeout`; -1 for death by a signal.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exit_code_ && std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    return exit_code_;
  }

  std::string log() const {
    std::ifstream in{log_path_};
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  std::string log_path_;
  pid_t pid_ = 0;
  std::optional<int> exit_code_;
};

}  // namespace courier::testing
