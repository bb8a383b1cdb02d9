#include "tools/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "libcut/cut_index.h"
#include "libwal/wal_reader.h"
#include "tools/escape.h"
#include "tools/record_format.h"

namespace tools {
namespace {

struct Commit {
  wal::TxId xid;
  wal::Pointer ptr;
  uint64_t ts = 0;
  wal::Pointer first;  // the transaction's first commit on the node, which places it
};

struct Lane {
  std::string node;
  std::vector<Commit> commits;          // in WAL order
  std::optional<cut::CutOnNode> cut;    // the chosen cut's records here
};

constexpr double kWidth = 1200, kLeft = 110, kRight = 70, kTop = 70, kLaneHeight = 56;
constexpr const char* kBefore = "#1f77b4";
constexpr const char* kAfter = "#ff7f0e";
constexpr const char* kWarn = "#d62728";

std::string Esc(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) ? '?' : c;
    }
  }
  return out;
}

}  // namespace

wal::Result<std::string> RenderTimeline(const std::vector<cut::NodeIndex>& indexes,
                                        const std::vector<std::string>& wal_dirs, const cut::CutReport& chosen,
                                        const TimelineOptions& o) {
  std::vector<Lane> lanes(indexes.size());
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 0; i < indexes.size(); ++i) {
    lanes[i].node = indexes[i].node;
    for (const auto& c : indexes[i].cuts) {
      if (c.id == chosen.id && c.has_start && c.has_finish) lanes[i].cut = c;
    }
    auto reader = wal::WalReader::OpenDirectory(wal_dirs[i], {}, nullptr);
    if (!reader.ok()) return reader.status();
    const wal::Record* r = nullptr;
    std::map<wal::TxId, wal::Pointer> first;
    while ((*reader)->Next(&r)) {
      if (r->type != static_cast<uint8_t>(wal::RecordType::kTx) || r->decoded.tx.state != wal::TxState::kCommitted) continue;
      const wal::TxId& x = r->decoded.tx.xid;
      const wal::Pointer at = first.emplace(x, r->ptr).first->second;
      lanes[i].commits.push_back({x, r->ptr, r->decoded.tx.timestamp, at});
    }
  }
  // The view: --from/--to, or the chosen cut with as much again on either side, at
  // least 20 ms, so the transactions around it are in sight.
  const double span = std::max<double>(20e6, static_cast<double>(chosen.finish_ts - chosen.start_ts) * 3);
  uint64_t view_lo = o.from ? static_cast<uint64_t>(*o.from * 1e9)
                            : static_cast<uint64_t>(std::max(0.0, static_cast<double>(chosen.start_ts) - span));
  uint64_t view_hi = o.to ? static_cast<uint64_t>(*o.to * 1e9) : static_cast<uint64_t>(static_cast<double>(chosen.finish_ts) + span);
  if (view_hi <= view_lo) view_hi = view_lo + 1;
  lo = view_lo;
  hi = view_hi;
  const double plot = kWidth - kLeft - kRight;
  // x of a commit: by time, or by its rank among the node's commits in view.
  std::vector<std::map<wal::Pointer, double>> rank_x(lanes.size());
  if (o.axis_offset) {
    for (size_t i = 0; i < lanes.size(); ++i) {
      std::vector<const Commit*> in;
      for (const auto& c : lanes[i].commits) {
        if (c.ts >= lo && c.ts <= hi) in.push_back(&c);
      }
      for (size_t k = 0; k < in.size(); ++k) {
        rank_x[i][in[k]->ptr] = kLeft + plot * (static_cast<double>(k) + 0.5) / static_cast<double>(std::max<size_t>(in.size(), 1));
      }
    }
  }
  auto xt = [&](uint64_t ts) { return kLeft + plot * static_cast<double>(ts - lo) / static_cast<double>(hi - lo); };
  auto x_of = [&](size_t lane, const Commit& c) { return o.axis_offset ? rank_x[lane][c.ptr] : xt(c.ts); };
  auto lane_y = [&](size_t lane) { return kTop + kLaneHeight * static_cast<double>(lane) + kLaneHeight / 2; };
  const double height = kTop + kLaneHeight * static_cast<double>(lanes.size()) + 40;

  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it,
                 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
                 "font-family=\"sans-serif\" font-size=\"12\">\n",
                 kWidth, height, kWidth, height);
  fmt::format_to(it, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
  fmt::format_to(it, "<text x=\"{:.0f}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">cut {} ({}{})</text>\n", kLeft,
                 chosen.id.ToString(), cut::CutStatusName(chosen.status),
                 chosen.increment ? fmt::format(", increment {}", *chosen.increment) : std::string());
  // Legend.
  double lx = kLeft;
  auto legend = [&](const char* color, const char* label, bool line) {
    if (line) {
      fmt::format_to(it, "<line x1=\"{:.0f}\" y1=\"38\" x2=\"{:.0f}\" y2=\"48\" stroke=\"{}\" stroke-width=\"2\"/>", lx, lx, color);
    } else {
      fmt::format_to(it, "<rect x=\"{:.0f}\" y=\"37\" width=\"3\" height=\"12\" fill=\"{}\"/>", lx - 1, color);
    }
    fmt::format_to(it, "<text x=\"{:.0f}\" y=\"47\">{}</text>\n", lx + 8, label);
    lx += 170;
  };
  legend(kBefore, "Before (commit)", false);
  legend(kAfter, "After (commit)", false);
  legend("#2ca02c", "Start record", true);
  legend("#9467bd", "Finish record", true);
  legend(kWarn, "different sides (violation)", true);
  fmt::format_to(it, "<circle cx=\"{:.0f}\" cy=\"43\" r=\"3\" fill=\"none\" stroke=\"black\"/><text x=\"{:.0f}\" y=\"47\">listed in before/after</text>\n",
                 lx, lx + 8);
  // Lanes.
  for (size_t i = 0; i < lanes.size(); ++i) {
    double y = lane_y(i);
    fmt::format_to(it, "<g class=\"lane\" data-node=\"{}\">\n", Esc(lanes[i].node));
    fmt::format_to(it, "<line x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\" stroke=\"#cccccc\"/>\n", kLeft, y, kWidth - kRight, y);
    fmt::format_to(it, "<text x=\"10\" y=\"{:.1f}\">{}</text>\n", y + 4, Esc(lanes[i].node));
    fmt::format_to(it, "</g>\n");
  }
  // Lines joining one transaction's commits across nodes (drawn first, under the ticks).
  std::map<wal::TxId, std::vector<std::pair<size_t, const Commit*>>> by_tx;
  for (size_t i = 0; i < lanes.size(); ++i) {
    for (const auto& c : lanes[i].commits) {
      if (c.ts >= lo && c.ts <= hi) by_tx[c.xid].push_back({i, &c});
    }
  }
  auto side_of = [&](size_t lane, const Commit& c) -> std::optional<cut::Side> {
    if (!lanes[lane].cut) return std::nullopt;
    return cut::SideOf(*lanes[lane].cut, c.xid, c.first);
  };
  for (const auto& [xid, commits] : by_tx) {
    if (commits.size() < 2) continue;
    bool split = false;
    auto first = side_of(commits[0].first, *commits[0].second);
    for (const auto& [lane, c] : commits) split |= side_of(lane, *c) != first;
    std::string points;
    std::vector<std::pair<size_t, const Commit*>> sorted = commits;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
    for (const auto& [lane, c] : sorted) points += fmt::format("{:.1f},{:.1f} ", x_of(lane, *c), lane_y(lane));
    points.pop_back();
    fmt::format_to(it, "<polyline class=\"tx{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" opacity=\"{}\"><title>tx {}</title></polyline>\n",
                   split ? " split" : "", points, split ? kWarn : "#999999", split ? 2 : 0.5, split ? 1.0 : 0.35, xid.ToString());
  }
  // Commit ticks and set markers.
  size_t marks = 0;
  for (size_t i = 0; i < lanes.size(); ++i) {
    double y = lane_y(i);
    for (const auto& c : lanes[i].commits) {
      if (c.ts < lo || c.ts > hi) continue;
      auto side = side_of(i, c);
      const char* color = !side ? "#7f7f7f" : *side == cut::Side::kBefore ? kBefore : kAfter;
      double x = x_of(i, c);
      fmt::format_to(it, "<rect class=\"commit\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"2\" height=\"18\" fill=\"{}\"><title>tx {} at {} ({})</title></rect>\n",
                     x - 1, y - 9, color, c.xid.ToString(), c.ptr.ToString(),
                     !side ? "no cut here" : *side == cut::Side::kBefore ? "Before" : "After");
      ++marks;
      if (lanes[i].cut) {
        const auto& k = *lanes[i].cut;
        bool listed = std::find(k.before.begin(), k.before.end(), c.xid) != k.before.end() ||
                      std::find(k.after.begin(), k.after.end(), c.xid) != k.after.end();
        if (listed) fmt::format_to(it, "<circle class=\"listed\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"none\" stroke=\"black\"/>\n", x, y - 13);
      }
    }
    // Start and Finish markers of this node.
    if (lanes[i].cut && !o.axis_offset) {
      const auto& k = *lanes[i].cut;
      for (auto [ts, color, label] : {std::tuple{k.start_ts, "#2ca02c", "Start"}, std::tuple{k.finish_ts, "#9467bd", "Finish"}}) {
        if (ts < lo || ts > hi) continue;
        double x = xt(ts);
        fmt::format_to(it, "<line class=\"marker\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"><title>{} record</title></line>\n",
                       x, y - kLaneHeight / 2 + 4, x, y + kLaneHeight / 2 - 4, color, label);
      }
    }
  }
  // Axis.
  double ay = kTop + kLaneHeight * static_cast<double>(lanes.size()) + 10;
  fmt::format_to(it, "<line x1=\"{:.0f}\" y1=\"{:.0f}\" x2=\"{:.0f}\" y2=\"{:.0f}\" stroke=\"black\"/>\n", kLeft, ay, kWidth - kRight, ay);
  for (int t = 0; t <= 5; ++t) {
    double x = kLeft + plot * t / 5;
    std::string label;
    if (o.axis_offset) {
      label = t == 0 ? "WAL order of each node" : "";
    } else {
      fmt::memory_buffer lb;
      AppendTimestamp(&lb, lo + static_cast<uint64_t>(static_cast<double>(hi - lo) * t / 5));
      label = fmt::to_string(lb) + " s";
    }
    fmt::format_to(it, "<line x1=\"{:.1f}\" y1=\"{:.0f}\" x2=\"{:.1f}\" y2=\"{:.0f}\" stroke=\"black\"/><text x=\"{:.1f}\" y=\"{:.0f}\" text-anchor=\"{}\">{}</text>\n",
                   x, ay, x, ay + 5, x, ay + 20, t == 0 ? "start" : t == 5 ? "end" : "middle", label);
  }
  fmt::format_to(it, "<!-- marks: {} commits in view -->\n</svg>\n", marks);
  return fmt::to_string(b);
}

}  // namespace tools
