// Node summaries (summary_file.h): the binary encoding carries exactly what the JSON one
// does, refers to the previous cut's transactions only where they are the same, and
// refuses frames that are sound by their checksum but not by their content.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <new>

#include <fmt/format.h>
#include <xxhash.h>
#include <nlohmann/json.hpp>

#include "libcut/cut_feed.h"
#include "libcut/cut_index.h"
#include "libcut/hash.h"
#include "libcut/summary_file.h"
#include "sim/simulate.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::RunCli;
using testing_support::TempDir;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A small cluster of `nodes` nodes with one backup and small segments (many files).
sim::SimConfig Small(const std::string& out, uint32_t nodes, uint32_t txs, uint32_t cuts, uint64_t seed,
                     uint64_t segment_size) {
  sim::SimConfig cfg;
  cfg.out_dir = out;
  cfg.nodes = nodes;
  cfg.backups = 1;
  cfg.partitions = 16;
  cfg.txs = txs;
  cfg.cuts = cuts;
  cfg.seed = seed;
  cfg.rollback_rate = 0.05;
  cfg.segment_size = segment_size;
  return cfg;
}

std::string Json(const cut::NodeIndex& n) { return cut::EncodeSummary(n, cut::SummaryFormat::kJson); }

cut::TxSide Tx(uint64_t order, uint32_t offset, cut::Side side) {
  cut::TxSide t;
  t.xid = {1, 2, order};
  t.set_commit({3, offset});
  t.side = side;
  return t;
}

cut::CutOnNode Cut(uint64_t id) {
  cut::CutOnNode c;
  c.id = {id, id};
  c.has_start = c.has_finish = true;
  c.start = {3, 100};
  c.finish = {3, 200};
  return c;
}

TEST(Summary, BinaryCarriesWhatJsonCarriesOnASimulatedCluster) {
  TempDir dir;
  const sim::SimConfig cfg = Small(dir.path() + "/c", 4, 4000, 6, 7, 128 << 10);
  ASSERT_TRUE(sim::Simulate(cfg).ok());
  for (int k = 0; k < 4; ++k) {
    const std::string node = fmt::format("node-{}", k);
    auto index = cut::BuildNodeIndex(node, wal::WalLocation(fmt::format("{}/{}/wal", cfg.out_dir, node)));
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    ASSERT_GE(index->cuts.size(), 6u);
    const std::string binary = cut::EncodeSummary(*index);
    const std::string json = Json(*index);
    auto back = cut::DecodeSummary(binary, "b");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(Json(*back), json) << node;
    // Deltas, references and LZ4: a small part of the JSON.
    EXPECT_LT(binary.size() * 6, json.size()) << binary.size() << " vs " << json.size();
  }
}

