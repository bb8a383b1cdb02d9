// The light views of walcut's own TX and DATA payloads (record.h), and the entry cursor
// for both formats.
#include "libwal/coding.h"
#include "libwal/record.h"
#include "libwal/record_rules.h"

namespace wal {

// The views walk the bytes with one bounds check per step instead of a Decoder's per
// field; what they accept is what the decoders accept (a unit test and the fuzz target
// hold them to it).
bool ViewTx(std::string_view payload, TxView* r) {
  constexpr size_t kFixed = 1 + 1 + kTxIdSize + 4 + 8 + 2;
  const char* p = payload.data();
  const char* const end = p + payload.size();
  if (payload.size() < kFixed) return false;
  const auto state = static_cast<uint8_t>(p[0]);
  if (state != 2 && state != 5 && state != 7 && state != 8) return false;
  r->state = static_cast<TxState>(state);
  r->format = SegmentFormat::kWalcut;
  r->write_version = TxId{};
  r->flags = static_cast<uint8_t>(p[1]);
  if ((r->flags & ~kTxKnownFlags) != 0) return false;
  r->xid = TxId{DecodeFixed32(p + 2), DecodeFixed32(p + 6), DecodeFixed64(p + 10)};
  r->topology_version = DecodeFixed32(p + 18);
  r->timestamp = DecodeFixed64(p + 22);
  r->participant_count = DecodeFixed16(p + 30);
  p += kFixed;
  const char* const participants = p;
  for (uint32_t i = 0; i < r->participant_count; ++i) {
    if (end - p < 4) return false;
    const size_t backups = size_t{DecodeFixed16(p + 2)} * 2;
    p += 4;
    if (static_cast<size_t>(end - p) < backups) return false;
    p += backups;
  }
  r->participants = std::string_view(participants, static_cast<size_t>(p - participants));
  if (end - p < 2) return false;
  r->counter_count = DecodeFixed16(p);
  p += 2;
  if (static_cast<size_t>(end - p) != size_t{r->counter_count} * 24) return false;
  r->counters = std::string_view(p, static_cast<size_t>(end - p));
  for (const char* c = p; c < end; c += 24) {
    if (!SoundRange(DecodeFixed64(c + 8), DecodeFixed64(c + 16))) return false;
  }
  return true;
}

bool ViewData(std::string_view payload, DataView* r) {
  constexpr size_t kFixed = 4 + 4 + 8 + 1 + 1 + 2 * kTxIdSize;
  const char* p = payload.data();
  const char* const end = p + payload.size();
  if (payload.size() < 12) return false;
  r->format = SegmentFormat::kWalcut;
  r->timestamp = DecodeFixed64(p);
  r->count = DecodeFixed32(p + 8);
  p += 12;
  r->entries = std::string_view(p, static_cast<size_t>(end - p));
  for (uint32_t i = 0; i < r->count; ++i) {
    if (static_cast<size_t>(end - p) < kFixed + 4) return false;
    const auto op = static_cast<uint8_t>(p[16]);
    const auto flags = static_cast<uint8_t>(p[17]);
    if (!SoundCounter(DecodeFixed64(p + 8)) || op < 1 || op > 3 || (flags & ~kEntryFlagPrimary) != 0) return false;
    p += kFixed;
    const size_t key = DecodeFixed32(p);
    p += 4;
    if (static_cast<size_t>(end - p) < key + 4) return false;
    p += key;
    const size_t value = DecodeFixed32(p);
    p += 4;
    if (static_cast<size_t>(end - p) < value) return false;
    p += value;
  }
  return p == end;
}

bool DataEntryCursor::Next(DataEntry* e) {
  if (left_ == 0) return false;
  if (ignite_) return NextIgnite(e);
  --left_;
  const char* p = p_;
  e->cache_id = DecodeFixed32(p);
  e->partition = DecodeFixed32(p + 4);
  e->counter = DecodeFixed64(p + 8);
  e->op = static_cast<EntryOp>(p[16]);
  e->flags = static_cast<uint8_t>(p[17]);
  e->xid = TxId{DecodeFixed32(p + 18), DecodeFixed32(p + 22), DecodeFixed64(p + 26)};
  e->write_version = TxId{DecodeFixed32(p + 34), DecodeFixed32(p + 38), DecodeFixed64(p + 42)};
  p += 50;
  const uint32_t nk = DecodeFixed32(p);
  e->key = std::string_view(p + 4, nk);
  p += 4 + nk;
  const uint32_t nv = DecodeFixed32(p);
  e->value = std::string_view(p + 4, nv);
  p_ = p + 4 + nv;
  e->key_type = 0;
  e->value_type = 0;
  e->value_null = false;
  e->expire_time = 0;
  return true;
}

}  // namespace wal
