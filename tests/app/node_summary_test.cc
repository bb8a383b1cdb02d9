// app::SummarizeNode and app::AppendToSummary on a real Apache Ignite node (the
// node-stop-kept fixture's server-0, whose summary carries kept increments and applied
// counters): a summary kept up to date as the node's WAL grows is the whole reading's,
// byte for byte, from less of the WAL; a state that does not fit is said and not used.
#include "app/node_summary.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/inputs.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;

const std::string kNode = std::string(WALCUT_SOURCE_DIR) + "/testdata/ignite/node-stop-kept/nodes/server-0";

app::WalInput InputOf(const std::string& dir) {
  auto inputs = app::ResolveWalInputs({dir});
  EXPECT_TRUE(inputs.ok()) << inputs.status().message();
  EXPECT_EQ(inputs->nodes.size(), 1u);
  return inputs->nodes.at(0);
}

// Moves aside what the node wrote last (its last archived segment, raw and compacted, and
// its work segments), as the WAL was a segment earlier; returns the files moved.
std::vector<fs::path> HideGrowth(const std::string& node) {
  const fs::path wal = fs::path(node) / "work/db/wal";
  std::vector<fs::path> moved;
  for (const auto& f : fs::directory_iterator(wal / "archive/server_0")) {
    if (f.path().filename().string().starts_with("0000000000000002.wal")) moved.push_back(f.path());
  }
  for (const auto& f : fs::directory_iterator(wal / "server_0")) moved.push_back(f.path());
  for (const auto& f : moved) fs::rename(f, f.string() + ".later");
  return moved;
}

TEST(NodeSummary, AppendedAsTheIgniteWalGrowsIsTheWholeSummaryFromLessOfIt) {
  TempDir tmp;
  const std::string node = tmp.path() + "/server-0";
  fs::copy(kNode, node, fs::copy_options::recursive);
  const std::string file = tmp.path() + "/s.sum";
  const std::vector<fs::path> later = HideGrowth(node);
  ASSERT_EQ(later.size(), 4u);
  auto first = app::AppendToSummary(InputOf(node), file, cut::SummaryFormat::kBinary);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->whole_because.empty());  // a first run: nothing was there
  ASSERT_TRUE(first->state.has_value());
  ASSERT_TRUE(app::WriteSummaryFiles(file, *first).ok());
  for (const auto& f : later) fs::rename(f.string() + ".later", f);

  auto second = app::AppendToSummary(InputOf(node), file, cut::SummaryFormat::kBinary);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->whole_because.empty()) << second->whole_because;
  const app::NodeSummary whole = app::SummarizeNode(InputOf(node), cut::SummaryFormat::kBinary);
  EXPECT_EQ(second->bytes, whole.bytes);
  EXPECT_EQ(second->cuts, whole.cuts);
  EXPECT_GT(second->records_read, 0u);
  EXPECT_LT(second->records_read, whole.records_read);
  EXPECT_FALSE(second->damaged);
  // What makes it Ignite's: the kept increments and a cut's applied counters are there.
  std::optional<cut::NodeKept> kept;
  auto decoded = cut::DecodeSummary(whole.bytes, "whole", &kept);
  ASSERT_TRUE(decoded.ok());
  ASSERT_TRUE(kept.has_value());
  EXPECT_FALSE(kept->kept.empty());
  EXPECT_TRUE(std::any_of(decoded->cuts.begin(), decoded->cuts.end(),
                          [](const cut::CutOnNode& c) { return c.applied.known && !c.applied.copies.empty(); }));
}

TEST(NodeSummary, AStateOfTheOtherFormatIsSaidAndTheSummaryMadeWhole) {
  TempDir tmp;
  const std::string file = tmp.path() + "/s.sum";
  auto binary = app::AppendToSummary(InputOf(kNode), file, cut::SummaryFormat::kBinary);
  ASSERT_TRUE(binary.ok());
  ASSERT_TRUE(app::WriteSummaryFiles(file, *binary).ok());
  auto json = app::AppendToSummary(InputOf(kNode), file, cut::SummaryFormat::kJson);
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_NE(json->whole_because.find("is in the other format"), std::string::npos) << json->whole_because;
  EXPECT_EQ(json->bytes, app::SummarizeNode(InputOf(kNode), cut::SummaryFormat::kJson).bytes);
  EXPECT_EQ(json->records_read, json->index.records);
}

TEST(NodeSummary, AWalThatCannotBeOpenedGivesADamagedSummaryOfTheNode) {
  TempDir tmp;
  const std::string node = tmp.path() + "/server-0";
  fs::copy(kNode, node, fs::copy_options::recursive);
  const app::WalInput in = InputOf(node);
  fs::remove_all(fs::path(node) / "work/db/wal");
  const app::NodeSummary s = app::SummarizeNode(in, cut::SummaryFormat::kBinary);
  EXPECT_TRUE(s.damaged);
  EXPECT_FALSE(s.index.open_error.empty());
  auto back = cut::DecodeSummary(s.bytes, "s");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->node, "server_0");
}

}  // namespace