// An Apache Ignite node's parts: the increments it keeps by metadata and each cut's applied
// counters go through both encodings unchanged (a cut whose counters are not known stays
// so), and a JSON summary whose counters are out of order or overlap is refused.
TEST(Summary, IgniteKeptIncrementsAndAppliedCountersGoThroughBothEncodings) {
  cut::NodeIndex n;
  n.node = "server_0";
  n.cuts = {Cut(1), Cut(2)};
  n.cuts[0].txs = {Tx(5, 150, cut::Side::kBefore)};
  cut::AppliedCounters& a = n.cuts[0].applied;
  a.known = true;
  a.copies = {{1, 2, {{1, 5}, {8, 9}}}, {1, 7, {{3, 3}}}, {4, 0, {{1, 1}}}};
  a.window = {{1, 2, 9, {1, 2, 5}}, {4, 0, 1, {1, 3, 7}}, {1, 2, 8, {1, 2, 5}}};
  cut::NodeKept kept{"server_0", {}, {"x.smf: not a snapshot's metadata"}, "cid-0", {"cid-0", "cid-1"}, true};
  kept.kept.push_back({{1, 1}, "snap", 1, wal::Pointer{3, 200}, "snap/increments/1/server_0.smf"});
  kept.kept.push_back({{2, 2}, "snap", 2, std::nullopt, "snap/increments/2/server_0.smf"});
  const std::string json = cut::EncodeSummary(n, cut::SummaryFormat::kJson, &kept);
  ASSERT_NE(json.find(R"("applied":{"copies":[[1,2,[[1,5],[8,9]]],[1,7,[[3,3]]],[4,0,[[1,1]]]])"), std::string::npos)
      << json;
  ASSERT_NE(json.find(R"("applied":null)"), std::string::npos);
  ASSERT_NE(json.find(R"("ignite_increments":{"metadata":true,"consistent_id":"cid-0")"), std::string::npos);
  for (const std::string& bytes : {cut::EncodeSummary(n, cut::SummaryFormat::kBinary, &kept), json}) {
    std::optional<cut::NodeKept> back_kept;
    auto back = cut::DecodeSummary(bytes, "s", &back_kept);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_TRUE(back_kept.has_value());
    EXPECT_EQ(cut::EncodeSummary(*back, cut::SummaryFormat::kJson, &*back_kept), json);
  }
  // Not an Ignite node: no kept increments either way.
  for (const std::string& bytes : {cut::EncodeSummary(n), Json(n)}) {
    std::optional<cut::NodeKept> back_kept = kept;
    ASSERT_TRUE(cut::DecodeSummary(bytes, "s", &back_kept).ok());
    EXPECT_FALSE(back_kept.has_value());
  }
  auto refused = [&](const std::string& from, const std::string& to, const std::string& why) {
    std::string bad = json;
    const size_t at = bad.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    bad.replace(at, from.size(), to);
    auto r = cut::DecodeSummary(bad, "s");
    ASSERT_FALSE(r.ok()) << to;
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().message();
  };
  refused("[[1,5],[8,9]]", "[[1,5],[5,9]]", "ranges out of order, overlapping or touching");
  refused("[[1,5],[8,9]]", "[[1,5],[6,9]]", "ranges out of order, overlapping or touching");
  refused("[[1,5],[8,9]]", "[[5,1]]", "ranges out of order, overlapping or touching");
  refused("[1,7,[[3,3]]]", "[1,1,[[3,3]]]", "copies out of (cache, partition) order");
  refused("[4,0,1,\"1.3.7\"]", "[4,0,1]", "expected [cache, partition, counter, tx]");
}

TEST(Summary, OnlyTheSameTransactionsAreTakenFromThePreviousCut) {
  cut::NodeIndex n;
  n.node = "n";
  cut::CutOnNode a = Cut(1), b = Cut(2);
  // Irregular ids and offsets, as a real window's are.
  std::vector<uint64_t> order(2100), offset(2100);
  uint64_t x = 12345, at = 1000;
  for (size_t i = 0; i < order.size(); ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    order[i] = x >> 40;
    at += 1 + (x >> 20) % 5000;
    offset[i] = at;
  }
  auto tx = [&](size_t i, cut::Side side) { return Tx(order[i], static_cast<uint32_t>(offset[i]), side); };
  for (size_t i = 0; i < 2000; ++i) a.txs.push_back(tx(i, cut::Side::kBefore));
  // b's window begins with a's last 1000 transactions, with other sides and participants...
  for (size_t i = 1000; i < 2000; ++i) b.txs.push_back(tx(i, cut::Side::kAfter));
  cut::AddParticipants(b, 5, std::vector<uint16_t>{1, 4, 9});
  // ...then one at a commit a had, under another id, then new ones.
  b.txs.push_back(Tx(77777, static_cast<uint32_t>(offset[1999]), cut::Side::kBefore));
  for (size_t i = 2000; i < 2100; ++i) b.txs.push_back(tx(i, cut::Side::kAfter));
  n.cuts = {a, b};
  const std::string both = cut::EncodeSummary(n);
  auto back = cut::DecodeSummary(both, "b");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(Json(*back), Json(n));
  // The shared thousand cost next to nothing: b alone, with nothing to refer to, is larger
  // than b after a, by more than a byte per shared transaction.
  cut::NodeIndex alone = n;
  alone.cuts = {b};
  const std::string only_b = cut::EncodeSummary(alone);
  cut::NodeIndex only_a = n;
  only_a.cuts = {a};
  EXPECT_GT(only_b.size() - (both.size() - cut::EncodeSummary(only_a).size()), 1000u);
}

