// app::ReadForDump, through a sink that records what it is handed: the records shown in the
// order of the WAL, the same whether one node is read in one pass or in parts side by side,
// the counts of --stats without a record handed, the limit, a sink whose reader went away,
// and damage reported to the sink.
#include "app/dump_reading.h"

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "app/inputs.h"
#include "libwal/ignite_record.h"
#include "tests/support/ignite_script.h"
#include "tests/support/temp_dir.h"

namespace {

using testing_support::TempDir;

// What a reading handed over: "TYPE@segment:offset" per record, and the messages.
class Recorder : public app::DumpSink {
 public:
  void Record(const std::string& node, const wal::Record& rec, const std::vector<uint32_t>*,
              const wal::BinaryTypes*) override {
    const char* name = wal::IgniteRecordTypeName(rec.type);
    records.push_back(fmt::format("{} {}@{}:{}", node, name != nullptr ? name : "?", rec.ptr.segment, rec.ptr.offset));
    if (records.size() >= good_for) good_ = false;
  }
  void Warning(const std::string& message) override { warnings.push_back(message); }
  void Error(const std::string& message) override { errors.push_back(message); }
  bool good() const override { return good_; }
  void Flush() override {}
  std::unique_ptr<app::DumpSink> NewPart() const override { return std::make_unique<Recorder>(); }
  void Join(app::DumpSink& part) override {
    auto& p = static_cast<Recorder&>(part);
    records.insert(records.end(), p.records.begin(), p.records.end());
    warnings.insert(warnings.end(), p.warnings.begin(), p.warnings.end());
    errors.insert(errors.end(), p.errors.begin(), p.errors.end());
    ++joined;
  }

  std::vector<std::string> records, warnings, errors;
  size_t good_for = SIZE_MAX;  // records after which good() turns false
  size_t joined = 0;

 private:
  bool good_ = true;
};

// Six segments of one Ignite node: a prepared, a data record and a commit in each.
std::vector<std::string> SixSegments() {
  std::vector<std::string> tokens;
  for (int s = 1; s <= 6; ++s) {
    for (const char* t : {"P", "D", "C"}) tokens.push_back(fmt::format("{}{}", t, s));
    if (s < 6) tokens.push_back("|");
  }
  return tokens;
}

std::vector<app::WalInput> InputsOf(const std::string& dir) {
  auto r = app::ResolveWalInputs({dir});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r->nodes) : std::vector<app::WalInput>{};
}

TEST(ReadForDump, HandsEachRecordShownToTheSinkInWalOrder) {
  TempDir tmp;
  testing_support::WriteIgniteScript(tmp.path() + "/n", {"P1", "D1", "C1", "|", "P2", "D2", "R2"});
  app::DumpReading o;
  o.limit = 1000;  // one pass
  Recorder sink;
  const app::DumpTotals t = app::ReadForDump(o, sink, InputsOf(tmp.path() + "/n"));
  std::vector<std::string> types;
  for (const auto& r : sink.records) types.push_back(r.substr(r.find(' ') + 1, r.find('@') - r.find(' ') - 1));
  // Each segment's header record, then its records; the first segment's SWITCH record.
  EXPECT_EQ(types, (std::vector<std::string>{"HEADER_RECORD", "TX_RECORD", "DATA_RECORD_V2", "TX_RECORD",
                                             "SWITCH_SEGMENT_RECORD", "HEADER_RECORD", "TX_RECORD", "DATA_RECORD_V2",
                                             "TX_RECORD"}))
      << fmt::format("{}", fmt::join(sink.records, "\n"));
  EXPECT_EQ(t.shown, sink.records.size());
  EXPECT_EQ(t.segments, 2u);
  EXPECT_EQ(t.errors, 0u);
  EXPECT_TRUE(sink.errors.empty());
}

