#include "tools/txs.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "libcut/cluster_check.h"
#include "libcut/tx_census.h"
#include "tools/cut_sources.h"
#include "tools/escape.h"
#include "tools/json_writer.h"
#include "tools/progress.h"

namespace tools {
namespace {

const char* StateName(const std::optional<wal::TxState>& s) { return s ? wal::TxStateName(*s) : "missing"; }

// Every node's transactions and the cluster check, in one pass over each WAL: the
// transactions are collected from the records the check's reading sees, and the cuts
// keep their sets for the sides. In the order the nodes were given; false (with *code)
// when the inputs cannot be resolved.
bool ReadAll(const std::string& dir, const std::optional<wal::TxId>& only, Output& output, WalInputs* inputs,
             std::vector<cut::NodeTxs>* nodes, cut::ClusterReport* report, int* code) {
  std::vector<std::unique_ptr<cut::TxCensus>> census;
  WalCheck how;
  how.keep_sets = true;
  how.tap = [&](size_t i) -> cut::RecordTap {
    if (census.size() <= i) census.resize(i + 1);
    census[i] = std::make_unique<cut::TxCensus>(only);
    return [c = census[i].get()](const wal::Record& r) { c->OnRecord(r); };
  };
  cut::StreamedCluster streamed;
  if (!CheckFromWal({dir}, how, output, &streamed, code, inputs)) return false;
  *report = std::move(streamed.report);
  const size_t n = inputs->nodes.size();
  census.resize(n);
  nodes->assign(n, cut::NodeTxs{});
  std::vector<cut::NodeIndex> indexes;
  if (!InInputOrder(*inputs, std::move(streamed.nodes), output, &indexes, code)) return false;
  for (size_t i = 0; i < n; ++i) (*nodes)[i].index = std::move(indexes[i]);
  // Sorting each node's transactions: on every core.
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      if (census[i] != nullptr) census[i]->Finish(&(*nodes)[i]);
      census[i].reset();
    }
  };
  const size_t workers = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  return true;
}

// A cut with both records on a node, with its sets sorted for the side rule.
struct NodeCut {
  std::string id;  // in full
  // Its sides as a text line ends them (" <short id>=Before") and as JSON members
  // (`,"<id>":"before"`), by Side.
  std::array<std::string, 2> text, json;
  wal::Pointer start, finish;
  std::vector<wal::TxId> before, after;
};

cut::Side SideOf(const NodeCut& c, const wal::TxId& xid, const wal::Pointer& commit) {
  auto listed = [&](const std::vector<wal::TxId>& v) { return std::binary_search(v.begin(), v.end(), xid); };
  return cut::SideOfCommit(cut::RegionOf(commit, c.start, c.finish), [&] { return listed(c.before); },
                           [&] { return listed(c.after); });
}

// A node's cuts (those of the report, in its order, with both records there) and their
// sides as text. When the cuts follow one another in the WAL (starts in order, finishes
// in order, each start before its finish) a commit is After every cut finished before it,
// Before every cut started after it unless one of those lists it After, and between the
// records of the others: a line's sides are then a run of After texts, the rule for the
// cuts it falls between, and a run of Before texts, found by two binary searches and one
// lookup instead of the rule for every cut.
struct NodeSides {
  std::vector<NodeCut> cuts;
  bool ordered = false;
  std::vector<wal::Pointer> starts, finishes;  // by cut, when ordered
  struct Runs {
    std::string afters, befores;                    // every cut's After text, Before text, in order
    std::vector<size_t> afters_end, befores_begin;  // cut k's end in afters, beginning in befores
  };
  Runs text, json;
  std::vector<wal::TxId> listed_after;  // in any cut's After set, sorted

