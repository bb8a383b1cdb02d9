#include "app/cut_diff.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "libcut/commit_place.h"
#include "libwal/cache_object.h"
#include "libwal/segment_format.h"
#include "libwal/wal_reader.h"
#include "recovery/restore.h"

namespace app {
namespace {

cut::Side SideIn(const CutOn& c, const wal::TxId& x, const wal::Pointer& commit) {
  return cut::SideOfCommit(
      cut::RegionOf(commit, c.start, c.finish), [&] { return c.before.count(x) != 0; },
      [&] { return c.after.count(x) != 0; });
}

}  // namespace

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
  cut::CommitPlacer placer;  // where the format places a commit at its entries (Apache Ignite's)
  bool placing = false;
  const wal::Record* r = nullptr;
  while (reader->Next(&r)) {
    if (to < r->ptr) break;
    const auto& d = r->decoded;
    const wal::FormatRules& rules = wal::RulesOf(r->format);
    const bool placed = rules.commit_placed_at_entries;
    placing |= placed;
    if (r->type == static_cast<uint8_t>(wal::RecordType::kData)) {
      for (const auto& e : d.data.entries) {
        if (e.xid.IsNull()) continue;
        Key k{e.cache_id, e.partition,
              rules.cache_object_keys ? wal::CacheObjectText(e.key_type, e.key) : std::string(e.key)};
        pending[e.xid].push_back(std::move(k));
        if (placed) placer.OnWrite(e.xid, r->ptr);
      }
    } else if (placed && cut::CommitPlacer::IsCutRecord(r->type)) {
      placer.OnCutRecord(r->ptr);
    } else if (r->type == static_cast<uint8_t>(wal::RecordType::kTx)) {
      const auto& t = d.tx;
      if (t.state == wal::TxState::kRolledBack) {
        pending.erase(t.xid);
        if (placed) placer.Forget(t.xid);
      }
      if (!cut::IsCommit(t.state)) continue;
      const wal::Pointer at = placed ? placer.Place(t.xid, r->ptr) : r->ptr;
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
  // Where commits are placed at their entries (Apache Ignite's): a transaction whose entries
  // precede the later Finish record and whose COMMITTED record follows it is placed by its
  // last entry, as restore places it.
  if (placing) {
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

}  // namespace app
