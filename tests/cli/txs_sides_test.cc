// The sides txs prints come from runs of cuts when a node's cuts follow one another,
// and from the rule otherwise; either way they are the side rule's (libcut/side.h) for
// every cut, including commits on a cut's records, cuts whose Start is their Finish, and
// no cuts at all.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tools/txs_sides.h"

namespace tools {
namespace {

// What the rule says, cut by cut, as the text the table prints.
std::string ByTheRule(const std::vector<NodeCut>& cuts, const wal::TxId& x, const wal::Pointer& commit, bool json) {
  std::string out;
  for (const auto& c : cuts) out += (json ? c.json : c.text)[static_cast<size_t>(SideOf(c, x, commit))];
  return out;
}

std::string Printed(const NodeSides& sides, const wal::TxId& x, const wal::Pointer& commit, bool json) {
  std::string out;
  sides.AppendSides(x, commit, json, [&](std::string_view text) { out += text; });
  return out;
}

wal::Pointer At(uint32_t offset) { return wal::Pointer{1, offset}; }
wal::TxId Tx(uint64_t order) { return wal::TxId{1, 1, order}; }

// Cuts at random places, ordered or not, with random sets; every commit offset among
// and around their records, every transaction listed or not.
TEST(TxsSides, RunsGiveTheRuleForEveryCut) {
  std::mt19937 rng(7);
  size_t ordered = 0, unordered = 0;
  for (int round = 0; round < 400; ++round) {
    const size_t n = rng() % 6;  // 0..5 cuts
    const bool in_order = rng() % 4 != 0;
    std::vector<uint32_t> places;
    for (size_t k = 0; k < 2 * n; ++k) places.push_back(static_cast<uint32_t>(rng() % 40));
    if (in_order) std::sort(places.begin(), places.end());  // start0 <= finish0 <= start1 ...
    std::vector<NodeCut> cuts;
    for (size_t k = 0; k < n; ++k) {
      std::vector<wal::TxId> before, after;
      for (uint64_t t = 0; t < 8; ++t) {
        const auto r = rng() % 6;
        if (r == 0) before.push_back(Tx(t));
        if (r == 1) after.push_back(Tx(t));
      }
      cuts.emplace_back(fmt::format("{:08x}-0000-0000-0000-{:012x}", round, k), At(places[2 * k]),
                        At(places[2 * k + 1]), std::move(before), std::move(after));
    }
    const NodeSides sides(cuts);
    (sides.ordered() ? ordered : unordered) += 1;
    if (in_order) {
      EXPECT_TRUE(sides.ordered());
    }
    for (uint32_t offset = 0; offset < 42; ++offset) {
      for (uint64_t t = 0; t < 8; ++t) {
        for (const bool json : {false, true}) {
          ASSERT_EQ(Printed(sides, Tx(t), At(offset), json), ByTheRule(cuts, Tx(t), At(offset), json))
              << "round " << round << " offset " << offset << " tx " << t << (json ? " json" : " text");
        }
      }
    }
  }
  EXPECT_GT(ordered, 250u);
  EXPECT_GT(unordered, 30u);  // the rule's own path is taken too
}

// A transaction listed After by a cut it committed before, and the texts themselves.
TEST(TxsSides, ListedAfterBeforeTheStartIsAfter) {
  std::vector<NodeCut> cuts;
  cuts.emplace_back("aaaaaaaa-0000-0000-0000-000000000000", At(10), At(20), std::vector<wal::TxId>{},
                    std::vector<wal::TxId>{});
  cuts.emplace_back("bbbbbbbb-0000-0000-0000-000000000000", At(30), At(40), std::vector<wal::TxId>{Tx(2)},
                    std::vector<wal::TxId>{Tx(1)});
  const NodeSides sides(cuts);
  ASSERT_TRUE(sides.ordered());
  EXPECT_EQ(Printed(sides, Tx(1), At(5), false), " aaaaaaaa=Before bbbbbbbb=After");
  EXPECT_EQ(Printed(sides, Tx(3), At(5), false), " aaaaaaaa=Before bbbbbbbb=Before");
  EXPECT_EQ(Printed(sides, Tx(2), At(35), false), " aaaaaaaa=After bbbbbbbb=Before");
  EXPECT_EQ(Printed(sides, Tx(3), At(35), false), " aaaaaaaa=After bbbbbbbb=After");
  EXPECT_EQ(Printed(sides, Tx(3), At(20), true),
            R"(,"aaaaaaaa-0000-0000-0000-000000000000":"after","bbbbbbbb-0000-0000-0000-000000000000":"before")");
  EXPECT_EQ(Printed(NodeSides({}), Tx(3), At(20), false), "");
}

}  // namespace
}  // namespace tools
