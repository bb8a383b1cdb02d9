#include "tools/txs_sides.h"

#include <algorithm>

#include <fmt/format.h>

#include "tools/escape.h"

namespace tools {

NodeCut::NodeCut(std::string id_in, const wal::Pointer& start_in, const wal::Pointer& finish_in,
                 std::vector<wal::TxId> before_in, std::vector<wal::TxId> after_in)
    : id(std::move(id_in)),
      start(start_in),
      finish(finish_in),
      before(std::move(before_in)),
      after(std::move(after_in)) {
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  const std::string_view short_id = std::string_view(id).substr(0, 8);
  for (const cut::Side side : {cut::Side::kBefore, cut::Side::kAfter}) {
    const bool is_before = side == cut::Side::kBefore;
    text[static_cast<size_t>(side)] = fmt::format(" {}={}", short_id, is_before ? "Before" : "After");
    fmt::memory_buffer member;
    member.push_back(',');
    AppendJsonString(&member, id);
    const std::string_view value = is_before ? R"(:"before")" : R"(:"after")";
    member.append(value.data(), value.data() + value.size());
    json[static_cast<size_t>(side)] = fmt::to_string(member);
  }
}

cut::Side SideOf(const NodeCut& c, const wal::TxId& xid, const wal::Pointer& commit) {
  auto listed = [&](const std::vector<wal::TxId>& v) { return std::binary_search(v.begin(), v.end(), xid); };
  return cut::SideOfCommit(
      cut::RegionOf(commit, c.start, c.finish), [&] { return listed(c.before); }, [&] { return listed(c.after); });
}

NodeSides::NodeSides(std::vector<NodeCut> cuts) : cuts_(std::move(cuts)) {
  ordered_ = true;
  for (size_t k = 0; k < cuts_.size(); ++k) {
    const NodeCut& c = cuts_[k];
    if (c.finish < c.start || (k != 0 && (c.start < cuts_[k - 1].start || c.finish < cuts_[k - 1].finish))) {
      ordered_ = false;
    }
  }
  if (!ordered_) return;
  auto add = [](Runs& runs, const std::array<std::string, 2>& sides) {
    runs.befores_begin.push_back(runs.befores.size());
    runs.befores += sides[static_cast<size_t>(cut::Side::kBefore)];
    runs.afters += sides[static_cast<size_t>(cut::Side::kAfter)];
    runs.afters_end.push_back(runs.afters.size());
  };
  for (const NodeCut& c : cuts_) {
    starts_.push_back(c.start);
    finishes_.push_back(c.finish);
    add(text_, c.text);
    add(json_, c.json);
    listed_after_.insert(listed_after_.end(), c.after.begin(), c.after.end());
  }
  text_.befores_begin.push_back(text_.befores.size());
  json_.befores_begin.push_back(json_.befores.size());
  std::sort(listed_after_.begin(), listed_after_.end());
  listed_after_.erase(std::unique(listed_after_.begin(), listed_after_.end()), listed_after_.end());
}

std::vector<NodeSides> SidesByNode(const std::vector<cut::NodeIndex>& indexes, const cut::ClusterReport& report) {
  std::vector<NodeSides> out;
  out.reserve(indexes.size());
  for (const auto& index : indexes) {
    std::vector<NodeCut> cuts;
    for (const auto& c : report.cuts) {
      const cut::CutOnNode* k = nullptr;
      for (const auto& kk : index.cuts) {
        if (kk.id == c.id) k = &kk;
      }
      if (k == nullptr || !k->has_start || !k->has_finish) continue;
      cuts.emplace_back(c.id.ToString(), k->start, k->finish, k->before, k->after);
    }
    out.emplace_back(std::move(cuts));
  }
  return out;
}

}  // namespace tools
