#pragma once

// The one reader of secret files (hmac_secret_file, auth's bearer token file and client secret
// file, a header's {"file": ...}, a url's {"file": ...}, signing.secrets_file, admin.token_file,
// --admin-token-file and the *_FILE variables). A secret file is an operator's input crossing a
// trust boundary: it is bounded in size and kind before a byte of it is buffered.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

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

// The secret in a file, trimmed. Throws config_error naming `key` (and the file's path, never its
// content) for a file that is missing, unreadable, not a regular file, larger than 64 KiB or
// empty once trimmed.
std::string read_secret_file(const std::string& path, const std::string& key);

// The secrets in a file, one a line, each trimmed; empty lines skipped. Errors as
// read_secret_file.
std::vector<std::string> read_secret_lines(const std::string& path, const std::string& key);

}  // namespace courier
