#include "app/record_filter.h"

#include <algorithm>

#include "libwal/cache_object.h"
#include "libwal/ignite_record.h"
#include "libwal/segment_codec.h"
#include "libwal/segment_format.h"

namespace app {

using wal::RecordType;

std::optional<uint64_t> OwnTime(const wal::Record& r) {
  const auto& a = r.decoded;
  if (!wal::CodecFor(r.format).Decodes(r.type)) return std::nullopt;  // not decoded
  const bool untimed = wal::RulesOf(r.format).cut_records_untimed;
  switch (static_cast<RecordType>(r.type)) {
    case RecordType::kTx: return a.tx.timestamp;
    case RecordType::kData: return a.data.timestamp;
    case RecordType::kClusterSnapshot: return untimed ? std::nullopt : std::optional<uint64_t>(a.snapshot.timestamp);
    case RecordType::kCutStart: return untimed ? std::nullopt : std::optional<uint64_t>(a.cut_start.timestamp);
    case RecordType::kCutFinish: return untimed ? std::nullopt : std::optional<uint64_t>(a.cut_finish.timestamp);
    default: return std::nullopt;
  }
}

RecordFilter::RecordFilter(const RecordSelection& s) : o_(s) {
  for (uint8_t t : s.types) types_[t] = true;
  any_type_ = s.types.empty();
  entry_level_ = s.tx || s.partition || s.key || !s.caches.empty();
}

bool RecordFilter::Match(const wal::Record& r, std::vector<uint32_t>* entries, bool* partial) const {
  *partial = false;
  if (!any_type_ && !types_[r.type]) return false;
  if (o_.from && r.ptr < *o_.from) return false;
  const auto& a = r.decoded;
  if (!wal::CodecFor(r.format).Decodes(r.type)) {  // not decoded: only the type and position filters apply
    return !(o_.tx || o_.partition || o_.key || o_.cut || !o_.caches.empty());
  }
  switch (static_cast<RecordType>(r.type)) {
    case RecordType::kData: {
      if (o_.cut) return false;
      if (!entry_level_) return true;
      entries->clear();
      const auto& es = a.data.entries;
      for (uint32_t i = 0; i < es.size(); ++i) {
        const auto& e = es[i];
        if (o_.tx && e.xid != *o_.tx) continue;
        if (o_.partition && e.partition != *o_.partition) continue;
        if (!CacheWanted(e.cache_id)) continue;
        if (o_.key && !KeyMatches(r, e)) continue;
        entries->push_back(i);
      }
      *partial = entries->size() != es.size();
      return !entries->empty();
    }
    case RecordType::kTx:
      if (o_.partition || o_.key || o_.cut || !o_.caches.empty()) return false;
      return !o_.tx || a.tx.xid == *o_.tx;
    case RecordType::kRollback:
      if (o_.tx || o_.key || o_.cut) return false;
      return (!o_.partition || a.rollback.partition == *o_.partition) && CacheWanted(a.rollback.cache_id);
    case RecordType::kCutStart:
      if (o_.tx || o_.partition || o_.key || !o_.caches.empty()) return false;
      return !o_.cut || a.cut_start.cut_id.ToString().starts_with(*o_.cut);
    case RecordType::kCutFinish: {
      if (o_.partition || o_.key || !o_.caches.empty()) return false;
      if (o_.cut && !a.cut_finish.cut_id.ToString().starts_with(*o_.cut)) return false;
      if (!o_.tx) return true;
      auto has = [&](const std::vector<wal::TxId>& v) { return std::find(v.begin(), v.end(), *o_.tx) != v.end(); };
      return has(a.cut_finish.before) || has(a.cut_finish.after);
    }
    default: return !(o_.tx || o_.partition || o_.key || o_.cut || !o_.caches.empty());
  }
}

bool RecordFilter::CacheWanted(uint32_t cache) const {
  return o_.caches.empty() || std::find(o_.caches.begin(), o_.caches.end(), cache) != o_.caches.end();
}

bool RecordFilter::KeyMatches(const wal::Record& r, const wal::DataEntry& e) const {
  if (e.key == *o_.key) return true;
  if (!wal::RulesOf(r.format).cache_object_keys) return false;
  // As shown (named, when the node's binary metadata knows the type), or as shown without
  // metadata.
  return wal::CacheObjectText(e.key_type, e.key, binary_types_) == *o_.key ||
         (binary_types_ != nullptr && wal::CacheObjectText(e.key_type, e.key) == *o_.key);
}

}  // namespace app
