#include "core/auth/token_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

namespace courier::auth {
namespace {

constexpr std::int64_t largest_token_file = std::int64_t{64} * 1024;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

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
  if (identify(path).size > largest_token_file) {
    throw token_file_error{path + ": larger than 64 KiB, which is no bearer token"};
  }
  std::ifstream in{path, std::ios::binary};
  if (!in) {
    throw token_file_error{path + ": cannot be read: " + std::strerror(errno)};
  }
  std::string content{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  if (in.bad()) {
    throw token_file_error{path + ": cannot be read"};
  }
  const auto first = std::find_if_not(content.begin(), content.end(), is_space);
  const auto last = std::find_if_not(content.rbegin(), content.rend(), is_space).base();
  if (first >= last) {
    throw token_file_error{path + ": is empty"};
  }
  std::string token{first, last};
  if (!std::all_of(token.begin(), token.end(), [](char c) { return c > 0x20 && c < 0x7F; })) {
    throw token_file_error{path +
                           ": holds characters other than visible ASCII, which an Authorization "
                           "header cannot carry"};
  }
  return token;
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
