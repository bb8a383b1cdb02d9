#include "tools/diff.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "app/inputs.h"
#include "libcut/commit_place.h"
#include "libcut/side.h"
#include "libwal/cache_object.h"
#include "libwal/ignite_record.h"
#include "libwal/wal_reader.h"
#include "recovery/restore.h"
#include "tools/cut_sources.h"
#include "tools/escape.h"
#include "tools/json_writer.h"

namespace tools {
namespace {

// A key written by a transaction: its cache and partition, and its bytes (Apache
// Ignite's: as text, the cache object as dump prints it without binary metadata).
struct Key {
  uint32_t cache = 0;
  uint32_t partition = 0;
  std::string bytes;
  auto operator<=>(const Key&) const = default;
};

// A transaction whose side differs between the two cuts.
struct Changed {
  cut::Side a = cut::Side::kAfter, b = cut::Side::kAfter;
  std::set<std::string> nodes;
  std::set<Key> keys;
};

// One cut's records and sets on a node.
struct CutOn {
  wal::Pointer start, finish;
  std::unordered_set<wal::TxId, wal::TxIdHash> before, after;
};

cut::Side SideIn(const CutOn& c, const wal::TxId& x, const wal::Pointer& commit) {
  return cut::SideOfCommit(
      cut::RegionOf(commit, c.start, c.finish), [&] { return c.before.count(x) != 0; },
      [&] { return c.after.count(x) != 0; });
}

const char* SideName(cut::Side s) { return s == cut::Side::kBefore ? "Before" : "After"; }

// Reads the node's WAL from its base snapshot's record to the later Finish record, and
// records each transaction whose first commit there is on a different side of the two
// cuts, with the keys it wrote.
wal::Status DiffNode(const cut::NodeIndex& n, const wal::WalLocation& wal_dir, const std::string& base, const CutOn& a,
                     const CutOn& b, std::map<wal::TxId, Changed>* out) {
  const wal::Pointer to = std::max(a.finish, b.finish);
  wal::Pointer from{};
  for (const auto& s : n.snapshots) {
    if (s.name == base && !(std::min(a.start, b.start) < s.at)) from = s.at;
  }
  for (size_t e = 0; e < n.read_errors.size() && e < n.read_error_at.size(); ++e) {
    if (!(n.read_error_at[e] < from) && !(to < n.read_error_at[e])) {
      return wal::Status::Corruption(fmt::format("{}: the WAL range {} to {} is damaged: {}", n.node, from.ToString(),
                                                 to.ToString(), n.read_errors[e]));
    }
  }
  auto range = recovery::SegmentsOfRange(n.node, wal_dir, from, to);
  if (!range.ok()) return range.status();
  wal::ReaderOptions ro;
  ro.from = from;
  std::string damage;  // the first problem met in the range (a torn tail at its end is none)
  auto reader = wal::WalReader::OpenFiles(*range, ro, [&](const wal::Issue& issue) {
    if (damage.empty() && issue.kind != wal::IssueKind::kTornTail) damage = issue.ToString();
  });
  std::unordered_map<wal::TxId, std::vector<Key>, wal::TxIdHash> pending;  // writes of open transactions
  std::unordered_set<wal::TxId, wal::TxIdHash> decided;                    // committed here already
  cut::CommitPlacer placer;                                                // Apache Ignite's WALs only
  bool ignite_wal = false;
  const wal::Record* r = nullptr;
  while (reader->Next(&r)) {
    if (to < r->ptr) break;
    const auto& d = r->decoded;
    const bool ignite = wal::IsIgnite(r->format);
    ignite_wal |= ignite;
    if (r->type == static_cast<uint8_t>(wal::RecordType::kData) && (!ignite || wal::IsDecodedIgniteType(r->type))) {
      for (const auto& e : d.data.entries) {
        if (e.xid.IsNull()) continue;
        Key k{e.cache_id, e.partition, ignite ? wal::CacheObjectText(e.key_type, e.key) : std::string(e.key)};
        pending[e.xid].push_back(std::move(k));
        if (ignite) placer.OnWrite(e.xid, r->ptr);
      }
    } else if (ignite && cut::CommitPlacer::IsCutRecord(r->type)) {
      placer.OnCutRecord(r->ptr);
    } else if (r->type == static_cast<uint8_t>(wal::RecordType::kTx)) {
      const auto& t = d.tx;
      if (t.state == wal::TxState::kRolledBack) {
        pending.erase(t.xid);
        if (ignite) placer.Forget(t.xid);
      }
      if (!cut::IsCommit(t.state)) continue;
      const wal::Pointer at = ignite ? placer.Place(t.xid, r->ptr) : r->ptr;
      auto it = pending.find(t.xid);
      if (decided.insert(t.xid).second) {
        const cut::Side sa = SideIn(a, t.xid, at), sb = SideIn(b, t.xid, at);
        if (sa != sb) {
          Changed& c = (*out)[t.xid];
          c.a = sa;
          c.b = sb;
          c.nodes.insert(n.node);
          if (it != pending.end()) c.keys.insert(it->second.begin(), it->second.end());
        }
      }
      if (it != pending.end()) pending.erase(it);
    }
  }
  if (!damage.empty()) return wal::Status::Corruption(fmt::format("{}: {}", n.node, damage));
  // Apache Ignite's: a transaction whose entries precede the later Finish record and whose
  // COMMITTED record follows it is placed by its last entry, as restore places it.
  if (ignite_wal) {
    placer.OnCutRecord(to);
    for (const auto& [x, keys] : pending) {
      if (!decided.insert(x).second) continue;
      const wal::Pointer at = placer.Place(x, to);
      const cut::Side sa = SideIn(a, x, at), sb = SideIn(b, x, at);
      if (sa == sb) continue;
      Changed& c = (*out)[x];
      c.a = sa;
      c.b = sb;
      c.nodes.insert(n.node);
      c.keys.insert(keys.begin(), keys.end());
    }
  }
  return wal::Status::Ok();
}

void AppendKeyText(const Key& k, bool ignite, fmt::memory_buffer* b) {
  fmt::format_to(std::back_inserter(*b), "{}/{}:", k.cache, k.partition);
  if (ignite) {
    b->append(k.bytes);
  } else {
    AppendQuoted(b, k.bytes);
  }
}

}  // namespace

int RunDiff(const DiffOptions& o, Output& output) {
  WalCheck how;
  how.keep_sets = true;
  how.progress = "finding the cuts";
  DirCuts found;
  int code = kExitOk;
  if (!CheckDir(o.dir, how, output, &found, &code)) return code;
  const app::WalInputs& inputs = found.inputs;
  const std::vector<cut::NodeIndex>& indexes = found.indexes;
  const cut::ClusterReport& report = found.report;
  PrintNodeProblems(report, output);
  size_t ia = 0, ib = 0;
  if (!SelectCut(report, o.a, output, &ia, &code) || !SelectCut(report, o.b, output, &ib, &code)) return code;
  const cut::CutReport& ca = report.cuts[ia];
  const cut::CutReport& cb = report.cuts[ib];
  for (const auto* c : {&ca, &cb}) {
    if (c->status != cut::CutStatus::kConsistent) {
      output.Error("cut {} is {}: only consistent cuts have one side on every node ({})", c->id.ToString(),
                   cut::CutStatusName(c->status), c->reason);
      return kExitProblems;
    }
  }
  if (ca.base != cb.base) {
    output.Error(
        "cut {} is an increment of \"{}\" and cut {} of \"{}\": diff compares increments of one base "
        "snapshot",
        ca.id.ToString(), ca.base, cb.id.ToString(), cb.base);
    return kExitProblems;
  }
  const bool ignite = std::any_of(inputs.nodes.begin(), inputs.nodes.end(), app::IsIgniteInput);
  std::map<wal::TxId, Changed> changed;
  for (size_t i = 0; i < indexes.size(); ++i) {
    const cut::NodeIndex& n = indexes[i];
    const cut::CutOnNode* a = cut::FindCut(n, ca.id);
    const cut::CutOnNode* b = cut::FindCut(n, cb.id);
    if (a == nullptr && b == nullptr) continue;  // not in the cuts' baseline
    if (a == nullptr || b == nullptr || !a->has_start || !a->has_finish || !b->has_start || !b->has_finish) {
      output.Error("{} lacks the records of cut {}", n.node, (a == nullptr || !a->has_finish ? ca : cb).id.ToString());
      return kExitProblems;
    }
    CutOn oa{a->start, a->finish, {a->before.begin(), a->before.end()}, {a->after.begin(), a->after.end()}};
    CutOn ob{b->start, b->finish, {b->before.begin(), b->before.end()}, {b->after.begin(), b->after.end()}};
    if (wal::Status s = DiffNode(n, inputs.nodes[i].wal_dir, ca.base, oa, ob, &changed); !s.ok()) {
      output.Error("refusing to diff: {}", s.message());
      return ExitCodeOf(s, Step::kRefusal);
    }
  }
  if (o.quiet) return kExitOk;
  std::set<Key> keys;
  size_t only_a = 0, only_b = 0;
  for (const auto& [x, c] : changed) {
    keys.insert(c.keys.begin(), c.keys.end());
    (c.a == cut::Side::kBefore ? only_a : only_b) += 1;
  }
  fmt::memory_buffer b;
  auto cut_json = [](JsonWriter& j, const char* key, const cut::CutReport& c) {
    j.Key(key).BeginObject().Field("cut", c.id.ToString()).Field("increment", c.increment.value_or(0));
    j.Field("base", c.base).Field("finish_ts", c.finish_ts).EndObject();
  };
  if (o.json) {
    JsonWriter j(&b);
    j.BeginObject().Field("schema", 1);
    cut_json(j, "a", ca);
    cut_json(j, "b", cb);
    j.Field("before_in_a_only", only_a).Field("before_in_b_only", only_b).Field("keys", keys.size());
    j.Key("transactions").BeginArray();
    for (const auto& [x, c] : changed) {
      j.BeginObject().Field("tx", x.ToString()).Field("a", SideName(c.a)).Field("b", SideName(c.b));
      j.Key("nodes").BeginArray();
      for (const auto& node : c.nodes) j.String(node);
      j.EndArray().Key("keys").BeginArray();
      for (const auto& k : c.keys) {
        j.BeginObject().Field("cache", k.cache).Field("partition", k.partition).Field("key", k.bytes).EndObject();
      }
      j.EndArray().EndObject();
    }
    j.EndArray().EndObject();
    b.push_back('\n');
  } else {
    auto it = std::back_inserter(b);
    fmt::format_to(it, "a: cut {} (increment {} of \"{}\")\nb: cut {} (increment {} of \"{}\")\n", ca.id.ToString(),
                   ca.increment.value_or(0), ca.base, cb.id.ToString(), cb.increment.value_or(0), cb.base);
    fmt::format_to(it, "{} transaction(s) differ: {} Before in b only, {} Before in a only; {} key(s)\n",
                   changed.size(), only_b, only_a, keys.size());
    for (const auto& [x, c] : changed) {
      fmt::format_to(it, "  {} {} in a, {} in b (", x.ToString(), SideName(c.a), SideName(c.b));
      bool first = true;
      for (const auto& node : c.nodes) {
        fmt::format_to(it, "{}{}", first ? "" : ", ", node);
        first = false;
      }
      fmt::format_to(it, ")");
      first = true;
      for (const auto& k : c.keys) {
        fmt::format_to(it, "{}", first ? ": " : ", ");
        AppendKeyText(k, ignite, &b);
        first = false;
      }
      b.push_back('\n');
    }
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return kExitOk;
}

}  // namespace tools
