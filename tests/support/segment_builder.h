// Test support: segments built in memory with the real framing, and random records of
// every type (with the bytes they point to owned here).
#pragma once

#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "libwal/format.h"
#include "libwal/frame.h"
#include "libwal/record.h"
#include "libwal/segment_file.h"

namespace testing_support {

inline wal::Uuid TestNode(uint64_t n = 1) { return wal::Uuid{0x1111222233334444ULL, n}; }

class SegmentBuilder {
 public:
  explicit SegmentBuilder(uint64_t index, wal::Uuid node = TestNode(), uint16_t order = 1) : index_(index) {
    wal::HeaderRecord h;
    h.magic = wal::kSegmentMagic;
    h.version = wal::kFormatVersion;
    h.segment = index;
    h.node_id = node;
    h.node_order = order;
    Add(h);
  }
  template <typename R>
  wal::Pointer Add(const R& r) {
    wal::Pointer at{index_, static_cast<uint32_t>(bytes_.size())};
    wal::AppendRecord(r, at, &bytes_);
    pointers_.push_back(at);
    return at;
  }
  wal::Pointer Seal() {
    wal::Pointer at{index_, static_cast<uint32_t>(bytes_.size())};
    wal::AppendRawFrame(static_cast<uint8_t>(wal::RecordType::kSwitchSegment), {}, at, &bytes_);
    pointers_.push_back(at);
    return at;
  }
  std::string& bytes() { return bytes_; }
  const std::vector<wal::Pointer>& pointers() const { return pointers_; }
  uint64_t index() const { return index_; }

 private:
  uint64_t index_;
  std::string bytes_;
  std::vector<wal::Pointer> pointers_;
};

inline wal::SegmentFile InMemory(uint64_t index, std::string bytes, bool lz4 = false) {
  wal::SegmentFile f;
  f.index = index;
  f.path = "mem/" + wal::SegmentFileName(index, lz4);
  f.compressed = lz4;
  f.memory = std::make_shared<const std::string>(std::move(bytes));
  return f;
}

// Random records; every string a record points to lives as long as the generator.
class RecordGenerator {
 public:
  explicit RecordGenerator(uint64_t seed) : rng_(seed) {}

  uint64_t U64() { return rng_(); }
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }

  std::string_view Bytes(size_t max_len) {
    size_t n = Below(max_len + 1);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(Below(256));
    store_.push_back(std::move(s));
    return store_.back();
  }

  wal::TxId Tx() { return wal::TxId{static_cast<uint32_t>(Below(1000)), static_cast<uint32_t>(Below(64)), U64()}; }
  wal::Uuid Id() { return wal::Uuid{U64(), U64()}; }

  wal::TxRecord MakeTx() {
    static constexpr wal::TxState kStates[] = {wal::TxState::kPrepared, wal::TxState::kCommitted,
                                               wal::TxState::kRolledBack, wal::TxState::kUnknown};
    wal::TxRecord t;
    t.state = kStates[Below(4)];
    t.flags = static_cast<uint8_t>(Below(4));
    t.xid = Tx();
    t.topology_version = static_cast<uint32_t>(Below(100));
    t.timestamp = U64();
    t.participants.resize(Below(6));
    for (auto& p : t.participants) {
      p.primary = static_cast<uint16_t>(Below(65536));
      p.backups.resize(Below(4));
      for (auto& b : p.backups) b = static_cast<uint16_t>(Below(65536));
    }
    t.counters.resize(Below(4));
    for (auto& c : t.counters) {
      c = {static_cast<uint32_t>(U64()), static_cast<uint32_t>(Below(1024)), Below(wal::kMaxCounter - 8), 1 + Below(8)};
    }
    return t;
  }

  wal::DataRecord MakeData(size_t max_entries, size_t max_bytes) {
    wal::DataRecord d;
    d.timestamp = U64();
    d.entries.resize(Below(max_entries + 1));
    for (auto& e : d.entries) {
      e.cache_id = static_cast<uint32_t>(U64());
      e.partition = static_cast<uint32_t>(Below(1024));
      e.counter = 1 + Below(wal::kMaxCounter);
      e.op = static_cast<wal::EntryOp>(1 + Below(3));
      e.flags = static_cast<uint8_t>(Below(2));
      e.xid = Tx();
      e.write_version = Tx();
      e.key = Bytes(max_bytes);
      e.value = e.op == wal::EntryOp::kDelete ? std::string_view() : Bytes(max_bytes);
    }
    return d;
  }

  wal::RollbackRecord MakeRollback() {
    const uint64_t start = Below(wal::kMaxCounter);
    return wal::RollbackRecord{static_cast<uint32_t>(U64()), static_cast<uint32_t>(Below(1024)), start,
                               1 + Below(wal::kMaxCounter - start)};
  }
  wal::ClusterSnapshotRecord MakeSnapshot() { return {U64(), Name(40)}; }
  // 1 to max_len bytes, none of them '/' or NUL, never "." or "..".
  std::string_view Name(size_t max_len) {
    std::string s(1 + Below(max_len), 'a');
    for (auto& c : s) c = static_cast<char>('a' + Below(26));
    store_.push_back(std::move(s));
    return store_.back();
  }
  wal::CutStartRecord MakeCutStart() { return {Id(), static_cast<uint32_t>(Below(100)), U64()}; }
  wal::CutFinishRecord MakeCutFinish(size_t max_ids) {
    wal::CutFinishRecord f;
    f.cut_id = Id();
    f.timestamp = U64();
    f.before.resize(Below(max_ids + 1));
    for (auto& t : f.before) t = Tx();
    f.after.resize(Below(max_ids + 1));
    for (auto& t : f.after) t = Tx();
    return f;
  }

 private:
  std::mt19937_64 rng_;
  std::deque<std::string> store_;
};

}  // namespace testing_support
