#include "tools/txs.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "libcut/cluster_check.h"
#include "libcut/tx_census.h"
#include "tools/cut_sources.h"
#include "tools/json_writer.h"
#include "tools/progress.h"
#include "tools/txs_sides.h"

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
  // Sorting each node's transactions: on every core. An exception (out of memory) stops
  // the others and is thrown here.
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::exception_ptr failure;
  auto work = [&] {
    for (size_t i; !stop && (i = next.fetch_add(1)) < n;) {
      try {
        if (census[i] != nullptr) census[i]->Finish(&(*nodes)[i]);
        census[i].reset();
      } catch (...) {
        std::lock_guard lock(mu);
        if (!failure) failure = std::current_exception();
        stop = true;
      }
    }
  };
  {
    const size_t workers = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::jthread> pool;
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
  }
  if (failure) std::rethrow_exception(failure);
  return true;
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
  RowsText() = default;
  RowsText(const RowsText&) = delete;  // j writes into this b
  RowsText& operator=(const RowsText&) = delete;

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
  // About what one transaction's node lines take: its sides on every node, and 256
  // bytes for the rest of each line (a transaction with many writes takes more).
  size_t IdBytes() const;

 private:
  std::string NameOf(uint16_t order) const;
  void AddParticipants(Row& row) const;
  std::string ParticipantsText(const Row& row) const;
  void NodeLine(size_t i, const cut::TxOnNode* on, const wal::TxId& xid, RowsText& out) const;

  const TxsOptions& o_;
  const std::vector<cut::NodeTxs>& nodes_;
  const std::vector<cut::NodeIndex>& indexes_;
  std::vector<NodeSides> sides_;
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
    : o_(o), nodes_(nodes), indexes_(indexes), sides_(SidesByNode(indexes, report)) {
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

size_t TxsPrinter::IdBytes() const {
  size_t bytes = 0;
  for (const NodeSides& n : sides_) {
    bytes += 256;
    for (const NodeCut& c : n.cuts()) {
      bytes += (o_.json ? c.json : c.text)[static_cast<size_t>(cut::Side::kBefore)].size();
    }
  }
  return bytes;
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
    j.BeginObject().Field("node", node).Field("state", StateName(on != nullptr ? on->state() : std::nullopt));
    j.Key("commits").BeginArray();
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
      sides_[i].AppendSides(xid, commits[0], true, [&j](std::string_view members) { j.Members(members); });
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
    sides_[i].AppendSides(xid, commits[0], false, [&out](std::string_view text) { out.Append(text); });
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

// Where the rows are split into ranges: every k-th id of each node is a candidate, and
// one is taken once some node has k ids since the last taken, so that a range holds at
// most 2 * k ids of any node (whichever nodes lack the others' ids).
std::vector<wal::TxId> RangeBounds(const std::vector<cut::NodeTxs>& nodes, size_t k) {
  auto place = [](const cut::NodeTxs& n, const wal::TxId& x) {
    return static_cast<size_t>(std::lower_bound(n.txs.begin(), n.txs.end(), x, [](const cut::TxOnNode& t,
                                                                                 const wal::TxId& y) {
                                 return t.xid < y;
                               }) - n.txs.begin());
  };
  std::vector<wal::TxId> candidates;
  for (const auto& n : nodes) {
    for (size_t at = k; at < n.txs.size(); at += k) candidates.push_back(n.txs[at].xid);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<wal::TxId> bounds;
  std::vector<size_t> last(nodes.size(), 0);  // each node's place at the last bound taken
  for (const wal::TxId& x : candidates) {
    bool take = false;
    for (size_t i = 0; i < nodes.size() && !take; ++i) take = place(nodes[i], x) - last[i] >= k;
    if (!take) continue;
    bounds.push_back(x);
    for (size_t i = 0; i < nodes.size(); ++i) last[i] = place(nodes[i], x);
  }
  return bounds;
}

// Prints every row, in id order: the ids are split into ranges (RangeBounds), printed by
// a thread per core, and written out in order, a few ranges ahead at most. Counts the
// rows and those shown. An exception in any thread stops them all and is thrown here.
void PrintRows(const std::vector<cut::NodeTxs>& nodes, const TxsPrinter& printer, bool json, bool quiet,
               Output& output, size_t* rows, size_t* shown) {
  // Ranges of about 2 MiB of text when transactions write few keys: fewer than 512 ids
  // of each node, fewer still when many nodes or cuts make each transaction's lines long
  // (one id of each node at the least). Nothing is printed with --quiet.
  const size_t k =
      quiet ? 256 : std::clamp<size_t>((size_t{1} << 20) / std::max<size_t>(1, printer.IdBytes()), 1, 256);
  const std::vector<wal::TxId> bounds = RangeBounds(nodes, k);  // range r is [bounds[r - 1], bounds[r])
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
  size_t next = 0, written = 0;
  bool stop = false;
  std::exception_ptr failure;
  auto fail = [&] {
    std::lock_guard lock(mu);
    if (!failure) failure = std::current_exception();
    stop = true;
    cv.notify_all();
  };
  const size_t workers = std::min<size_t>(ranges, std::max(1u, std::thread::hardware_concurrency()));
  const size_t ahead = 4 * workers;
  auto work = [&] {
    for (;;) {
      size_t r;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return stop || next >= ranges || next < written + ahead; });
        if (stop || next >= ranges) return;
        r = next++;
      }
      try {
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
      } catch (...) {
        fail();
        return;
      }
    }
  };
  *rows = *shown = 0;
  {
    std::vector<std::jthread> pool;
    for (size_t w = 0; w < workers; ++w) pool.emplace_back(work);
    try {
      for (size_t r = 0; r < ranges; ++r) {
        std::unique_ptr<RowsText> text;
        {
          std::unique_lock lock(mu);
          cv.wait(lock, [&] { return stop || done[r] != nullptr; });
          if (stop) break;
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
    } catch (...) {
      fail();
    }
  }
  if (failure) std::rethrow_exception(failure);
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
  PrintRows(nodes, printer, o.json, o.quiet, output, &rows, &shown);
  output.out->Write(printer.Tail(shown));
  if (!report.problems.empty()) return kExitProblems;
  if (only && rows == 0) {
    output.Error("no record of transaction {} in \"{}\"", only->ToString(), o.dir);
    return kExitProblems;
  }
  return kExitOk;
}

}  // namespace tools
