#include "tools/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "libcut/commit_place.h"
#include "libcut/cut_index.h"
#include "libcut/side.h"
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
  std::vector<Commit> commits;        // in WAL order
  std::optional<cut::CutOnNode> cut;  // the chosen cut's records here
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

// The lanes' commits read from each node's WAL: a transaction's first commit there
// places it (side.h; on Apache Ignite's WAL, as commit_place.h says). Ignite's cut
// records carry no time: a lane's Start and Finish records take the time of the last
// record before them that has one.
wal::Result<std::vector<Lane>> ReadLanes(const std::vector<cut::NodeIndex>& indexes,
                                         const std::vector<wal::WalLocation>& wal_dirs, const cut::CutReport& chosen) {
  std::vector<Lane> lanes(indexes.size());
  for (size_t i = 0; i < indexes.size(); ++i) {
    lanes[i].node = indexes[i].node;
    for (const auto& c : indexes[i].cuts) {
      if (c.id == chosen.id && c.has_start && c.has_finish) lanes[i].cut = c;
    }
    auto reader = wal::WalReader::OpenDirectory(wal_dirs[i], {}, nullptr);
    if (!reader.ok()) return reader.status();
    const wal::Record* r = nullptr;
    std::map<wal::TxId, wal::Pointer> first;
    cut::CommitPlacer placer;  // Apache Ignite's WAL only
    uint64_t last_ts = 0;
    while ((*reader)->Next(&r)) {
      const bool ignite = wal::IsIgnite(r->format);
      const auto type = static_cast<wal::RecordType>(r->type);
      if (type == wal::RecordType::kData) {
        last_ts = std::max(last_ts, r->decoded.data.timestamp);
        if (!ignite) continue;
        for (const auto& e : r->decoded.data.entries) {
          if (!e.xid.IsNull()) placer.OnWrite(e.xid, r->ptr);
        }
      } else if (cut::CommitPlacer::IsCutRecord(r->type)) {
        if (ignite) placer.OnCutRecord(r->ptr);
        auto& k = lanes[i].cut;
        if (k && k->start == r->ptr && k->start_ts == 0) k->start_ts = last_ts;
        if (k && k->finish == r->ptr && k->finish_ts == 0) k->finish_ts = last_ts;
      } else if (type == wal::RecordType::kTx) {
        const auto& t = r->decoded.tx;
        last_ts = std::max(last_ts, t.timestamp);
        if (t.state == wal::TxState::kRolledBack) {
          if (ignite) placer.Forget(t.xid);
          continue;
        }
        if (!cut::IsCommit(t.state)) continue;
        const wal::Pointer place = ignite ? placer.Place(t.xid, r->ptr) : r->ptr;
        const wal::Pointer at = first.emplace(t.xid, place).first->second;
        lanes[i].commits.push_back({t.xid, r->ptr, t.timestamp, at});
      }
    }
  }
  return lanes;
}

// Draws the lanes into an SVG document, part by part.
class Timeline {
 public:
  Timeline(std::vector<Lane> lanes, const cut::CutReport& chosen, const TimelineOptions& o);
  std::string Render();

 private:
  bool InView(const Commit& c) const { return c.ts >= lo_ && c.ts <= hi_; }
  double Xt(uint64_t ts) const {
    return kLeft + plot_ * static_cast<double>(ts - lo_) / static_cast<double>(hi_ - lo_);
  }
  double X(size_t lane, const Commit& c) { return o_.axis_offset ? rank_x_[lane][c.ptr] : Xt(c.ts); }
  double LaneY(size_t lane) const { return kTop + kLaneHeight * static_cast<double>(lane) + kLaneHeight / 2; }
  std::optional<cut::Side> SideOf(size_t lane, const Commit& c) const {
    if (!lanes_[lane].cut) return std::nullopt;
    return cut::SideOf(*lanes_[lane].cut, c.xid, c.first);
  }
  void Header(double height);
  void Legend();
  void LaneLines();
  void Joins();
  void Ticks();
  void Axis();

  std::vector<Lane> lanes_;
  const cut::CutReport& chosen_;
  const TimelineOptions& o_;
  uint64_t lo_ = 0, hi_ = 0;
  const double plot_ = kWidth - kLeft - kRight;
  std::vector<std::map<wal::Pointer, double>> rank_x_;  // with axis_offset: x by rank in view
  size_t marks_ = 0;
  fmt::memory_buffer b_;
};

