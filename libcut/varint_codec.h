// Varint fields for walcut's own binary side files (node summaries and their resume
// state; walcut-format(5), NODE SUMMARIES): unsigned LEB128, zigzag for signed values,
// strings and UUIDs. A reader stops at the first thing short or out of range: it keeps
// that message (error()), and every read after it returns zero, an empty string or no
// items, so a loader runs on to its end over bounded loops and its caller asks ok(). It
// never allocates more than the bytes left allow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "libwal/coding.h"
#include "libwal/ids.h"

namespace cut {

class VarintWriter {
 public:
  void U(uint64_t v) {
    while (v >= 0x80) {
      s.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    s.push_back(static_cast<char>(v));
  }
  void Z(int64_t v) { U((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void Fixed64(uint64_t v) { wal::PutFixed64(&s, v); }
  void Str(std::string_view v) {
    U(v.size());
    s.append(v);
  }
  void Id(const wal::Uuid& u) {
    wal::PutFixed64(&s, u.hi);
    wal::PutFixed64(&s, u.lo);
  }
  void Ptr(const wal::Pointer& p) {
    U(p.segment);
    U(p.offset);
  }
  void Tx(const wal::TxId& x) {
    U(x.topology_version);
    U(x.node_order);
    U(x.order);
  }
  std::string s;
};

class VarintReader {
 public:
  VarintReader(const char* p, size_t n) : p_(reinterpret_cast<const uint8_t*>(p)), end_(p_ + n) {}
  size_t left() const { return static_cast<size_t>(end_ - p_); }
  bool ok() const { return !failed_; }
  const std::string& error() const { return error_; }
  // The input is wrong here: the first message is kept, and the reading ends.
  void Fail(std::string message) {
    if (!failed_) error_ = std::move(message);
    failed_ = true;
    p_ = end_;
  }
  uint64_t U() {
    if (p_ != end_ && *p_ < 0x80) return *p_++;  // most numbers here are one byte
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return Zero("ends inside a number");
      const uint8_t b = *p_++;
      if (shift == 63 && b > 1) return Zero("a number beyond 64 bits");
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return Zero("a number beyond 64 bits");
  }
  uint64_t U(uint64_t max, const char* what) {
    const uint64_t v = U();
    if (v > max) return Zero(fmt::format("{} {} is beyond {}", what, v, max));
    return v;
  }
  int64_t Z() {
    const uint64_t u = U();
    return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  }
  uint64_t Fixed64() {
    if (left() < 8) return Zero("ends inside a fixed field");
    const uint64_t v = wal::DecodeFixed64(reinterpret_cast<const char*>(p_));
    p_ += 8;
    return v;
  }
  // A count of items of at least `each` bytes: never more than the bytes left allow.
  size_t Count(const char* what, size_t each = 1) {
    const uint64_t n = U();
    if (n > left() / each) return Zero(fmt::format("{}: {} of them cannot fit in the {} bytes left", what, n, left()));
    return static_cast<size_t>(n);
  }
  std::string Str(size_t max, const char* what) {
    const uint64_t n = U();
    if (n > max || n > left()) {
      Fail(fmt::format("{}: a string of {} bytes", what, n));
      return {};
    }
    std::string v(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return v;
  }
  wal::Uuid Id() {
    if (left() < 16) {
      Fail("ends inside an id");
      return {};
    }
    wal::Uuid u;
    u.hi = wal::DecodeFixed64(reinterpret_cast<const char*>(p_));
    u.lo = wal::DecodeFixed64(reinterpret_cast<const char*>(p_) + 8);
    p_ += 16;
    return u;
  }
  wal::Pointer Ptr() {
    wal::Pointer p;
    p.segment = U();
    p.offset = static_cast<uint32_t>(U(UINT32_MAX, "an offset"));
    return p;
  }
  wal::TxId Tx() {
    wal::TxId x;
    x.topology_version = static_cast<uint32_t>(U(UINT32_MAX, "a topology version"));
    x.node_order = static_cast<uint32_t>(U(UINT32_MAX, "a node order"));
    x.order = U();
    return x;
  }

 private:
  uint64_t Zero(std::string message) {
    Fail(std::move(message));
    return 0;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  bool failed_ = false;
  std::string error_;
};

}  // namespace cut