// The frames of a file, rebuilt by hand as walcut-format(5) gives them.
void PutLe(std::string* s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}
void PutU(std::string* s, uint64_t v) {
  while (v >= 0x80) {
    s->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  s->push_back(static_cast<char>(v));
}
std::string Frame(uint8_t kind, const std::string& raw) {
  std::string h;
  h.push_back(static_cast<char>(kind));
  h.push_back(0);  // stored as is
  PutLe(&h, 0, 2);
  PutLe(&h, raw.size(), 4);
  PutLe(&h, raw.size(), 4);
  PutLe(&h, XXH3_64bits_withSeed(raw.data(), raw.size(), XXH3_64bits(h.data(), 12)), 8);
  return h + raw;
}
std::string NodeFrame(uint64_t cuts) {
  std::string r;
  PutU(&r, 1);
  r += "n";
  r += std::string(16, '\0');                // node id
  for (int i = 0; i < 10; ++i) PutU(&r, 0);  // order, begin, end, records, last_ts, last start, torn tail, errors
  PutU(&r, 0);                               // snapshots
  PutU(&r, cuts);
  return Frame(1, r);
}
// A cut with its Start and Finish at 3:100 and 3:200 and `txs` as given.
std::string CutFrame(uint64_t id, const std::string& txs) {
  std::string r;
  PutLe(&r, id, 8);
  PutLe(&r, id, 8);
  PutU(&r, 3);
  for (uint64_t v : std::initializer_list<uint64_t>{3, 100, 3, 200, 1, 0, 0, 0, 0, 0})
    PutU(&r, v);  // start, finish, tv, ts, ts, base, sets
  r += txs;
  PutU(&r, 0);  // problems
  return Frame(2, r);
}
std::string File(const std::string& frames) {
  std::string f = "WCSUMMRY";
  PutLe(&f, 2, 4);
  PutLe(&f, 0, 4);
  return f + frames;
}

TEST(Summary, HandBuiltFramesReadAsTheFormatSays) {
  std::string txs;
  // One transaction 1.0.2 at 3:100, Before: count 1, none shared, the id's deltas
  // zigzagged (1, 0, 2), the segment's delta zigzagged (3), the offset (100), side 0.
  for (uint64_t v : std::initializer_list<uint64_t>{1, 0, 2, 0, 4, 6, 100, 0}) PutU(&txs, v);
  auto n = cut::DecodeSummary(File(NodeFrame(1) + CutFrame(9, txs)), "f");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  ASSERT_EQ(n->cuts.size(), 1u);
  ASSERT_EQ(n->cuts[0].txs.size(), 1u);
  EXPECT_EQ(n->cuts[0].txs[0].xid.ToString(), "1.0.2");
  EXPECT_EQ(n->cuts[0].txs[0].commit().ToString(), "3:100");
  EXPECT_EQ(n->cuts[0].txs[0].side, cut::Side::kBefore);
}

TEST(Summary, SoundFramesWithImpossibleContentAreRefused) {
  auto refused = [](const std::string& file, const std::string& why) {
    auto n = cut::DecodeSummary(file, "f");
    ASSERT_FALSE(n.ok()) << why;
    EXPECT_NE(n.status().message().find(why), std::string::npos) << n.status().message();
  };
  std::string shared;  // one transaction, taken from a previous cut that has none
  for (uint64_t v : std::initializer_list<uint64_t>{1, 1, 0, 0}) PutU(&shared, v);
  refused(File(NodeFrame(1) + CutFrame(9, shared)), "1 transactions from position 0 of the previous cut's 0");
  std::string many;  // a count beyond the bytes of the frame
  PutU(&many, 1u << 30);
  refused(File(NodeFrame(1) + CutFrame(9, many)), "cannot fit");
  std::string none;
  PutU(&none, 0);
  PutU(&none, 0);
  refused(File(NodeFrame(2) + CutFrame(9, none) + CutFrame(9, none)), "cut 2 of 2: cut ");
  refused(File(NodeFrame(2) + CutFrame(9, none)), "cut short before cut 2 of 2");
  refused(File(CutFrame(9, none)), "a frame of kind 2 where the node's frame (kind 1) belongs");
  std::string lying = NodeFrame(0);
  lying[8] = 100;  // raw size 100 for a stored frame of another size
  refused(File(lying), "are impossible");
}

TEST(Summary, StreamHandsOverTheCutsBeforeDamageAndThenSaysWhere) {
  TempDir dir;
  std::string none;
  PutU(&none, 0);
  PutU(&none, 0);
  std::string bytes = File(NodeFrame(3) + CutFrame(1, none) + CutFrame(2, none) + CutFrame(3, none));
  bytes[bytes.size() - 2] ^= 1;
  const std::string path = dir.path() + "/s";
  std::ofstream(path, std::ios::binary) << bytes;
  auto s = cut::SummaryStream::Open(path);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  cut::CutOnNode c;
  EXPECT_TRUE((*s)->Next(&c));
  EXPECT_TRUE((*s)->Next(&c));
  EXPECT_FALSE((*s)->Next(&c));
  EXPECT_NE((*s)->status().message().find("cut 3 of 3: checksum mismatch"), std::string::npos)
      << (*s)->status().message();
}

// A live node's WAL grows a record at a time: its prefixes are whole files and then a
// last one cut anywhere (a torn tail). Reading each prefix by resuming from the previous
// prefix's checkpoint must give exactly the index one reading of that prefix gives.
// A feed of `cuts` numbered cuts that counts how far it has been read.
class CountingFeed : public cut::CutFeed {
 public:
  CountingFeed(uint8_t node, size_t cuts, std::atomic<size_t>* read) : node_(node), cuts_(cuts), read_(read) {}
  bool Next(cut::CutOnNode* out) override {
    if (next_ == cuts_) return false;
    *out = cut::CutOnNode();
    out->id.hi = node_;
    out->id.lo = next_++;
    read_->fetch_add(1);
    return true;
  }
  cut::NodeIndex Progress() override { return {}; }
  std::vector<cut::BaseSnapshot> Snapshots() override { return {}; }
  uint64_t LastStartTs() override { return next_; }

 private:
  uint8_t node_;
  size_t cuts_;
  size_t next_ = 0;
  std::atomic<size_t>* read_;
};

// Feeds sharing two threads: each hands over its own cuts in order, whatever order the
// consumer takes them in, stays a few cuts ahead (not the whole file), and can be dropped
// before its end.
TEST(Summary, FeedsSharingThreadsHandOverTheirOwnCutsInOrderAndStayAFewAhead) {
  constexpr size_t kFeeds = 9, kCuts = 40;
  std::vector<std::atomic<size_t>> read(kFeeds);
  std::vector<std::unique_ptr<cut::CutFeed>> inner;
  for (size_t i = 0; i < kFeeds; ++i)
    inner.push_back(std::make_unique<CountingFeed>(static_cast<uint8_t>(i), kCuts, &read[i]));
  auto feeds = cut::AheadFeeds(std::move(inner), 2);
  ASSERT_EQ(feeds.size(), kFeeds);
  std::vector<size_t> taken(kFeeds, 0);
  auto take = [&](size_t i) {
    cut::CutOnNode c;
    if (!feeds[i]->Next(&c)) return false;
    EXPECT_EQ(c.id.hi, i);
    EXPECT_EQ(c.id.lo, taken[i]) << "feed " << i;
    ++taken[i];
    EXPECT_LE(read[i].load(), taken[i] + 3) << "feed " << i << " read far ahead of its consumer";
    return true;
  };
  // As the check takes them: cut k of every feed, then cut k + 1; feed 0 drained first,
  // and feed 8 dropped half way.
  while (take(0)) {
  }
  EXPECT_EQ(taken[0], kCuts);
  for (size_t k = 0; k < kCuts; ++k) {
    for (size_t i = 1; i < kFeeds; ++i) {
      if (i == 8 && k == kCuts / 2) feeds[8].reset();
      if (feeds[i] != nullptr) {
        EXPECT_TRUE(take(i)) << "feed " << i << " cut " << k;
      }
    }
  }
  for (size_t i = 1; i < 8; ++i) {
    cut::CutOnNode c;
    EXPECT_FALSE(feeds[i]->Next(&c)) << "feed " << i;
    EXPECT_EQ(taken[i], kCuts);
    EXPECT_EQ(feeds[i]->LastStartTs(), kCuts);
  }
  EXPECT_LT(read[8].load(), kCuts);
}

// A feed whose reading throws (out of memory) after some cuts.
class ThrowingFeed : public CountingFeed {
 public:
  using CountingFeed::CountingFeed;
  bool Next(cut::CutOnNode* out) override {
    if (++calls_ > 3) throw std::bad_alloc();
    return CountingFeed::Next(out);
  }

 private:
  size_t calls_ = 0;
};

// What a feed's reading throws on a worker thread reaches its consumer, once the cuts read
// before are taken, instead of ending the process; the other feeds go on.
TEST(Summary, FeedsSharingThreadsHandWhatAReadingThrowsToTheConsumer) {
  std::atomic<size_t> read_a{0}, read_b{0};
  std::vector<std::unique_ptr<cut::CutFeed>> inner;
  inner.push_back(std::make_unique<ThrowingFeed>(0, 10, &read_a));
  inner.push_back(std::make_unique<CountingFeed>(1, 10, &read_b));
  auto feeds = cut::AheadFeeds(std::move(inner), 2);
  cut::CutOnNode c;
  for (uint64_t k = 0; k < 3; ++k) {
    ASSERT_TRUE(feeds[0]->Next(&c));
    EXPECT_EQ(c.id.lo, k);
  }
  EXPECT_THROW(feeds[0]->Next(&c), std::bad_alloc);
  EXPECT_FALSE(feeds[0]->Next(&c)) << "a feed that threw is done";
  size_t taken = 0;
  while (feeds[1]->Next(&c)) ++taken;
  EXPECT_EQ(taken, 10u);
}

TEST(Summary, ResumedReadingsGiveTheIndexOfOneReading) {
  TempDir dir;
  const sim::SimConfig cfg = Small(dir.path() + "/c", 3, 3000, 8, 11, 64 << 10);
  ASSERT_TRUE(sim::Simulate(cfg).ok());
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(cfg.out_dir + "/node-1/wal")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 6u);
  const std::string live = dir.path() + "/live";
  // Steps: (files, bytes of the last as a fraction), growing.
  const std::vector<std::pair<size_t, double>> steps = {{1, 0.3}, {1, 1.0}, {2, 0.01},           {3, 0.5},
                                                        {3, 0.9}, {5, 0.2}, {files.size(), 0.7}, {files.size(), 1.0}};
  int compared = 0;
  for (size_t from_start = 0; from_start < 2; ++from_start) {  // also: the first resume after a whole first reading
    fs::remove_all(live);
    fs::create_directories(live);
    std::optional<cut::IndexCheckpoint> cp;
    std::vector<cut::CutOnNode> kept;
    for (size_t s = from_start; s < steps.size(); ++s) {
      const auto [count, fraction] = steps[s];
      for (size_t i = 0; i < count; ++i) {
        const std::string bytes = [&] {
          std::ifstream in(files[i], std::ios::binary);
          return std::string(std::istreambuf_iterator<char>(in), {});
        }();
        const size_t n =
            i + 1 == count ? static_cast<size_t>(static_cast<double>(bytes.size()) * fraction) : bytes.size();
        std::ofstream(live + "/" + files[i].filename().string(), std::ios::binary | std::ios::trunc)
            << bytes.substr(0, n);
      }
      auto stream = cp ? cut::NodeIndexStream::Resume("node-1", live, *cp, true)
                       : cut::NodeIndexStream::Open("node-1", live, nullptr, true);
      ASSERT_TRUE(stream.ok()) << stream.status().ToString();
      kept.resize(cp ? cp->cuts_before : 0);
      cut::CutOnNode c;
      while ((*stream)->Next(&c)) kept.push_back(c);
      cut::NodeIndex resumed = (*stream)->progress();
      resumed.cuts = kept;
      cp = (*stream)->checkpoint();
      ASSERT_TRUE(cp.has_value());
      auto whole = cut::BuildNodeIndex("node-1", live);
      ASSERT_TRUE(whole.ok()) << whole.status().ToString();
      EXPECT_EQ(Json(resumed), Json(*whole)) << "step " << s << ": " << count << " files, the last at " << fraction;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 15);
}

// `cuts --summary FILE --append` on a WAL that grows: each time the file is the one a
// whole reading writes, byte for byte, and only the new part is read.
class AppendCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const sim::SimConfig cfg = Small(dir_.path() + "/c", 3, 4000, 6, 3, 64 << 10);
    ASSERT_TRUE(sim::Simulate(cfg).ok());
    for (const auto& e : std::filesystem::directory_iterator(cfg.out_dir + "/node-2/wal"))
      files_.push_back(e.path().string());
    std::sort(files_.begin(), files_.end());
    ASSERT_GE(files_.size(), 5u);
    std::filesystem::create_directories(live_ + "/wal");
  }
  // The node's WAL as it was when `count` files existed, the last `keep` bytes long.
  void Grow(size_t count, size_t keep = SIZE_MAX) {
    for (size_t i = 0; i < count; ++i) {
      const std::string bytes = Slurp(files_[i]);
      std::ofstream(live_ + "/wal/" + std::filesystem::path(files_[i]).filename().string(),
                    std::ios::binary | std::ios::trunc)
          << (i + 1 == count ? bytes.substr(0, std::min(keep, bytes.size())) : bytes);
    }
  }
  std::string Whole() {
    EXPECT_EQ(RunCli({"cuts", live_, "-q", "--summary", whole_}).code, 0);
    return Slurp(whole_);
  }

  TempDir dir_;
  std::vector<std::string> files_;
  const std::string live_ = dir_.path() + "/node-2";
  const std::string file_ = dir_.path() + "/n2.sum";
  const std::string whole_ = dir_.path() + "/whole.sum";
};