// The view: --from/--to, or the chosen cut with as much again on either side, at least
// 20 ms, so the transactions around it are in sight.
Timeline::Timeline(std::vector<Lane> lanes, const cut::CutReport& chosen, const TimelineOptions& o)
    : lanes_(std::move(lanes)), chosen_(chosen), o_(o), rank_x_(lanes_.size()) {
  // The cut's times: its own, or (Apache Ignite's, whose cut records have none) the
  // times its lanes' records took (ReadLanes).
  uint64_t start_ts = chosen.start_ts, finish_ts = chosen.finish_ts;
  if (start_ts == 0) {
    for (const auto& lane : lanes_) {
      if (!lane.cut || lane.cut->start_ts == 0) continue;
      start_ts = start_ts == 0 ? lane.cut->start_ts : std::min(start_ts, lane.cut->start_ts);
      finish_ts = std::max(finish_ts, lane.cut->finish_ts);
    }
  }
  finish_ts = std::max(finish_ts, start_ts);
  // In integers: times since the epoch (Ignite's) have more digits than a double keeps.
  const uint64_t span = std::max<uint64_t>(20'000'000, (finish_ts - start_ts) * 3);
  lo_ = o.from ? static_cast<uint64_t>(*o.from * 1e9) : start_ts > span ? start_ts - span : 0;
  hi_ = o.to ? static_cast<uint64_t>(*o.to * 1e9) : finish_ts + span;
  if (hi_ <= lo_) hi_ = lo_ + 1;
  if (!o.axis_offset) return;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    std::vector<const Commit*> in;
    for (const auto& c : lanes_[i].commits) {
      if (InView(c)) in.push_back(&c);
    }
    for (size_t k = 0; k < in.size(); ++k) {
      rank_x_[i][in[k]->ptr] =
          kLeft + plot_ * (static_cast<double>(k) + 0.5) / static_cast<double>(std::max<size_t>(in.size(), 1));
    }
  }
}

