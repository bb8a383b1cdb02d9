#include "tools/txs.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <thread>

#include "libcut/cluster_check.h"
#include "libcut/tx_census.h"
#include "libwal/in_order.h"
#include "tools/cut_sources.h"
#include "tools/progress.h"
#include "tools/txs_printer.h"

namespace tools {
namespace {

// Every node's transactions and the cluster check, in one pass over each WAL: the
// transactions are collected from the records the check's reading sees, and the cuts
// keep their sets for the sides. In the order the nodes were given; false (with *code)
// when the inputs cannot be resolved.
bool ReadAll(const std::vector<std::string>& paths, const std::optional<wal::TxId>& only, Output& output,
             app::WalInputs* inputs, std::vector<cut::NodeTxs>* nodes, cut::ClusterReport* report, int* code) {
  std::vector<std::unique_ptr<cut::TxCensus>> census;
  WalCheck how;
  how.keep_sets = true;
  how.tap = [&](size_t i, const app::WalInput&) -> cut::RecordTap {
    if (census.size() <= i) census.resize(i + 1);
    census[i] = std::make_unique<cut::TxCensus>(only);
    return [c = census[i].get()](const wal::Record& r) { c->OnRecord(r); };
  };
  cut::StreamedCluster streamed;
  if (!CheckFromWal(paths, how, output, &streamed, code, inputs)) return false;
  *report = std::move(streamed.report);
  const size_t n = inputs->nodes.size();
  census.resize(n);
  nodes->assign(n, cut::NodeTxs{});
  std::vector<cut::NodeIndex> indexes;
  if (!InInputOrder(*inputs, std::move(streamed.nodes), output, &indexes, code)) return false;
  for (size_t i = 0; i < n; ++i) (*nodes)[i].index = std::move(indexes[i]);
  // Sorting each node's transactions: on every core.
  wal::OnThreads(n, std::max(1u, std::thread::hardware_concurrency()), [&](size_t i) {
    if (census[i] != nullptr) census[i]->Finish(&(*nodes)[i]);
    census[i].reset();
  });
  return true;
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

// The place in n.txs of the first transaction whose id is not below x, at or after
// `from` (a place whose ids are all below x): galloping from there, as the ids asked for
// come in order and near one another.
size_t FirstAtOrAfter(const cut::NodeTxs& n, const wal::TxId& x, size_t from = 0) {
  auto below = [](const cut::TxOnNode& t, const wal::TxId& y) { return t.xid < y; };
  size_t lo = from, step = 1;
  while (lo + step < n.txs.size() && n.txs[lo + step].xid < x) {
    lo += step;
    step *= 2;
  }
  const size_t hi = std::min(n.txs.size(), lo + step + 1);
  const auto begin = n.txs.begin();
  return static_cast<size_t>(
      std::lower_bound(begin + static_cast<ptrdiff_t>(lo), begin + static_cast<ptrdiff_t>(hi), x, below) - begin);
}

// Where the rows are split into ranges: every k-th id of each node is a candidate, and
// one is taken once some node has k ids since the last taken, so that a range holds at
// most 2 * k ids of any node (whichever nodes lack the others' ids).
std::vector<wal::TxId> RangeBounds(const std::vector<cut::NodeTxs>& nodes, size_t k) {
  std::vector<wal::TxId> candidates;
  for (const auto& n : nodes) {
    for (size_t at = k; at < n.txs.size(); at += k) candidates.push_back(n.txs[at].xid);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<wal::TxId> bounds;
  std::vector<size_t> last(nodes.size(), 0);  // each node's place at the last bound taken
  std::vector<size_t> at(nodes.size(), 0);    // and at the last candidate
  for (const wal::TxId& x : candidates) {
    bool take = false;
    for (size_t i = 0; i < nodes.size(); ++i) {
      at[i] = FirstAtOrAfter(nodes[i], x, at[i]);
      take |= at[i] - last[i] >= k;
    }
    if (!take) continue;
    bounds.push_back(x);
    last = at;
  }
  return bounds;
}

// Prints every row, in id order: the ids are split into ranges (RangeBounds), printed by
// a thread per core, and written out in order, a few ranges ahead at most (MakeInOrder).
// Counts the rows and those shown.
void PrintRows(const std::vector<cut::NodeTxs>& nodes, const TxsPrinter& printer, bool json, bool quiet, Output& output,
               size_t* rows, size_t* shown) {
  // Ranges of about 2 MiB of text when transactions write few keys: fewer than 512 ids
  // of each node, fewer still when many nodes or cuts make each transaction's lines long
  // (one id of each node at the least). Nothing is printed with --quiet.
  const size_t k = quiet ? 256 : std::clamp<size_t>((size_t{1} << 20) / std::max<size_t>(1, printer.IdBytes()), 1, 256);
  const std::vector<wal::TxId> bounds = RangeBounds(nodes, k);  // range r is [bounds[r - 1], bounds[r])
  const size_t ranges = bounds.size() + 1;
  auto place = [&](size_t i, size_t r) -> size_t {  // where range r begins in node i
    if (r == 0) return 0;
    if (r == ranges) return nodes[i].txs.size();
    return FirstAtOrAfter(nodes[i], bounds[r - 1]);
  };
  const size_t threads = std::max(1u, std::thread::hardware_concurrency());
  *rows = *shown = 0;
  // A range's text is written out and its buffer made again for a later range: a new
  // one would grow by copies and fault in its pages, range after range.
  std::mutex spare_mu;
  std::vector<std::unique_ptr<RowsText>> spare;
  wal::MakeInOrder<std::unique_ptr<RowsText>>(
      ranges, threads, 4 * threads,
      [&](size_t r) {
        std::unique_ptr<RowsText> text;
        {
          std::lock_guard lock(spare_mu);
          if (!spare.empty()) {
            text = std::move(spare.back());
            spare.pop_back();
          }
        }
        if (text != nullptr) {
          text->Reset();
        } else {
          text = std::make_unique<RowsText>();
        }
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
        return text;
      },
      [&](size_t, std::unique_ptr<RowsText>& text) {
        std::string_view bytes(text->b.data(), text->b.size());
        if (json) {
          bytes.remove_prefix(1);  // the range's '['; a ',' before it if a row came before
          if (!bytes.empty() && *shown != 0) output.out->Write(",");
        }
        output.out->Write(bytes);
        *rows += text->rows;
        *shown += text->shown;
        std::lock_guard lock(spare_mu);
        spare.push_back(std::move(text));
        return true;
      });
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
  app::WalInputs inputs;
  int code = kExitOk;
  cut::ClusterReport report;
  std::vector<cut::NodeTxs> nodes;
  if (!ReadAll(o.paths, only, output, &inputs, &nodes, &report, &code)) return code;
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
    std::string where;
    for (const auto& p : o.paths) where += fmt::format("{}\"{}\"", where.empty() ? "" : ", ", p);
    output.Error("no record of transaction {} in {}", only->ToString(), where);
    return kExitProblems;
  }
  return kExitOk;
}

}  // namespace tools
