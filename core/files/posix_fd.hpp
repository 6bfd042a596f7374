#pragma once

// A POSIX file descriptor (a file, a socket), closed when it goes: every way out of a function
// that opened one closes it.

#include <unistd.h>

namespace courier::files {

class posix_fd {
 public:
  explicit posix_fd(int fd) : fd_(fd) {}
  posix_fd(const posix_fd&) = delete;
  posix_fd& operator=(const posix_fd&) = delete;
  posix_fd(posix_fd&&) = delete;
  posix_fd& operator=(posix_fd&&) = delete;
  ~posix_fd() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace courier::files
