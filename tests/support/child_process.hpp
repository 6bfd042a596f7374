#pragma once

// A child process (courier, mock_webhook) with stdout and stderr appended to one log file.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/wait_until.hpp"

extern char** environ;

namespace courier::testing {

class child_process {
 public:
  // `env` entries ("NAME=value") are added to the caller's environment; variables named in
  // `drop` are removed from it first, so a test never inherits the caller's configuration.
  child_process(std::string binary, const std::vector<std::string>& args,
                const std::vector<std::string>& env, std::string log_path,
                const std::set<std::string>& drop = {})
      : binary_(std::move(binary)), log_path_(std::move(log_path)) {
    std::vector<std::string> argv_store{binary_};
    argv_store.insert(argv_store.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_store) {
      argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    std::set<std::string> overridden = drop;
    for (const auto& e : env) {
      overridden.insert(e.substr(0, e.find('=')));
    }
    std::vector<std::string> env_store;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry{*e};
      if (overridden.count(entry.substr(0, entry.find('='))) == 0) {
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
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      throw std::runtime_error("cannot start " + binary_);
    }
  }

  ~child_process() {
    if (!exit_code_) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) const {
    if (!exit_code_) {
      ::kill(pid_, sig);
    }
  }

  // The exit status once the process ended within `timeout`; -1 for death by a signal.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    wait_until(
        [&] {
          int status = 0;
          if (!exit_code_ && waitpid(pid_, &status, WNOHANG) == pid_) {
            exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
          }
          return exit_code_.has_value();
        },
        timeout);
    return exit_code_;
  }

  bool running() { return !wait_exit(std::chrono::milliseconds{0}).has_value(); }

  // SIGKILL and reap; the process is gone afterwards.
  void kill_now() {
    signal(SIGKILL);
    wait_exit(std::chrono::seconds{10});
  }

  std::string log() const {
    std::ifstream in{log_path_};
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  const std::string& log_path() const { return log_path_; }

 private:
  std::string binary_;
  std::string log_path_;
  pid_t pid_ = 0;
  std::optional<int> exit_code_;
};

}  // namespace courier::testing