TEST_F(AppendCli, EachAppendWritesWhatAWholeReadingWritesAndReadsOnlyTheNew) {
  for (const std::string format : {"binary", "json"}) {
    std::filesystem::remove_all(live_ + "/wal");
    std::filesystem::create_directories(live_ + "/wal");
    const std::string file = file_ + "." + format;
    bool first = true;
    for (const auto& [count, keep] :
         std::vector<std::pair<size_t, size_t>>{{2, 30000}, {3, SIZE_MAX}, {4, 100}, {files_.size(), SIZE_MAX}}) {
      Grow(count, keep);
      auto r = RunCli({"cuts", live_, "--summary", file, "--append", "--json", "--summary-format", format});
      ASSERT_EQ(r.code, 0) << r.err;
      EXPECT_EQ(r.err.find("whole"), std::string::npos) << r.err;
      ASSERT_EQ(RunCli({"cuts", live_, "-q", "--summary", whole_, "--summary-format", format}).code, 0);
      EXPECT_EQ(Slurp(file), Slurp(whole_)) << format << ", " << count << " files";
      auto j = nlohmann::json::parse(r.out);
      // What was read: the first time all, then the new files and the one that was the
      // last, never all of them again.
      if (first) {
        EXPECT_EQ(j["records_read"], j["records"]);
      } else {
        EXPECT_LT(j["records_read"].get<uint64_t>(), j["records"].get<uint64_t>()) << count;
      }
      first = false;
    }
  }
}