  void Prepare() {
    ordered = true;
    for (size_t k = 0; k < cuts.size(); ++k) {
      const NodeCut& c = cuts[k];
      if (c.finish < c.start || (k != 0 && (c.start < cuts[k - 1].start || c.finish < cuts[k - 1].finish))) {
        ordered = false;
      }
    }
    if (!ordered) return;
    auto add = [](Runs& runs, const std::array<std::string, 2>& sides) {
      runs.befores_begin.push_back(runs.befores.size());
      runs.befores += sides[static_cast<size_t>(cut::Side::kBefore)];
      runs.afters += sides[static_cast<size_t>(cut::Side::kAfter)];
      runs.afters_end.push_back(runs.afters.size());
    };
    for (const NodeCut& c : cuts) {
      starts.push_back(c.start);
      finishes.push_back(c.finish);
      add(text, c.text);
      add(json, c.json);
      listed_after.insert(listed_after.end(), c.after.begin(), c.after.end());
    }
    text.befores_begin.push_back(text.befores.size());
    json.befores_begin.push_back(json.befores.size());
    std::sort(listed_after.begin(), listed_after.end());
    listed_after.erase(std::unique(listed_after.begin(), listed_after.end()), listed_after.end());
  }

  // Appends the transaction's side of every cut, its first commit being `commit`, as
  // text (`json` false) or JSON members.
  template <typename Append>
  void AppendSides(const wal::TxId& xid, const wal::Pointer& commit, bool as_json, Append&& append) const {
    auto one = [&](const NodeCut& c) {
      append((as_json ? c.json : c.text)[static_cast<size_t>(SideOf(c, xid, commit))]);
    };
    if (!ordered) {
      for (const auto& c : cuts) one(c);
      return;
    }
    const Runs& runs = as_json ? json : text;
    // Cuts [0, a) finished at or before the commit, [b, n) start after it.
    const auto a = static_cast<size_t>(std::upper_bound(finishes.begin(), finishes.end(), commit) - finishes.begin());
    const auto b = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), commit) - starts.begin());
    if (a != 0) append(std::string_view(runs.afters).substr(0, runs.afters_end[a - 1]));
    for (size_t k = a; k < b; ++k) one(cuts[k]);
    if (b == cuts.size()) return;
    if (!std::binary_search(listed_after.begin(), listed_after.end(), xid)) {
      append(std::string_view(runs.befores).substr(runs.befores_begin[b]));
      return;
    }
    for (size_t k = b; k < cuts.size(); ++k) one(cuts[k]);
  }
};

// Per node, the cuts of the report (in its order) that have both records there.
std::vector<NodeSides> CutsByNode(const std::vector<cut::NodeIndex>& indexes, const cut::ClusterReport& report) {
  std::vector<NodeSides> out(indexes.size());
  for (size_t i = 0; i < indexes.size(); ++i) {
    for (const auto& c : report.cuts) {
      const cut::CutOnNode* k = nullptr;
      for (const auto& kk : indexes[i].cuts) {
        if (kk.id == c.id) k = &kk;
      }
      if (k == nullptr || !k->has_start || !k->has_finish) continue;
      NodeCut nc{c.id.ToString(), {}, {}, k->start, k->finish, k->before, k->after};
      const std::string_view short_id = std::string_view(nc.id).substr(0, 8);
      for (const cut::Side side : {cut::Side::kBefore, cut::Side::kAfter}) {
        const bool before = side == cut::Side::kBefore;
        nc.text[static_cast<size_t>(side)] = fmt::format(" {}={}", short_id, before ? "Before" : "After");
        fmt::memory_buffer member;
        member.push_back(',');
        AppendJsonString(&member, nc.id);
        const std::string_view value = before ? R"(:"before")" : R"(:"after")";
        member.append(value.data(), value.data() + value.size());
        nc.json[static_cast<size_t>(side)] = fmt::to_string(member);
      }
      std::sort(nc.before.begin(), nc.before.end());
      std::sort(nc.after.begin(), nc.after.end());
      out[i].cuts.push_back(std::move(nc));
    }
    out[i].Prepare();
  }
  return out;
}

// One transaction across the nodes: its entry on each node that has one (null where the
// node has none but is a participant), by node index.
struct Row {
  wal::TxId xid;
  std::vector<std::pair<size_t, const cut::TxOnNode*>> nodes;  // by node index
  const cut::NodeTxs* named_by = nullptr;  // the node whose TX_RECORD gives the participants
  const cut::TxOnNode* naming = nullptr;
};

