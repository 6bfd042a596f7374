#include "core/flow/offset_map.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>

#include "core/crypto/base64.hpp"
#include "core/model/decimal.hpp"

namespace courier {
namespace {

void put_varint(std::string& out, std::uint64_t v) {
  constexpr std::uint64_t low_bits = 0x7f;
  constexpr std::uint64_t more = 0x80;
  while (v > low_bits) {
    out.push_back(static_cast<char>((v & low_bits) | more));
    v >>= 7U;
  }
  out.push_back(static_cast<char>(v));
}

// A varint of at most 9 bytes (63 bits): more, or one that runs past the end, is malformed.
std::optional<std::uint64_t> get_varint(std::string_view bytes, std::size_t& at) {
  constexpr std::size_t max_bytes = 9;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < max_bytes && at < bytes.size(); ++i) {
    const auto b = static_cast<std::uint8_t>(bytes[at++]);
    v |= static_cast<std::uint64_t>(b & 0x7fU) << (7 * i);
    if ((b & 0x80U) == 0) {
      return v;
    }
  }
  return std::nullopt;
}

// Runs above `committed` as varint pairs (gap from the end of the previous run, length), as
// many as fit in `capacity` bytes: the densest prefix, the runs nearest the commit point.
std::string encode_runs(std::int64_t committed, const done_offsets& runs, std::size_t capacity) {
  std::string raw;
  std::int64_t cursor = committed;
  for (const auto& [run_begin, end] : runs.runs()) {
    if (end <= cursor) {
      continue;
    }
    const auto begin = std::max(run_begin, cursor);
    std::string pair;
    put_varint(pair, static_cast<std::uint64_t>(begin - cursor));
    put_varint(pair, static_cast<std::uint64_t>(end - begin));
    if (raw.size() + pair.size() > capacity) {
      break;
    }
    raw += pair;
    cursor = end;
  }
  return raw;
}

// The runs of one base64 section (empty text: none); false when it is not one.
bool decode_runs(std::string_view text, std::int64_t committed, done_offsets& out) {
  if (text.empty()) {
    return true;
  }
  const auto raw = base64_decode(text);
  if (!raw || raw->empty()) {
    return false;
  }
  std::int64_t cursor = committed;
  std::size_t at = 0;
  while (at < raw->size()) {
    const auto gap = get_varint(*raw, at);
    if (!gap) {
      return false;
    }
    const auto length = get_varint(*raw, at);
    constexpr auto max_offset =
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    const auto from = static_cast<std::uint64_t>(cursor);
    if (!length || *length == 0 || *gap > max_offset - from || *length > max_offset - from - *gap) {
      return false;
    }
    const auto begin = static_cast<std::int64_t>(from + *gap);
    cursor = static_cast<std::int64_t>(from + *gap + *length);
    out.add(begin, cursor);
  }
  return true;
}

}  // namespace

void done_offsets::add(std::int64_t begin, std::int64_t end) {
  if (begin >= end) {
    return;
  }
  // Merge with a run that starts before `begin` and reaches it.
  auto it = runs_.upper_bound(begin);
  if (it != runs_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= begin) {
      if (prev->second >= end) {
        return;
      }
      begin = prev->first;
      it = prev;
    }
  }
  // Swallow every run that starts within [begin, end].
  while (it != runs_.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = runs_.erase(it);
  }
  runs_.emplace(begin, end);
}

bool done_offsets::contains(std::int64_t offset) const {
  auto it = runs_.upper_bound(offset);
  if (it == runs_.begin()) {
    return false;
  }
  return std::prev(it)->second > offset;
}

void done_offsets::remove(std::int64_t offset) {
  auto it = runs_.upper_bound(offset);
  if (it == runs_.begin()) {
    return;
  }
  --it;
  const auto [begin, end] = *it;
  if (end <= offset) {
    return;
  }
  runs_.erase(it);
  if (begin < offset) {
    runs_.emplace(begin, offset);
  }
  if (offset + 1 < end) {
    runs_.emplace(offset + 1, end);
  }
}

void done_offsets::erase_below(std::int64_t offset) {
  while (!runs_.empty() && runs_.begin()->first < offset) {
    auto first = runs_.begin();
    const auto end = first->second;
    runs_.erase(first);
    if (end > offset) {
      runs_.emplace(offset, end);
      return;
    }
  }
}

std::uint64_t done_offsets::offset_count() const {
  std::uint64_t n = 0;
  for (const auto& [begin, end] : runs_) {
    n += static_cast<std::uint64_t>(end - begin);
  }
  return n;
}

std::string encode_offset_map(std::int64_t committed, const done_offsets& done, std::size_t budget,
                              const done_offsets& dead_parked) {
  const std::string head = std::string(offset_map_prefix) + std::to_string(committed) + ':';
  if (budget <= head.size()) {
    return {};
  }
  const std::size_t room = budget - head.size();
  // The parked section first: it keeps order, the map only saves repeated deliveries.
  std::string parked;
  if (!dead_parked.empty() && room > 1) {
    parked = base64_encode(encode_runs(committed, dead_parked, (room - 1) / 4 * 3));
  }
  const std::size_t left = parked.empty() ? room : room - 1 - parked.size();
  const auto map = base64_encode(encode_runs(committed, done, left / 4 * 3));
  if (parked.empty()) {
    return map.empty() ? std::string{} : head + map;
  }
  return head + map + std::string(1, parked_separator) + parked;
}

std::string to_string(offset_map_read r) {
  switch (r) {
    case offset_map_read::none:
      return "none";
    case offset_map_read::read:
      return "read";
    case offset_map_read::foreign:
      return "foreign";
    case offset_map_read::malformed:
      return "malformed";
    case offset_map_read::other_base:
      return "other_base";
  }
  return "unknown";
}

offset_map_read decode_offset_map(std::string_view metadata, std::int64_t committed,
                                  done_offsets& out, done_offsets* dead_parked) {
  out = done_offsets{};
  if (dead_parked != nullptr) {
    *dead_parked = done_offsets{};
  }
  if (metadata.empty()) {
    return offset_map_read::none;
  }
  if (metadata.substr(0, unbound_offset_map_prefix.size()) == unbound_offset_map_prefix) {
    return offset_map_read::other_base;
  }
  if (metadata.substr(0, offset_map_prefix.size()) != offset_map_prefix) {
    return offset_map_read::foreign;
  }
  if (committed < 0) {
    return offset_map_read::malformed;
  }
  auto body = metadata.substr(offset_map_prefix.size());
  const auto colon = body.find(':');
  if (colon == std::string_view::npos) {
    return offset_map_read::malformed;
  }
  const auto base = parse_decimal<std::int64_t>(body.substr(0, colon));
  if (!base || *base < 0) {
    return offset_map_read::malformed;
  }
  if (*base != committed) {
    return offset_map_read::other_base;
  }
  body = body.substr(colon + 1);
  std::string_view parked_text;
  if (const auto dot = body.find(parked_separator); dot != std::string_view::npos) {
    parked_text = body.substr(dot + 1);
    body = body.substr(0, dot);
    if (parked_text.empty()) {
      return offset_map_read::malformed;
    }
  } else if (body.empty()) {
    return offset_map_read::malformed;
  }
  done_offsets map;
  done_offsets parked;
  if (!decode_runs(body, committed, map) || !decode_runs(parked_text, committed, parked)) {
    return offset_map_read::malformed;
  }
  out = std::move(map);
  if (dead_parked != nullptr) {
    *dead_parked = std::move(parked);
  }
  return offset_map_read::read;
}

}  // namespace courier