// Damage before the checkpoint (another node's segment, a byte flipped) is reported by
// the append as by a whole reading, and still is after more appends.
TEST_F(AppendCli, DamageBeforeTheCheckpointStaysReportedAsAWholeReadingReportsIt) {
  Grow(4);
  std::vector<std::string> others;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path() + "/c/node-0/wal"))
    others.push_back(e.path().string());
  std::sort(others.begin(), others.end());
  const std::string second = live_ + "/wal/" + std::filesystem::path(files_[1]).filename().string();
  std::filesystem::copy_file(others[1], second, std::filesystem::copy_options::overwrite_existing);
  std::string third = Slurp(files_[2]);
  third[third.size() / 2] ^= 0x40;
  std::ofstream(live_ + "/wal/" + std::filesystem::path(files_[2]).filename().string(),
                std::ios::binary | std::ios::trunc)
      << third;
  for (size_t count : {4ul, 5ul, files_.size()}) {
    for (size_t i = 4; i < count; ++i) {
      std::filesystem::copy_file(files_[i], live_ + "/wal/" + std::filesystem::path(files_[i]).filename().string(),
                                 std::filesystem::copy_options::overwrite_existing);
    }
    auto r = RunCli({"cuts", live_, "--summary", file_, "--append"});
    EXPECT_EQ(r.code, 1) << r.err;
    auto whole = RunCli({"cuts", live_, "--summary", whole_});
    EXPECT_EQ(Slurp(file_), Slurp(whole_)) << count << " files";
    EXPECT_NE(whole.err.find("foreign segment"), std::string::npos) << whole.err;
    EXPECT_NE(whole.err.find("corruption at"), std::string::npos) << whole.err;
  }
}