// The rows' text (or JSON) for a range of transactions, written by one thread.
struct RowsText {
  fmt::memory_buffer b;
  JsonWriter j{&b};
  size_t rows = 0, shown = 0;
  void Append(std::string_view text) { b.append(text.data(), text.data() + text.size()); }
};

// Prints rows; const once made, so that several threads print ranges of rows at once.
class TxsPrinter {
 public:
  // `indexes[i]`: the cut index of nodes[i].
  TxsPrinter(const TxsOptions& o, const std::vector<cut::NodeTxs>& nodes, const std::vector<cut::NodeIndex>& indexes,
             const std::optional<cut::ClusterInfo>& cluster, const cut::ClusterReport& report);
  // Prints the row into `out` if it passes the filters; false when it does not. Adds the
  // participants without a record of the transaction to row.nodes. In JSON, the rows are
  // the elements of an array `out.j` has begun.
  bool Print(Row& row, RowsText& out) const;
  // The text before the first row, and after the last.
  std::string Head() const;
  std::string Tail(size_t shown) const;

 private:
  std::string NameOf(uint16_t order) const;
  void AddParticipants(Row& row) const;
  std::string ParticipantsText(const Row& row) const;
  void NodeLine(size_t i, const cut::TxOnNode* on, const wal::TxId& xid, RowsText& out) const;

  const TxsOptions& o_;
  const std::vector<cut::NodeTxs>& nodes_;
  const std::vector<cut::NodeIndex>& indexes_;
  std::vector<NodeSides> cuts_;
  std::map<uint16_t, std::string> names_;
  // The text line's start: "  <node, padded> " by node index; "<state, padded>" by
  // state ordinal, the last for "missing".
  std::vector<std::string> node_text_;
  std::array<std::string, wal::kMaxTxStateOrdinal + 2> state_text_;
  // Node order -> index in nodes_, or kNoNode: asked for every participant of every row.
  static constexpr uint32_t kNoNode = UINT32_MAX;
  std::vector<uint32_t> index_of_order_;
};

TxsPrinter::TxsPrinter(const TxsOptions& o, const std::vector<cut::NodeTxs>& nodes,
                       const std::vector<cut::NodeIndex>& indexes, const std::optional<cut::ClusterInfo>& cluster,
                       const cut::ClusterReport& report)
    : o_(o), nodes_(nodes), indexes_(indexes), cuts_(CutsByNode(indexes, report)) {
  // Node names by order: servers from their WAL headers, clients from cluster.json.
  for (const auto& n : indexes) names_[n.order] = n.node;
  if (cluster) {
    for (const auto& n : cluster->nodes) names_[n.order] = n.name;
  }
  for (size_t i = 0; i < indexes.size(); ++i) {
    const uint16_t order = indexes[i].order;
    if (index_of_order_.size() <= order) index_of_order_.resize(size_t{order} + 1, kNoNode);
    index_of_order_[order] = static_cast<uint32_t>(i);
    node_text_.push_back(fmt::format("  {:<10} ", indexes[i].node));
  }
  for (size_t k = 0; k + 1 < state_text_.size(); ++k) {
    state_text_[k] = fmt::format("{:<11}", wal::TxStateName(static_cast<wal::TxState>(k)));
  }
  state_text_.back() = fmt::format("{:<11}", StateName(std::nullopt));
}

std::string TxsPrinter::Head() const { return o_.quiet || !o_.json ? "" : R"({"schema":1,"txs":[)"; }

std::string TxsPrinter::Tail(size_t shown) const {
  if (o_.quiet) return "";
  return o_.json ? "]}\n" : fmt::format("{} transaction(s)\n", shown);
}

std::string TxsPrinter::NameOf(uint16_t order) const {
  auto it = names_.find(order);
  return it != names_.end() ? it->second : fmt::format("order-{}", order);
}

