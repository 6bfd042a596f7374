#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "core/http/io_runner.hpp"

namespace courier::http {

// Several io_contexts, each run by its own single thread: what a `client` spreads its
// connections over when one io thread is not enough. Each context keeps the one-thread rule
// the connections rely on (they share no strand); the parallelism is between contexts.
class io_threads {
 public:
  explicit io_threads(std::size_t count);

  // One per thread, in a fixed order; valid until this object is destroyed.
  const std::vector<boost::asio::io_context*>& contexts() const { return contexts_; }

  // Stops every context and joins its thread (io_runner::stop). Idempotent; must not be
  // called from an io thread.
  void stop();

 private:
  std::vector<std::unique_ptr<io_runner>> runners_;
  std::vector<boost::asio::io_context*> contexts_;
};

}  // namespace courier::http
