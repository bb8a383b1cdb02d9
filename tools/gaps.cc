#include "tools/gaps.h"

#include <filesystem>
#include <iterator>
#include <set>

#include "libwal/wal_writer.h"
#include "recovery/gaps.h"
#include "tools/escape.h"
#include "tools/inputs.h"

namespace tools {
namespace {

bool Scan(const std::vector<WalInput>& inputs, bool cluster, Output& output, std::vector<recovery::NodeGaps>* out,
          int* code) {
  out->clear();
  for (const auto& in : inputs) {
    auto g = recovery::ScanGaps(in.node, in.wal_dir);
    if (!g.ok()) {
      output.Error("{}", g.status().message());
      *code = kExitUnreadable;
      return false;
    }
    out->push_back(std::move(g).value());
  }
  if (!cluster) return true;
  // A transaction that committed on another node must not have its counters closed here.
  for (size_t i = 0; i < out->size(); ++i) {
    std::vector<wal::TxId> owners;
    for (const auto& c : (*out)[i].copies) {
      for (const auto& g : c.gaps) {
        if (g.xid) owners.push_back(*g.xid);
      }
    }
    if (owners.empty()) continue;
    std::set<wal::TxId> elsewhere;
    for (size_t j = 0; j < out->size(); ++j) {
      if (j == i) continue;
      auto found = recovery::CommittedAmong((*out)[j].wal_dir, owners);
      if (found.ok()) elsewhere.insert(found->begin(), found->end());
    }
    for (auto& c : (*out)[i].copies) {
      for (auto& g : c.gaps) g.committed_elsewhere = g.xid && elsewhere.count(*g.xid);
    }
  }
  return true;
}

bool Closable(const recovery::CounterGap& g, bool cluster, bool finalize) {
  if (g.committed_elsewhere) return false;
  switch (g.fate) {
    case recovery::GapFate::kRolledBack: return true;
    case recovery::GapFate::kPrepared: return cluster || finalize;
    case recovery::GapFate::kNoOwner: return finalize;
    case recovery::GapFate::kUnknown:
    case recovery::GapFate::kCommitted: return false;
  }
  return false;
}

std::string GapText(const recovery::CounterGap& g) {
  std::string s = fmt::format("{}..{} ({} counter{})", g.first, g.last, g.last - g.first + 1, g.last == g.first ? "" : "s");
  if (g.xid) s += fmt::format(" tx {} {}", g.xid->ToString(), recovery::GapFateName(g.fate));
  else s += " no-owner";
  if (g.committed_elsewhere) s += " (committed on another node)";
  return s;
}

}  // namespace

int RunGaps(const GapsOptions& o, Output& output) {
  auto inputs = ResolveWalInputs({o.dir});
  if (!inputs.ok()) {
    output.Error("{}", inputs.status().message());
    return kExitUnreadable;
  }
  for (const auto& in : inputs->nodes) {
    if (in.wal_dir.empty()) {
      output.Error("gaps needs node WAL directories, not single segment files");
      return kExitUsage;
    }
  }
  const bool cluster = inputs->nodes.size() > 1 || inputs->cluster.has_value();
  std::vector<recovery::NodeGaps> nodes;
  int code = kExitOk;
  if (!Scan(inputs->nodes, cluster, output, &nodes, &code)) return code;
  bool damaged = false;
  for (const auto& n : nodes) {
    for (const auto& e : n.errors) output.Error("{}", e);
    damaged |= !n.errors.empty();
  }
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  // What --close writes goes to stdout, or with --json to stderr, so that stdout stays
  // one JSON document.
  fmt::memory_buffer written;
  auto wt = std::back_inserter(written);
  if (o.close && damaged) {
    // A damaged WAL may hide the COMMITTED record that makes a gap elsewhere unclosable.
    output.Error("not closing any gap: a WAL of this directory is damaged");
  } else if (o.close) {
    for (const auto& n : nodes) {
      // Each node's records are on disk before the next node's are written: stopping
      // here leaves every WAL whole.
      if (o.stop != nullptr && o.stop->load()) {
        output.Error("interrupted: the nodes before {} are closed, the others untouched", n.node);
        output.err->Write(std::string_view(written.data(), written.size()));
        return kExitInterrupted;
      }
      std::vector<wal::RollbackRecord> records;
      for (const auto& c : n.copies) {
        for (const auto& g : c.gaps) {
          if (Closable(g, cluster, o.finalize)) records.push_back({c.cache, c.partition, g.first - 1, g.last - g.first + 1});
        }
      }
      if (records.empty()) continue;
      if (!n.errors.empty()) {
        output.Error("{}: not closing gaps in a damaged WAL", n.node);
        continue;
      }
      if (o.dry_run) {
        for (const auto& r : records) {
          fmt::format_to(wt, "{} would write ROLLBACK_TX_RECORD cache {} part {} start {} range {}\n", n.node, r.cache_id,
                         r.partition, r.start, r.range);
        }
        continue;
      }
      wal::WriterOptions wo;
      wo.fsync = true;
      auto w = wal::WalWriter::OpenForAppend(n.wal_dir, wo);
      if (!w.ok()) {
        output.Error("{}: {}", n.node, w.status().message());
        return kExitUnreadable;
      }
      std::vector<wal::Pointer> at;
      for (const auto& r : records) {
        auto p = (*w)->Append(r);
        if (!p.ok()) {
          output.Error("{}: {}", n.node, p.status().message());
          return kExitUnreadable;
        }
        at.push_back(*p);
      }
      // Reported only once they are on disk.
      wal::Status s = (*w)->Sync();
      if (s.ok()) s = (*w)->Close();
      if (!s.ok()) {
        output.Error("{}: {}", n.node, s.message());
        return kExitUnreadable;
      }
      for (size_t k = 0; k < records.size(); ++k) {
        const auto& r = records[k];
        fmt::format_to(wt, "{} wrote ROLLBACK_TX_RECORD at {} cache {} part {} start {} range {}\n", n.node,
                       at[k].ToString(), r.cache_id, r.partition, r.start, r.range);
      }
    }
    if (!o.dry_run && !Scan(inputs->nodes, cluster, output, &nodes, &code)) return code;
  }
  size_t open = 0, with = 0, copies = 0;
  for (const auto& n : nodes) {
    for (const auto& c : n.copies) {
      ++copies;
      open += c.gaps.size();
      with += !c.gaps.empty();
    }
  }
  if (o.quiet) {
  } else if (o.json) {
    fmt::format_to(it, "{{\"schema\":1,\"open_gaps\":{},\"nodes\":[", open);
    for (size_t i = 0; i < nodes.size(); ++i) {
      fmt::format_to(it, "{}{{\"node\":", i ? "," : "");
      AppendJsonString(&b, nodes[i].node);
      fmt::format_to(it, ",\"torn_tail\":{},\"partitions\":[", nodes[i].torn_tail);
      for (size_t k = 0; k < nodes[i].copies.size(); ++k) {
        const auto& c = nodes[i].copies[k];
        fmt::format_to(it, "{}{{\"cache\":{},\"partition\":{},\"lwm\":{},\"hwm\":{},\"gaps\":[", k ? "," : "", c.cache,
                       c.partition, c.lwm, c.hwm);
        for (size_t g = 0; g < c.gaps.size(); ++g) fmt::format_to(it, "{}[{},{}]", g ? "," : "", c.gaps[g].first, c.gaps[g].last);
        fmt::format_to(it, "],\"owners\":[");
        for (size_t g = 0; g < c.gaps.size(); ++g) {
          const auto& gp = c.gaps[g];
          fmt::format_to(it, "{}{{\"first\":{},\"last\":{},\"tx\":{},\"fate\":\"{}\",\"committed_elsewhere\":{}}}", g ? "," : "",
                         gp.first, gp.last, gp.xid ? fmt::format("\"{}\"", gp.xid->ToString()) : "null",
                         recovery::GapFateName(gp.fate), gp.committed_elsewhere);
        }
        fmt::format_to(it, "]}}");
      }
      fmt::format_to(it, "]}}");
    }
    fmt::format_to(it, "]}}\n");
  } else if (!o.quiet) {
    for (const auto& n : nodes) {
      for (const auto& c : n.copies) {
        if (c.gaps.empty()) continue;
        fmt::format_to(it, "{} cache {} partition {} lwm {} hwm {}: {} gap(s)\n", n.node, c.cache, c.partition, c.lwm, c.hwm,
                       c.gaps.size());
        for (const auto& g : c.gaps) fmt::format_to(it, "  {}\n", GapText(g));
      }
    }
    fmt::format_to(it, "{} partition copies on {} node(s): {} with gaps, {} open gap(s)\n", copies, nodes.size(), with, open);
  }
  if (o.quiet) {
  } else if (o.json) {
    output.err->Write(std::string_view(written.data(), written.size()));
  } else {
    output.out->Write(std::string_view(written.data(), written.size()));
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  if (damaged) return kExitProblems;
  return open > 0 ? kExitProblems : kExitOk;
}

}  // namespace tools