// Every participant the row's TX_RECORD names gets a place in row.nodes, null when its
// WAL has no record of the transaction.
void TxsPrinter::AddParticipants(Row& row) const {
  if (row.naming == nullptr) return;
  const uint16_t* p = row.named_by->participants.data() + row.naming->participants_begin;
  const size_t had = row.nodes.size();
  auto add = [&](uint16_t order) {
    if (order >= index_of_order_.size() || index_of_order_[order] == kNoNode) return;
    const size_t ix = index_of_order_[order];
    for (size_t k = 0; k < row.nodes.size(); ++k) {
      if (row.nodes[k].first == ix) return;
    }
    row.nodes.emplace_back(ix, nullptr);
  };
  for (uint16_t g = 0; g < row.naming->participants_count; ++g) {
    add(*p++);
    const uint16_t backups = *p++;
    for (uint16_t k = 0; k < backups; ++k) add(*p++);
  }
  if (row.nodes.size() != had) std::sort(row.nodes.begin(), row.nodes.end());
}

// "primary[backup,backup] primary[...]".
std::string TxsPrinter::ParticipantsText(const Row& row) const {
  std::string text;
  if (row.naming == nullptr) return text;
  const uint16_t* p = row.named_by->participants.data() + row.naming->participants_begin;
  for (uint16_t g = 0; g < row.naming->participants_count; ++g) {
    const uint16_t primary = *p++;
    const uint16_t backups = *p++;
    if (!text.empty()) text += ' ';
    text += NameOf(primary);
    text += '[';
    for (uint16_t k = 0; k < backups; ++k, ++p) {
      if (k != 0) text += ',';
      text += NameOf(*p);
    }
    text += ']';
  }
  return text;
}

bool TxsPrinter::Print(Row& row, RowsText& out) const {
  AddParticipants(row);
  auto state_of = [](const cut::TxOnNode* on) { return on != nullptr ? on->state() : std::nullopt; };
  bool some_committed = false, some_not = false, some_open = false;
  for (const auto& [i, on] : row.nodes) {
    const auto s = state_of(on);
    some_committed |= s == wal::TxState::kCommitted;
    some_not |= s != wal::TxState::kCommitted;
    some_open |= s == wal::TxState::kPrepared || s == wal::TxState::kUnknown;
  }
  const bool in_doubt = some_committed ? some_not : some_open;
  if (o_.in_doubt && !in_doubt) return false;
  if (o_.state && std::none_of(row.nodes.begin(), row.nodes.end(), [&](const auto& kv) {
        const std::string s = StateName(state_of(kv.second));
        return std::equal(s.begin(), s.end(), o_.state->begin(), o_.state->end(),
                          [](char x, char y) { return std::tolower(x) == std::tolower(y); });
      })) {
    return false;
  }
  if (o_.quiet) return true;
  const std::string participants = ParticipantsText(row);
  const std::string near = NameOf(static_cast<uint16_t>(row.xid.node_order));
  if (o_.json) {
    out.j.BeginObject().Field("tx", row.xid.ToString()).Field("near", near).Field("participants", participants);
    out.j.Field("in_doubt", in_doubt).Key("nodes").BeginArray();
  } else {
    fmt::format_to(std::back_inserter(out.b), "tx {} near {} participants {}{}\n", row.xid.ToString(), near,
                   participants, in_doubt ? " IN DOUBT" : "");
  }
  for (const auto& [i, on] : row.nodes) NodeLine(i, on, row.xid, out);
  if (o_.json) out.j.EndArray().EndObject();
  return true;
}

