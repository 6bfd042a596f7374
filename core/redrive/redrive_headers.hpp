#pragma once

#include "core/model/record.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace courier::redrive {

// DESIGN.md section 6: what redrive adds to a record it returns to the flow.
inline constexpr std::string_view redrive_count_header = "courier.redrive.count";
inline constexpr std::string_view redrive_at_header = "courier.redrive.at";      // epoch ms
inline constexpr std::string_view redrive_from_header = "courier.redrive.from";  // dlq:p:o

inline constexpr int default_max_redrives = 3;

// courier's provenance (courier.origin.*, courier.attempts, courier.retry.*, courier.error.*, the
// failure times, courier.route: core/retry/provenance.hpp) and earlier courier.redrive.*. The
// record goes to a source topic, where courier trusts no provenance: the history stays in the
// DLQ record and redrive's ledger. The idempotency key (the receiver de-duplicates on it), the
// correlation id and the record's own headers stay.
bool is_dropped_on_redrive(std::string_view name);

// courier.redrive.count as written: decimal digits. A count too large for an int (a hand-written
// 99999999999) is INT_MAX, so the loop guard refuses it as any count past the limit; anything
// that is not a non-negative whole number is nothing.
std::optional<int> parse_redrive_count(std::string_view text);

// The count a redrive writes after `previous`: one more, saturated at INT_MAX (a forced redrive of
// a record at INT_MAX writes INT_MAX again, never a negative count).
int next_redrive_count(int previous);

// The DLQ record's headers in order minus the dropped ones, then the three redrive headers, the
// count being next_redrive_count(previous_count).
header_list redrive_headers(const header_list& dlq_headers, int previous_count, std::int64_t now_ms,
                            std::string_view from_coordinates);

// The loop guard: a record redriven `max_redrives` times already is refused unless forced.
enum class guard_verdict { allowed, refused, forced };
guard_verdict loop_guard(int redrive_count, int max_redrives, bool force);

}  // namespace courier::redrive
