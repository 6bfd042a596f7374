#include "core/auth/token_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/files/bounded_file.hpp"

namespace courier::auth {

file_identity identify(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw token_file_error{path + ": " + std::strerror(errno)};
  }
  if (!S_ISREG(st.st_mode)) {
    throw token_file_error{path + ": not a regular file"};
  }
  file_identity id;
  id.device = static_cast<std::uint64_t>(st.st_dev);
  id.inode = static_cast<std::uint64_t>(st.st_ino);
  id.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  id.size = static_cast<std::int64_t>(st.st_size);
  return id;
}

std::string read_bearer_token(const std::string& path) {
  const auto read = read_bounded_file(path);
  if (!read.problem.empty()) {
    throw token_file_error{path + ": " + read.problem};
  }
  const std::string_view token = trim_secret(read.text);
  if (token.empty()) {
    throw token_file_error{path + ": is empty"};
  }
  if (!std::all_of(token.begin(), token.end(), [](char c) { return c > 0x20 && c < 0x7F; })) {
    throw token_file_error{path +
                           ": holds characters other than visible ASCII, which an Authorization "
                           "header cannot carry"};
  }
  return std::string{token};
}

token_file_watch::token_file_watch(std::string path) : path_(std::move(path)) {}

token_file_watch::token_file_watch(std::string path, std::string token)
    : path_(std::move(path)), token_(std::move(token)) {
  try {
    read_ = identify(path_);
  } catch (const token_file_error&) {
    read_.reset();  // gone again already: the first poll() reads whatever is there then
  }
}

token_file_watch::check token_file_watch::poll() { return read_if(/*only_when_moved=*/true); }

token_file_watch::check token_file_watch::reread() { return read_if(/*only_when_moved=*/false); }

token_file_watch::check token_file_watch::read_if(bool only_when_moved) {
  check c;
  try {
    const file_identity before = identify(path_);
    if (only_when_moved && read_ && *read_ == before) {
      return c;
    }
    std::string token = read_bearer_token(path_);
    if (identify(path_) != before) {
      return c;  // written meanwhile: the next poll reads the version that stays
    }
    read_ = before;
    if (token == token_) {
      return c;
    }
    token_ = std::move(token);
    c.what = outcome::changed;
    c.token = token_;
  } catch (const token_file_error& e) {
    c.what = outcome::failed;
    c.problem = e.what();
  }
  return c;
}

}  // namespace courier::auth
