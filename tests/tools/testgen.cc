// walcut-testgen: writes WALs for tests and benchmarks with the real writer.
//   walcut-testgen tiny OUT            the small committed WALs of testdata/
//   walcut-testgen bench OUT BYTES     one node of realistic records, BYTES in total
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <fmt/format.h>

#include "libwal/record.h"
#include "libwal/wal_writer.h"

namespace {

using namespace wal;

[[noreturn]] void Die(const Status& s) {
  fmt::print(stderr, "walcut-testgen: {}\n", s.ToString());
  std::exit(1);
}

template <typename T>
T Check(Result<T> r) {
  if (!r.ok()) Die(r.status());
  return std::move(r).value();
}

// A deterministic node WAL with every record type, a roll and a cut.
void WriteTinyNode(const std::string& dir, uint64_t node, bool compress) {
  WriterOptions o;
  o.segment_size = 4096;
  o.compress_sealed = compress;
  auto w = Check(WalWriter::Create(dir + "/wal", Uuid{0x00000000c0ffee00ULL, node}, static_cast<uint16_t>(node), o));
  uint64_t ts = 1'000'000'000;
  Check(w->Append(ClusterSnapshotRecord{ts, "base"}));
  std::vector<std::string> keep;
  keep.reserve(1000);
  for (uint64_t i = 1; i <= 24; ++i) {
    ts += 1'250'000;
    TxId xid{1, 1, i};
    TxRecord tx;
    tx.xid = xid;
    tx.topology_version = 1;
    tx.timestamp = ts;
    tx.state = TxState::kPrepared;
    tx.participants = {{1, {2}}, {2, {1}}};
    Check(w->Append(tx));
    if (i == 7) {
      tx.state = TxState::kRolledBack;
      Check(w->Append(tx));
      Check(w->Append(RollbackRecord{1, 3, 6, 1}));
      continue;
    }
    DataRecord d;
    d.timestamp = ts;
    for (uint64_t k = 0; k < 2; ++k) {
      keep.push_back(fmt::format("acct-{}", (i * 7 + k * 3) % 20));
      std::string_view key = keep.back();
      keep.push_back(fmt::format("{}", 1000 + i * 10 - k * 20));
      DataEntry e;
      e.cache_id = 1;
      e.partition = static_cast<uint32_t>((i + k) % 4);
      e.counter = i;
      e.op = i < 3 ? EntryOp::kCreate : EntryOp::kUpdate;
      e.flags = k == 0 ? kEntryFlagPrimary : 0;
      e.xid = xid;
      e.write_version = TxId{1, static_cast<uint32_t>(node), i};
      e.key = key;
      e.value = keep.back();
      d.entries.push_back(e);
    }
    if (i == 20) {
      d.entries[1].op = EntryOp::kDelete;
      d.entries[1].value = {};
    }
    Check(w->Append(d));
    tx.state = TxState::kCommitted;
    tx.flags = i % 5 == 0 ? kTxFlagOnePhase : 0;
    tx.timestamp = ts + 1000;
    Check(w->Append(tx));
    if (i == 12) {
      Check(w->Append(CutStartRecord{Uuid{0x5eed5eed00000001ULL, 0xabcdef0123456789ULL}, 1, ts + 2000}));
    }
    if (i == 16) {
      CutFinishRecord f;
      f.cut_id = Uuid{0x5eed5eed00000001ULL, 0xabcdef0123456789ULL};
      f.timestamp = ts + 3000;
      f.before = {TxId{1, 1, 13}, TxId{1, 1, 14}};
      f.after = {TxId{1, 1, 12}, TxId{1, 1, 15}, TxId{1, 1, 16}};
      Check(w->Append(f));
    }
  }
  Status s = w->Close();
  if (!s.ok()) Die(s);
}

void WriteBench(const std::string& dir, uint64_t bytes) {
  WriterOptions o;
  auto w = Check(WalWriter::Create(dir + "/wal", Uuid{0xbe7c4000ULL, 1}, 1, o));
  std::mt19937_64 rng(1);
  auto below = [&](uint64_t n) { return rng() % n; };
  std::string alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::vector<std::string> keys(4), values(4);
  uint64_t order = 0;
  uint64_t ts = 1'000'000'000;
  std::vector<uint64_t> counters(256, 0);
  while (w->bytes_written() < bytes) {
    ++order;
    ts += 7'000;
    TxId xid{1, static_cast<uint32_t>(1 + below(8)), order};
    TxRecord tx;
    tx.xid = xid;
    tx.topology_version = 1;
    tx.timestamp = ts;
    tx.participants = {{1, {2}}, {static_cast<uint16_t>(2 + below(6)), {1}}};
    tx.state = TxState::kPrepared;
    Check(w->Append(tx));
    DataRecord d;
    d.timestamp = ts;
    size_t n = 1 + below(4);
    for (size_t k = 0; k < n; ++k) {
      keys[k].resize(10 + below(91));
      values[k].resize(10 + below(91));
      for (auto& c : keys[k]) c = alphabet[below(alphabet.size())];
      for (auto& c : values[k]) c = alphabet[below(alphabet.size())];
      DataEntry e;
      e.cache_id = 1;
      e.partition = static_cast<uint32_t>(below(256));
      e.counter = ++counters[e.partition];
      e.op = EntryOp::kUpdate;
      e.flags = kEntryFlagPrimary;
      e.xid = xid;
      e.write_version = TxId{1, 1, order};
      e.key = keys[k];
      e.value = values[k];
      d.entries.push_back(e);
    }
    Check(w->Append(d));
    tx.state = TxState::kCommitted;
    Check(w->Append(tx));
  }
  Status s = w->Close();
  if (!s.ok()) Die(s);
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "tiny" && argc == 3) {
    std::string out = argv[2];
    WriteTinyNode(out + "/node-0", 1, false);
    WriteTinyNode(out + "/node-1", 2, true);
    return 0;
  }
  if (mode == "bench" && argc == 4) {
    WriteBench(argv[2], std::strtoull(argv[3], nullptr, 10));
    return 0;
  }
  fmt::print(stderr, "usage: walcut-testgen tiny OUT | bench OUT BYTES\n");
  return 2;
}