// Node `i`'s line of a transaction: its state, commits, writes and its side of each cut.
void TxsPrinter::NodeLine(size_t i, const cut::TxOnNode* on, const wal::TxId& xid, RowsText& out) const {
  const cut::NodeTxs& n = nodes_[i];
  const std::string& node = indexes_[i].node;
  static const cut::TxOnNode kNone;
  const cut::TxOnNode& t = on != nullptr ? *on : kNone;
  const wal::Pointer* commits = n.commits.data() + t.commits_begin;
  const cut::PartitionCounter* writes = n.writes.data() + t.writes_begin;
  if (o_.json) {
    JsonWriter& j = out.j;
    j.BeginObject().Field("node", node).Field("state", StateName(on != nullptr ? on->state() : std::nullopt)).Key("commits").BeginArray();
    for (uint32_t c = 0; c < t.commits_count; ++c) {
      const fmt::format_int segment(commits[c].segment), offset(commits[c].offset);
      char text[48];  // "SEG:OFF", as Pointer::ToString gives it
      char* end = std::copy(segment.data(), segment.data() + segment.size(), text);
      *end++ = ':';
      end = std::copy(offset.data(), offset.data() + offset.size(), end);
      j.String({text, static_cast<size_t>(end - text)});
    }
    j.EndArray().Key("writes").BeginArray();
    for (uint32_t w = 0; w < t.writes_count; ++w) {
      j.BeginObject().Field("partition", writes[w].partition).Field("counter", writes[w].counter).EndObject();
    }
    j.EndArray().Key("sides").BeginObject();
    if (t.commits_count != 0) {
      cuts_[i].AppendSides(xid, commits[0], true, [&j](std::string_view members) { j.Members(members); });
    }
    j.EndObject().EndObject();
    return;
  }
  // Appended straight to the buffer: a full table is mostly these lines.
  fmt::memory_buffer& b = out.b;
  const size_t begin = b.size();
  out.Append(node_text_[i]);
  size_t state = state_text_.size() - 1;  // missing
  if (on != nullptr && on->has_record()) state = static_cast<size_t>(*on->state());
  out.Append(state_text_[state]);
  auto pair = [&out](uint64_t x, uint64_t y) {
    const fmt::format_int fx(x), fy(y);
    out.Append({fx.data(), fx.size()});
    out.b.push_back(':');
    out.Append({fy.data(), fy.size()});
  };
  for (uint32_t c = 0; c < t.commits_count; ++c) {
    out.Append(c == 0 ? " at " : ",");
    pair(commits[c].segment, commits[c].offset);
  }
  for (uint32_t w = 0; w < t.writes_count; ++w) {
    out.Append(w == 0 ? " writes " : ",");
    pair(writes[w].partition, writes[w].counter);
  }
  if (t.commits_count != 0) {
    cuts_[i].AppendSides(xid, commits[0], false, [&out](std::string_view text) { out.Append(text); });
  }
  size_t end = b.size();
  while (end > begin && b[end - 1] == ' ') --end;  // a line never ends in spaces
  b.resize(end);
  b.push_back('\n');
}

// Calls f(row) for every transaction any node has, in id order, taking node i's
// transactions from at[i] to end[i].
template <typename F>
void ForEachRow(const std::vector<cut::NodeTxs>& nodes, std::vector<size_t> at, const std::vector<size_t>& end, F&& f) {
  Row row;
  for (;;) {
    const wal::TxId* least = nullptr;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (at[i] < end[i] && (least == nullptr || nodes[i].txs[at[i]].xid < *least)) {
        least = &nodes[i].txs[at[i]].xid;
      }
    }
    if (least == nullptr) return;
    row.xid = *least;
    row.nodes.clear();
    row.named_by = nullptr;
    row.naming = nullptr;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (at[i] == end[i] || nodes[i].txs[at[i]].xid != row.xid) continue;
      const cut::TxOnNode* on = &nodes[i].txs[at[i]++];
      row.nodes.emplace_back(i, on);
      if (row.naming == nullptr && on->participants_count != 0) {
        row.naming = on;
        row.named_by = &nodes[i];
      }
    }
    f(row);
  }
}

