#include "tools/txs.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>


#include "libcut/cluster_check.h"
#include "libwal/wal_reader.h"
#include "tools/cut_sources.h"
#include "tools/escape.h"
#include "tools/inputs.h"

namespace tools {
namespace {

struct OnNode {
  // A node logs one set of TxRecords per role it has in the transaction: its state is
  // PREPARED while any role is unfinished, else the roles' outcome.
  uint32_t prepared = 0, committed = 0, rolled_back = 0, unknown = 0;
  std::optional<wal::TxState> state;
  std::vector<wal::Pointer> commits;     // COMMITTED records (one per role)
  std::set<std::pair<uint32_t, uint64_t>> writes;  // partition, counter
};

struct TxRow {
  std::vector<uint16_t> participants;  // node orders, primaries and backups
  std::string participants_text;
  std::map<size_t, OnNode> nodes;      // by node index
};

const char* StateName(const std::optional<wal::TxState>& s) { return s ? wal::TxStateName(*s) : "missing"; }

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
  std::vector<cut::NodeIndex> indexes;
  std::optional<cut::ClusterInfo> cluster;
  int code = kExitOk;
  if (!LoadIndexesFromWal({o.dir}, output, &indexes, &cluster, &code)) return code;
  cut::ClusterReport report = cut::CheckCluster(indexes, cluster ? &*cluster : nullptr);
  PrintNodeProblems(report, output);
  // Node names by order: servers from their WAL headers, clients from cluster.json.
  std::map<uint16_t, std::string> names;
  for (const auto& n : indexes) names[n.order] = n.node;
  if (cluster) {
    for (const auto& n : cluster->nodes) names[n.order] = n.name;
  }
  auto name_of = [&](uint16_t order) {
    auto it = names.find(order);
    return it != names.end() ? it->second : fmt::format("order-{}", order);
  };
  auto inputs = ResolveWalInputs({o.dir});
  std::map<wal::TxId, TxRow> rows;
  for (size_t i = 0; i < inputs->nodes.size(); ++i) {
    auto reader = wal::WalReader::OpenDirectory(inputs->nodes[i].wal_dir, {}, nullptr);
    if (!reader.ok()) continue;
    const wal::Record* r = nullptr;
    while ((*reader)->Next(&r)) {
      const auto& a = r->decoded;
      if (r->type == static_cast<uint8_t>(wal::RecordType::kTx)) {
        if (only && a.tx.xid != *only) continue;
        TxRow& row = rows[a.tx.xid];
        if (row.participants.empty()) {
          for (const auto& p : a.tx.participants) {
            row.participants_text += (row.participants_text.empty() ? "" : " ") + name_of(p.primary) + "[";
            for (size_t b = 0; b < p.backups.size(); ++b) row.participants_text += (b ? "," : "") + name_of(p.backups[b]);
            row.participants_text += "]";
            row.participants.push_back(p.primary);
            row.participants.insert(row.participants.end(), p.backups.begin(), p.backups.end());
          }
        }
        OnNode& on = row.nodes[i];
        switch (a.tx.state) {
          case wal::TxState::kPrepared: ++on.prepared; break;
          case wal::TxState::kCommitted: ++on.committed; on.commits.push_back(r->ptr); break;
          case wal::TxState::kRolledBack: ++on.rolled_back; break;
          case wal::TxState::kUnknown: ++on.unknown; break;
        }
        on.state = on.unknown ? wal::TxState::kUnknown
                   : on.committed + on.rolled_back < on.prepared ? wal::TxState::kPrepared
                   : on.committed ? wal::TxState::kCommitted
                   : on.rolled_back ? wal::TxState::kRolledBack
                                    : a.tx.state;
      } else if (r->type == static_cast<uint8_t>(wal::RecordType::kData)) {
        for (const auto& e : a.data.entries) {
          if (e.xid.IsNull() || (only && e.xid != *only)) continue;
          rows[e.xid].nodes[i].writes.insert({e.partition, e.counter});
        }
      }
    }
  }
  std::map<uint16_t, size_t> index_of_order;
  for (size_t i = 0; i < indexes.size(); ++i) index_of_order[indexes[i].order] = i;
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  if (o.json) fmt::format_to(it, "{{\"schema\":1,\"txs\":[");
  size_t shown = 0;
  for (auto& [xid, row] : rows) {
    // Every participant gets a line, "missing" when its WAL has no record of the tx.
    for (uint16_t order : row.participants) {
      auto ix = index_of_order.find(order);
      if (ix != index_of_order.end()) row.nodes[ix->second];
    }
    bool some_committed = false, some_not = false;
    for (const auto& [i, on] : row.nodes) {
      bool committed = on.state == wal::TxState::kCommitted;
      some_committed |= committed;
      some_not |= !committed;
    }
    const bool in_doubt = some_committed ? some_not
                                         : std::any_of(row.nodes.begin(), row.nodes.end(), [](const auto& kv) {
                                             return kv.second.state == wal::TxState::kPrepared ||
                                                    kv.second.state == wal::TxState::kUnknown;
                                           });
    if (o.in_doubt && !in_doubt) continue;
    if (o.state && std::none_of(row.nodes.begin(), row.nodes.end(), [&](const auto& kv) {
          std::string s = StateName(kv.second.state);
          return std::equal(s.begin(), s.end(), o.state->begin(), o.state->end(),
                            [](char x, char y) { return std::tolower(x) == std::tolower(y); });
        })) {
      continue;
    }
    std::string near = name_of(static_cast<uint16_t>(xid.node_order));
    if (o.json) {
      fmt::format_to(it, "{}{{\"tx\":\"{}\",\"near\":", shown ? "," : "", xid.ToString());
      AppendJsonString(&b, near);
      fmt::format_to(it, ",\"participants\":");
      AppendJsonString(&b, row.participants_text);
      fmt::format_to(it, ",\"in_doubt\":{},\"nodes\":[", in_doubt);
    } else if (!o.quiet) {
      fmt::format_to(it, "tx {} near {} participants {}{}\n", xid.ToString(), near, row.participants_text,
                     in_doubt ? " IN DOUBT" : "");
    }
    bool first_node = true;
    for (const auto& [i, on] : row.nodes) {
      const cut::NodeIndex& n = indexes[i];
      std::string sides;
      fmt::memory_buffer sj;
      auto si = std::back_inserter(sj);
      bool first_side = true;
      if (!on.commits.empty()) {
        for (const auto& c : report.cuts) {
          const cut::CutOnNode* k = nullptr;
          for (const auto& kk : n.cuts) {
            if (kk.id == c.id) k = &kk;
          }
          if (k == nullptr || !k->has_start || !k->has_finish) continue;
          bool before = cut::SideOf(*k, xid, on.commits.front()) == cut::Side::kBefore;
          sides += fmt::format(" {}={}", c.id.ToString().substr(0, 8), before ? "Before" : "After");
          fmt::format_to(si, "{}\"{}\":\"{}\"", first_side ? "" : ",", c.id.ToString(), before ? "before" : "after");
          first_side = false;
        }
      }
      std::string writes;
      for (const auto& [p, cntr] : on.writes) writes += fmt::format("{}{}:{}", writes.empty() ? "" : ",", p, cntr);
      if (o.json) {
        fmt::format_to(it, "{}{{\"node\":", first_node ? "" : ",");
        AppendJsonString(&b, n.node);
        fmt::format_to(it, ",\"state\":\"{}\",\"commits\":[", StateName(on.state));
        for (size_t c = 0; c < on.commits.size(); ++c) fmt::format_to(it, "{}\"{}\"", c ? "," : "", on.commits[c].ToString());
        fmt::format_to(it, "],\"writes\":[");
        bool fw = true;
        for (const auto& [p, cntr] : on.writes) {
          fmt::format_to(it, "{}{{\"partition\":{},\"counter\":{}}}", fw ? "" : ",", p, cntr);
          fw = false;
        }
        fmt::format_to(it, "],\"sides\":{{{}}}}}", fmt::to_string(sj));
      } else if (!o.quiet) {
        std::string commits;
        for (const auto& c : on.commits) commits += (commits.empty() ? " at " : ",") + c.ToString();
        std::string line = fmt::format("  {:<10} {:<11}{}{}{}", n.node, StateName(on.state), commits,
                                       writes.empty() ? "" : " writes " + writes, sides);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        fmt::format_to(it, "{}\n", line);
      }
      first_node = false;
    }
    if (o.json) fmt::format_to(it, "]}}");
    ++shown;
    if (b.size() > (1 << 20)) {
      if (!o.quiet) output.out->Write(std::string_view(b.data(), b.size()));
      b.clear();
    }
  }
  if (o.json) fmt::format_to(it, "]}}\n");
  else if (!o.quiet) fmt::format_to(it, "{} transaction(s)\n", shown);
  if (!o.quiet) output.out->Write(std::string_view(b.data(), b.size()));
  if (!report.problems.empty()) return kExitProblems;
  if (only && rows.empty()) {
    output.Error("no record of transaction {} in \"{}\"", only->ToString(), o.dir);
    return kExitProblems;
  }
  return kExitOk;
}

}  // namespace tools
