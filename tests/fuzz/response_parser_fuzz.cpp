// libFuzzer target: arbitrary bytes as a webhook's answer, read the way core/http/connection.cpp
// reads one (the header first, the declared-length check, then the body, into a flat_buffer that
// outlives the message) with the parser and caps of core/http/response_reader, then judged as
// the delivery policy would judge it. Built with -fsanitize=fuzzer,address when COURIER_FUZZ is
// ON (clang); otherwise replay_main.cpp runs the corpus through it as an ordinary test.
//
// The first byte of the input sets how many bytes each read hands the parser (1 to 64), so the
// fuzzer explores answers that arrive in pieces as well as at once.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include "core/delivery/answer_judge.hpp"
#include "core/delivery/status_classifier.hpp"
#include "core/http/client.hpp"
#include "core/http/response_reader.hpp"

namespace {

namespace http = boost::beast::http;

// A SyncReadStream over the fuzzer's bytes: at most `chunk` bytes per read, then end of stream.
class byte_stream {
 public:
  byte_stream(std::string_view bytes, std::size_t chunk) : rest_(bytes), chunk_(chunk) {}

  template <class MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers, boost::beast::error_code& ec) {
    if (rest_.empty()) {
      ec = boost::asio::error::eof;
      return 0;
    }
    ec = {};
    const auto n = boost::asio::buffer_copy(
        buffers, boost::asio::buffer(rest_.data(), std::min(rest_.size(), chunk_)));
    rest_.remove_prefix(n);
    return n;
  }

  template <class MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers) {
    boost::beast::error_code ec;
    const auto n = read_some(buffers, ec);
    if (ec) {
      throw boost::beast::system_error{ec};
    }
    return n;
  }

 private:
  std::string_view rest_;
  std::size_t chunk_;
};

// The verdict for what was read; must not crash whatever the status.
void judge(int status, courier::transport_error error) {
  courier::answer_judge j{courier::answer_judge_settings{}};
  (void)j.judge(status, error, /*probe=*/false);
  (void)courier::error_class(status, error);
}

}  // namespace

#ifdef COURIER_FUZZER
// ASan keeps freed memory in a quarantine (256 MB by default) that counts toward the RSS limit
// of the run (-rss_limit_mb=256): a small one keeps the limit about the parser's memory.
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=16"; }
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::size_t chunk = 1 + data[0] % 64;
  const std::string_view bytes{reinterpret_cast<const char*>(data + 1), size - 1};

  const courier::http::client_settings defaults;
  const courier::http::response_limits limits{defaults.max_response_bytes,
                                              defaults.max_header_bytes};
  byte_stream stream{bytes, chunk};
  boost::beast::flat_buffer buffer;
  courier::http::response_parser parser;
  courier::http::limit(parser, limits);

  boost::beast::error_code ec;
  http::read_header(stream, buffer, parser, ec);
  if (ec) {
    const bool too_large = ec == http::error::header_limit || ec == http::error::body_limit;
    judge(parser.is_header_done() ? parser.status() : 0,
          too_large ? courier::transport_error::response_too_large
                    : courier::transport_error::protocol);
    return 0;
  }
  if (courier::http::declares_too_large(parser, limits)) {
    judge(parser.status(), courier::transport_error::response_too_large);
    return 0;
  }
  http::read(stream, buffer, parser, ec);
  if (!ec && parser.body().size() > limits.max_body_bytes) {
    std::abort();  // the body cap did not hold
  }
  if (ec) {
    const bool too_large = ec == http::error::header_limit || ec == http::error::body_limit;
    judge(parser.status(), too_large ? courier::transport_error::response_too_large
                                     : courier::transport_error::protocol);
    return 0;
  }
  (void)parser.keep_alive();
  if (const auto& retry_after = parser.retry_after()) {
    (void)retry_after->size();
  }
  judge(parser.status(), courier::transport_error::none);
  return 0;
}