TEST_F(AppendCli, AStateThatDoesNotFitIsNotUsedAndTheSummaryIsWrittenWhole) {
  Grow(3);
  ASSERT_EQ(RunCli({"cuts", live_, "-q", "--summary", file_, "--append"}).code, 0);
  const std::string state3 = Slurp(file_ + ".resume");
  Grow(files_.size());
  // The summary replaced (a crash between writing it and its state, or by hand): the
  // state's hash no longer matches.
  ASSERT_EQ(RunCli({"cuts", live_, "-q", "--summary", file_, "--append"}).code, 0);
  std::ofstream(file_ + ".resume", std::ios::binary | std::ios::trunc) << state3;
  auto r = RunCli({"cuts", live_, "-q", "--summary", file_, "--append"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("was saved with another summary than the one beside it; writing the summary whole"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Slurp(file_), Whole());
  // The state damaged.
  std::string bad = Slurp(file_ + ".resume");
  bad[bad.size() / 2] ^= 0x10;
  std::ofstream(file_ + ".resume", std::ios::binary | std::ios::trunc) << bad;
  r = RunCli({"cuts", live_, "-q", "--summary", file_, "--append"});
  EXPECT_NE(r.err.find("checksum mismatch"), std::string::npos) << r.err;
  EXPECT_EQ(Slurp(file_), Whole());
  // Asked for in the other format.
  r = RunCli({"cuts", live_, "-q", "--summary", file_, "--append", "--summary-format", "json"});
  EXPECT_NE(r.err.find("is in the other format; writing the summary whole"), std::string::npos) << r.err;
  ASSERT_EQ(RunCli({"cuts", live_, "-q", "--summary", file_, "--append"}).code, 0);
  // The state missing.
  std::filesystem::remove(file_ + ".resume");
  r = RunCli({"cuts", live_, "-q", "--summary", file_, "--append"});
  EXPECT_NE(r.err.find("writing the summary whole"), std::string::npos) << r.err;
  EXPECT_EQ(Slurp(file_), Whole());
  // The file the reading stopped before is gone from the WAL.
  const auto last = std::filesystem::path(files_.back()).filename().string();
  std::filesystem::remove(live_ + "/wal/" + last);
  r = RunCli({"cuts", live_, "-q", "--summary", file_, "--append"});
  EXPECT_NE(r.err.find("no longer holds segment"), std::string::npos) << r.err;
  EXPECT_EQ(Slurp(file_), Whole());
  // Another node's summary at FILE.
  ASSERT_EQ(RunCli({"cuts", dir_.path() + "/c/node-0", "-q", "--summary", file_, "--append"}).code, 0);
  r = RunCli({"cuts", live_, "-q", "--summary", file_, "--append"});
  EXPECT_NE(r.err.find("is node node-0's summary, not node node-2's"), std::string::npos) << r.err;
  EXPECT_EQ(Slurp(file_), Whole());
}

// An output path mistyped onto a file that is not one walcut writes there is refused
// before any WAL is read, and the file kept; an empty file, or walcut's own, is replaced.
TEST_F(AppendCli, AFileThatIsNotWalcutsIsNotReplaced) {
  Grow(files_.size());
  const std::string notes = dir_.path() + "/notes.txt";
  std::ofstream(notes) << "mine\n";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"cuts", live_, "-q", "--summary", notes},
        std::vector<std::string>{"cuts", dir_.path() + "/no-such-node", "-q", "--summary", notes},
        std::vector<std::string>{"cuts", dir_.path() + "/c", "-q", "--svg", notes}}) {
    auto r = RunCli(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("\"" + notes + "\" exists and is not"), std::string::npos) << r.err;
    EXPECT_EQ(Slurp(notes), "mine\n");
  }
  // A resume state that is not one, beside a summary.
  ASSERT_EQ(RunCli({"cuts", live_, "-q", "--summary", file_, "--append"}).code, 0);
  std::ofstream(file_ + ".resume", std::ios::trunc) << "mine\n";
  auto r = RunCli({"cuts", live_, "-q", "--summary", file_, "--append"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("is not a summary's resume state"), std::string::npos) << r.err;
  EXPECT_EQ(Slurp(file_ + ".resume"), "mine\n");
  // Empty, or walcut's (either format, and a picture), it is replaced.
  std::ofstream(notes, std::ios::trunc).close();
  EXPECT_EQ(RunCli({"cuts", live_, "-q", "--summary", notes, "--summary-format", "json"}).code, 0);
  EXPECT_EQ(RunCli({"cuts", live_, "-q", "--summary", notes}).code, 0);
  EXPECT_EQ(Slurp(notes), Whole());
  const std::string svg = dir_.path() + "/t.svg";
  EXPECT_EQ(RunCli({"cuts", dir_.path() + "/c", "-q", "--svg", svg}).code, 0);
  EXPECT_EQ(RunCli({"cuts", dir_.path() + "/c", "-q", "--svg", svg}).code, 0);
}

TEST(AppendCliUsage, AppendNeedsSummary) {
  auto r = RunCli({"cuts", "x", "--append"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--append goes with --summary FILE"), std::string::npos) << r.err;
}

}  // namespace
