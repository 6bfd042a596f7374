#pragma once

// Reading a file an operator names, bounded in size and kind before a byte of it is buffered:
// secret files cross a trust boundary (a FIFO, a device or a huge file must not block or exhaust
// the process). The config's secret files (core/config/secret_file) and the bearer token file
// a route re-reads (core/auth/token_file) are read by this one function.

#include <cstddef>
#include <string>
#include <string_view>

namespace courier {

// No secret is larger; a larger file is a mistake (or /dev/zero), refused before it is read.
inline constexpr std::size_t largest_secret_file = std::size_t{64} * 1024;

// What reading a secret file gave: its whole content, or why it cannot serve.
struct secret_file_content {
  std::string text;
  // Empty when read; otherwise what is wrong, to follow "<path>: " ("is not a regular file
  // (...)", "is larger than 64 KiB ...", the system's reason), never any of the content.
  std::string problem;
};

// The content of the regular file at `path`, at most largest_secret_file bytes. A FIFO, device,
// socket or directory is refused without blocking (opened with O_NONBLOCK and fstat()ed before a
// byte is read); a file that holds more (read up to one byte more than allowed) is refused.
secret_file_content read_bounded_file(const std::string& path);

// The text without the spaces, tabs, CRs and LFs around it (the newline editors and `echo` add,
// a stray space): "token \n" is "token".
std::string_view trim_secret(std::string_view text);

}  // namespace courier