void Timeline::Header(double height) {
  auto it = std::back_inserter(b_);
  fmt::format_to(
      it,
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n",
      kWidth, height, kWidth, height);
  fmt::format_to(it, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
  fmt::format_to(it, "<text x=\"{:.0f}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">cut {} ({}{})</text>\n", kLeft,
                 chosen_.id.ToString(), cut::CutStatusName(chosen_.status),
                 chosen_.increment ? fmt::format(", increment {}", *chosen_.increment) : std::string());
}

void Timeline::Legend() {
  auto it = std::back_inserter(b_);
  double lx = kLeft;
  auto legend = [&](const char* color, const char* label, bool line) {
    if (line) {
      fmt::format_to(it, "<line x1=\"{:.0f}\" y1=\"38\" x2=\"{:.0f}\" y2=\"48\" stroke=\"{}\" stroke-width=\"2\"/>", lx,
                     lx, color);
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
  fmt::format_to(it,
                 "<circle cx=\"{:.0f}\" cy=\"43\" r=\"3\" fill=\"none\" stroke=\"black\"/><text x=\"{:.0f}\" "
                 "y=\"47\">listed in before/after</text>\n",
                 lx, lx + 8);
}

void Timeline::LaneLines() {
  auto it = std::back_inserter(b_);
  for (size_t i = 0; i < lanes_.size(); ++i) {
    const double y = LaneY(i);
    fmt::format_to(it, "<g class=\"lane\" data-node=\"{}\">\n", Esc(lanes_[i].node));
    fmt::format_to(it, "<line x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\" stroke=\"#cccccc\"/>\n", kLeft, y,
                   kWidth - kRight, y);
    fmt::format_to(it, "<text x=\"10\" y=\"{:.1f}\">{}</text>\n", y + 4, Esc(lanes_[i].node));
    fmt::format_to(it, "</g>\n");
  }
}

// Lines joining one transaction's commits across nodes (drawn first, under the ticks).
void Timeline::Joins() {
  auto it = std::back_inserter(b_);
  std::map<wal::TxId, std::vector<std::pair<size_t, const Commit*>>> by_tx;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    for (const auto& c : lanes_[i].commits) {
      if (InView(c)) by_tx[c.xid].push_back({i, &c});
    }
  }
  for (const auto& [xid, commits] : by_tx) {
    if (commits.size() < 2) continue;
    bool split = false;
    auto first = SideOf(commits[0].first, *commits[0].second);
    for (const auto& [lane, c] : commits) split |= SideOf(lane, *c) != first;
    std::string points;
    std::vector<std::pair<size_t, const Commit*>> sorted = commits;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
    for (const auto& [lane, c] : sorted) points += fmt::format("{:.1f},{:.1f} ", X(lane, *c), LaneY(lane));
    points.pop_back();
    fmt::format_to(it,
                   "<polyline class=\"tx{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" "
                   "opacity=\"{}\"><title>tx {}</title></polyline>\n",
                   split ? " split" : "", points, split ? kWarn : "#999999", split ? 2 : 0.5, split ? 1.0 : 0.35,
                   xid.ToString());
  }
}

// Commit ticks and set markers, then each node's Start and Finish markers.
void Timeline::Ticks() {
  auto it = std::back_inserter(b_);
  size_t marks = 0;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    const double y = LaneY(i);
    for (const auto& c : lanes_[i].commits) {
      if (!InView(c)) continue;
      auto side = SideOf(i, c);
      const char* color = !side ? "#7f7f7f" : *side == cut::Side::kBefore ? kBefore : kAfter;
      const double x = X(i, c);
      fmt::format_to(it,
                     "<rect class=\"commit\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"2\" height=\"18\" fill=\"{}\"><title>tx "
                     "{} at {} ({})</title></rect>\n",
                     x - 1, y - 9, color, c.xid.ToString(), c.ptr.ToString(),
                     !side                         ? "no cut here"
                     : *side == cut::Side::kBefore ? "Before"
                                                   : "After");
      ++marks;
      if (lanes_[i].cut) {
        const auto& k = *lanes_[i].cut;
        const bool listed = std::find(k.before.begin(), k.before.end(), c.xid) != k.before.end() ||
                            std::find(k.after.begin(), k.after.end(), c.xid) != k.after.end();
        if (listed)
          fmt::format_to(
              it, "<circle class=\"listed\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"none\" stroke=\"black\"/>\n", x,
              y - 13);
      }
    }
    if (lanes_[i].cut && !o_.axis_offset) {
      const auto& k = *lanes_[i].cut;
      for (auto [ts, color, label] :
           {std::tuple{k.start_ts, "#2ca02c", "Start"}, std::tuple{k.finish_ts, "#9467bd", "Finish"}}) {
        if (ts < lo_ || ts > hi_) continue;
        const double x = Xt(ts);
        fmt::format_to(it,
                       "<line class=\"marker\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
                       "stroke-width=\"2\"><title>{} record</title></line>\n",
                       x, y - kLaneHeight / 2 + 4, x, y + kLaneHeight / 2 - 4, color, label);
      }
    }
  }
  marks_ = marks;
}

void Timeline::Axis() {
  auto it = std::back_inserter(b_);
  const double ay = kTop + kLaneHeight * static_cast<double>(lanes_.size()) + 10;
  fmt::format_to(it, "<line x1=\"{:.0f}\" y1=\"{:.0f}\" x2=\"{:.0f}\" y2=\"{:.0f}\" stroke=\"black\"/>\n", kLeft, ay,
                 kWidth - kRight, ay);
  for (int t = 0; t <= 5; ++t) {
    const double x = kLeft + plot_ * t / 5;
    std::string label;
    if (o_.axis_offset) {
      label = t == 0 ? "WAL order of each node" : "";
    } else if (lo_ >= kWallClockFrom) {
      // A wall clock's (Apache Ignite's): the first label its time of day (UTC), the
      // others the seconds since it, short enough not to run into each other.
      const uint64_t at = lo_ + static_cast<uint64_t>(static_cast<double>(hi_ - lo_) * t / 5);
      if (t == 0) {
        fmt::memory_buffer lb;
        AppendTime(&lb, at);
        const std::string iso = fmt::to_string(lb);
        label = iso.size() > 11 ? iso.substr(11) : iso;  // HH:MM:SS.mmmZ
      } else {
        label = fmt::format("+{:.3f} s", static_cast<double>(at - lo_) / 1e9);
      }
    } else {
      fmt::memory_buffer lb;
      AppendTimestamp(&lb, lo_ + static_cast<uint64_t>(static_cast<double>(hi_ - lo_) * t / 5));
      label = fmt::to_string(lb) + " s";
    }
    fmt::format_to(it,
                   "<line x1=\"{:.1f}\" y1=\"{:.0f}\" x2=\"{:.1f}\" y2=\"{:.0f}\" stroke=\"black\"/><text x=\"{:.1f}\" "
                   "y=\"{:.0f}\" text-anchor=\"{}\">{}</text>\n",
                   x, ay, x, ay + 5, x, ay + 20,
                   t == 0   ? "start"
                   : t == 5 ? "end"
                            : "middle",
                   label);
  }
}

std::string Timeline::Render() {
  Header(kTop + kLaneHeight * static_cast<double>(lanes_.size()) + 40);
  Legend();
  LaneLines();
  Joins();
  Ticks();
  Axis();
  fmt::format_to(std::back_inserter(b_), "<!-- marks: {} commits in view -->\n</svg>\n", marks_);
  return fmt::to_string(b_);
}

}  // namespace

wal::Result<std::string> RenderTimeline(const std::vector<cut::NodeIndex>& indexes,
                                        const std::vector<wal::WalLocation>& wal_dirs, const cut::CutReport& chosen,
                                        const TimelineOptions& o) {
  auto lanes = ReadLanes(indexes, wal_dirs, chosen);
  if (!lanes.ok()) return lanes.status();
  Timeline timeline(std::move(lanes).value(), chosen, o);
  return timeline.Render();
}

}  // namespace tools