// Prints every row, in id order: the ids are split into ranges (every kRows-th id of the
// node with the most transactions begins one), printed by a thread per core, and written
// out in order, a few ranges ahead at most. Counts the rows and those shown.
void PrintRows(const std::vector<cut::NodeTxs>& nodes, const TxsPrinter& printer, bool json, Output& output,
               size_t* rows, size_t* shown) {
  constexpr size_t kRows = 256;
  size_t big = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].txs.size() > nodes[big].txs.size()) big = i;
  }
  std::vector<wal::TxId> bounds;  // range r is [bounds[r - 1], bounds[r])
  if (!nodes.empty()) {
    for (size_t k = kRows; k < nodes[big].txs.size(); k += kRows) bounds.push_back(nodes[big].txs[k].xid);
  }
  const size_t ranges = bounds.size() + 1;
  auto place = [&](size_t i, size_t r) -> size_t {  // where range r begins in node i
    if (r == 0) return 0;
    if (r == ranges) return nodes[i].txs.size();
    const auto& txs = nodes[i].txs;
    return static_cast<size_t>(
        std::lower_bound(txs.begin(), txs.end(), bounds[r - 1], [](const cut::TxOnNode& t, const wal::TxId& x) {
          return t.xid < x;
        }) - txs.begin());
  };
  std::vector<std::unique_ptr<RowsText>> done(ranges);
  std::mutex mu;
  std::condition_variable cv;
  size_t written = 0;
  const size_t workers = std::min<size_t>(ranges, std::max(1u, std::thread::hardware_concurrency()));
  const size_t ahead = 4 * workers;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t r; (r = next.fetch_add(1)) < ranges;) {
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return r < written + ahead; });
      }
      auto text = std::make_unique<RowsText>();
      if (json) text->j.BeginArray();  // its '[' is dropped below
      std::vector<size_t> at(nodes.size()), end(nodes.size());
      for (size_t i = 0; i < nodes.size(); ++i) {
        at[i] = place(i, r);
        end[i] = place(i, r + 1);
      }
      ForEachRow(nodes, std::move(at), end, [&](Row& row) {
        ++text->rows;
        if (printer.Print(row, *text)) ++text->shown;
      });
      std::lock_guard lock(mu);
      done[r] = std::move(text);
      cv.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers; ++w) threads.emplace_back(work);
  *rows = *shown = 0;
  for (size_t r = 0; r < ranges; ++r) {
    std::unique_ptr<RowsText> text;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return done[r] != nullptr; });
      text = std::move(done[r]);
    }
    std::string_view bytes(text->b.data(), text->b.size());
    if (json) {
      bytes.remove_prefix(1);  // the range's '['; a ',' before it if a row came before
      if (!bytes.empty() && *shown != 0) output.out->Write(",");
    }
    output.out->Write(bytes);
    *rows += text->rows;
    *shown += text->shown;
    text.reset();
    std::lock_guard lock(mu);
    written = r + 1;
    cv.notify_all();
  }
  for (auto& t : threads) t.join();
}

}  // namespace

int RunTxs(const TxsOptions& o, Output& output) {
  std::optional<wal::TxId> only;
  if (o.tx) {
    only = wal::TxId::Parse(*o.tx);
    if (!only) {
      output.Error("--tx: \"{}\" is not a transaction id (T.N.O)", *o.tx);
      return kExitUsage;
    }
  }
  WalInputs inputs;
  int code = kExitOk;
  cut::ClusterReport report;
  std::vector<cut::NodeTxs> nodes;
  if (!ReadAll(o.dir, only, output, &inputs, &nodes, &report, &code)) return code;
  std::vector<cut::NodeIndex> indexes;
  for (auto& n : nodes) indexes.push_back(std::move(n.index));
  PrintNodeProblems(report, output);
  const TxsPrinter printer(o, nodes, indexes, inputs.cluster, report);
  output.out->Write(printer.Head());
  size_t shown = 0, rows = 0;
  PrintRows(nodes, printer, o.json, output, &rows, &shown);
  output.out->Write(printer.Tail(shown));
  if (!report.problems.empty()) return kExitProblems;
  if (only && rows == 0) {
    output.Error("no record of transaction {} in \"{}\"", only->ToString(), o.dir);
    return kExitProblems;
  }
  return kExitOk;
}

}  // namespace tools
