#include "core/files/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "core/files/posix_fd.hpp"

namespace courier {
namespace {

bool is_secret_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

secret_file_content read_bounded_file(const std::string& path) {
  secret_file_content out;
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
  const files::posix_fd fd{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (fd.get() < 0) {
    out.problem = std::strerror(errno);
    return out;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    out.problem = std::strerror(errno);
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.problem = "is not a regular file (a FIFO, device, socket or directory)";
    return out;
  }
  const std::string too_large =
      "is larger than " + std::to_string(largest_secret_file / 1024) + " KiB, which is no secret";
  if (st.st_size > static_cast<off_t>(largest_secret_file)) {
    out.problem = too_large;
    return out;
  }
  // Read to one byte past the bound whatever stat said: the file may grow meanwhile.
  std::string buffer(largest_secret_file + 1, '\0');
  std::size_t filled = 0;
  while (filled < buffer.size()) {
    const auto n = ::read(fd.get(), buffer.data() + filled, buffer.size() - filled);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      out.problem = std::strerror(errno);
      return out;
    }
    if (n == 0) {
      break;
    }
    filled += static_cast<std::size_t>(n);
  }
  if (filled > largest_secret_file) {
    out.problem = too_large;
    return out;
  }
  buffer.resize(filled);
  out.text = std::move(buffer);
  return out;
}

std::string_view trim_secret(std::string_view text) {
  while (!text.empty() && is_secret_space(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && is_secret_space(text.back())) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace courier
