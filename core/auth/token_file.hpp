#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace courier::auth {

// A bearer token file that cannot serve: its message names the path and what is wrong, never
// the file's content.
class token_file_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which file a path names now and which version of it, as stat() (following symlinks) sees it.
// Kubernetes rotates a projected token by pointing the `..data` symlink at a new directory, so
// the device and inode change; a file rewritten in place changes its size or mtime.
struct file_identity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t size = 0;

  friend bool operator==(const file_identity& a, const file_identity& b) {
    return a.device == b.device && a.inode == b.inode && a.mtime_ns == b.mtime_ns &&
           a.size == b.size;
  }
  friend bool operator!=(const file_identity& a, const file_identity& b) { return !(a == b); }
};

// Throws token_file_error when the path cannot be stat()ed.
file_identity identify(const std::string& path);

// The token the file holds, read as every secret file is (core/files/bounded_file.hpp): its
// content without surrounding whitespace (the final newline an editor or `echo` adds). Throws
// token_file_error for a file that is missing, unreadable, not a regular file, larger than
// 64 KiB, empty (or only whitespace), or holding characters other than visible ASCII (which an
// Authorization header cannot carry).
std::string read_bearer_token(const std::string& path);

// A bearer token file, re-read when it changed. Not thread-safe; one owner.
class token_file_watch {
 public:
  enum class outcome { unchanged, changed, failed };
  struct check {
    outcome what = outcome::unchanged;
    std::string token;    // with changed: the new token
    std::string problem;  // with failed: the token_file_error's message
  };

  // Reads nothing yet: the first poll() reads the file.
  explicit token_file_watch(std::string path);
  // Starts from a token already read (at start-up) from the file as it is now.
  token_file_watch(std::string path, std::string token);

  // Reads the file again when its identity differs from the one last read; a file that changes
  // while it is read is left for the next poll, so a token half written in place is not taken.
  check poll();
  // Reads the file now whatever its identity: changed with its token, unless that is the one
  // known (unchanged), or failed.
  check reread();

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& token() const { return token_; }

 private:
  check read_if(bool only_when_moved);

  std::string path_;
  std::optional<file_identity> read_;  // the identity of the version token_ came from
  std::string token_;
};

}  // namespace courier::auth
