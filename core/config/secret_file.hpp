#pragma once

// The config's secret files (hmac_secret_file, auth's client secret file, a header's
// {"file": ...}, a url's {"file": ...}, signing.secrets_file, admin.token_file,
// --admin-token-file and the *_FILE variables), read by core/files' bounded reader (as the
// bearer token file auth re-reads is), trimmed, and refused with the key named.

#include <string>
#include <vector>

#include "core/files/bounded_file.hpp"

namespace courier {

// The secret in a file, trimmed. Throws config_error naming `key` (and the file's path, never its
// content) for a file that is missing, unreadable, not a regular file, larger than 64 KiB or
// empty once trimmed.
std::string read_secret_file(const std::string& path, const std::string& key);

// The secrets in a file, one a line, each trimmed; empty lines skipped. Errors as
// read_secret_file.
std::vector<std::string> read_secret_lines(const std::string& path, const std::string& key);

}  // namespace courier
