#include "actors/answer_inbox.hpp"

#include "core/http/deferred_calls.hpp"

namespace courier::actors {

void push_answer(const std::shared_ptr<answer_sink>& sink, attempt_answer r) {
  const std::size_t wake_at = sink->gather.count() > 0 ? answers_that_wake_the_pool : 1;
  const auto pushed = sink->inbox.push(std::move(r), wake_at);
  switch (pushed.next) {
    case answer_inbox::then::nothing:
      return;
    case answer_inbox::then::wake_now:
      sink->wake();
      return;
    case answer_inbox::then::wake_later: {
      const auto batch = pushed.batch;
      const bool deferred = http::defer_on_this_io_thread(sink->gather, [sink, batch] {
        if (sink->inbox.due(batch)) {
          sink->wake();
        }
      });
      if (!deferred && sink->inbox.due(batch)) {
        sink->wake();
      }
      return;
    }
  }
}

}  // namespace courier::actors
