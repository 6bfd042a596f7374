#include "core/model/idempotency_key.hpp"

namespace courier {

std::string idempotency_key_for(const record& r) {
  if (auto carried = find_header(r.headers, idempotency_key_header); carried && !carried->empty()) {
    return std::string{*carried};
  }
  return r.topic + ":" + std::to_string(r.partition) + ":" + std::to_string(r.offset);
}

}  // namespace courier