TEST(ReadForDump, OneNodeInPartsGivesWhatOnePassGives) {
  TempDir tmp;
  testing_support::WriteIgniteScript(tmp.path() + "/n", SixSegments());
  app::DumpReading one;
  one.limit = 1000;  // a limit keeps the reading in one pass
  Recorder whole;
  app::ReadForDump(one, whole, InputsOf(tmp.path() + "/n"));
  app::DumpReading parts;
  parts.parts_min_bytes = 0;
  Recorder pieces;
  app::ReadForDump(parts, pieces, InputsOf(tmp.path() + "/n"));
  EXPECT_EQ(pieces.records, whole.records);
  EXPECT_EQ(whole.records.size(), 6u * 4 + 5);  // a header and three records per segment, five switches
  if (std::thread::hardware_concurrency() >= 2) {
    EXPECT_GT(pieces.joined, 1u) << "not read in parts";
  }
}

TEST(ReadForDump, StatsCountWhatTheRecordsAreAndHandNoneOver) {
  TempDir tmp;
  testing_support::WriteIgniteScript(tmp.path() + "/n", SixSegments());
  app::DumpReading shown;
  Recorder listed;
  const app::DumpTotals all = app::ReadForDump(shown, listed, InputsOf(tmp.path() + "/n"));
  for (auto by : {app::StatsBy::kType, app::StatsBy::kNode, app::StatsBy::kPartition}) {
    app::DumpReading stats;
    stats.stats = true;
    stats.stats_by = by;
    Recorder sink;
    const app::DumpTotals t = app::ReadForDump(stats, sink, InputsOf(tmp.path() + "/n"));
    EXPECT_TRUE(sink.records.empty());
    uint64_t counted = 0;
    for (const auto& c : t.by_type) counted += c.count;
    EXPECT_EQ(counted, listed.records.size());
    uint8_t tx = 0;
    ASSERT_TRUE(wal::ParseIgniteRecordType("TX_RECORD", &tx));
    EXPECT_EQ(t.by_type[tx].count, 12u);
    if (by == app::StatsBy::kNode) {
      ASSERT_EQ(t.by_node.size(), 1u);
      EXPECT_EQ(t.by_node.begin()->second.count, counted);
    }
    if (by == app::StatsBy::kPartition) {
      uint64_t entries = 0;
      for (const auto& [key, p] : t.by_partition) entries += p.entries;
      EXPECT_EQ(entries, 6u);  // one entry per data record
    }
  }
  EXPECT_EQ(all.shown, listed.records.size());
}

TEST(ReadForDump, TheLimitAndAReaderGoneStopTheReading) {
  TempDir tmp;
  testing_support::WriteIgniteScript(tmp.path() + "/n", SixSegments());
  app::DumpReading limited;
  limited.limit = 5;
  Recorder sink;
  EXPECT_EQ(app::ReadForDump(limited, sink, InputsOf(tmp.path() + "/n")).shown, 5u);
  EXPECT_EQ(sink.records.size(), 5u);
  app::DumpReading o;
  o.limit = 1000;
  Recorder gone;
  gone.good_for = 3;
  app::ReadForDump(o, gone, InputsOf(tmp.path() + "/n"));
  EXPECT_EQ(gone.records.size(), 3u);
}

TEST(ReadForDump, DamageIsReportedToTheSinkAndCounted) {
  TempDir tmp;
  const std::string folder = testing_support::WriteIgniteScript(tmp.path() + "/n", SixSegments());
  {
    // A byte of the second segment's second record changed: its CRC fails.
    const std::string seg = folder + "/0000000000000001.wal";
    std::fstream f(seg, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(60);
    f.put('\x7f');
  }
  for (size_t parts_min : {uint64_t{64} << 20, uint64_t{0}}) {
    app::DumpReading o;
    o.parts_min_bytes = parts_min;
    Recorder sink;
    const app::DumpTotals t = app::ReadForDump(o, sink, InputsOf(tmp.path() + "/n"));
    EXPECT_GE(t.errors, 1u) << parts_min;
    EXPECT_EQ(sink.errors.size(), t.errors) << parts_min;
    ASSERT_FALSE(sink.errors.empty());
    EXPECT_NE(sink.errors[0].find("0000000000000001.wal"), std::string::npos) << sink.errors[0];
  }
}

}  // namespace
