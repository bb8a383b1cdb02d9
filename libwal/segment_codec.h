// One segment format's framing behind one small interface, so that WalReader reads
// every format with the same loop: where a frame starts and how far it reaches, parsing
// and verifying it at a position, where a lost reader may pick up again, and decoding
// its payload. Each format's end-of-data rule (what a frame that does not parse means
// at that place) is the reader's, one member per format (wal_reader_end.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libwal/frame.h"
#include "libwal/ids.h"
#include "libwal/record.h"
#include "libwal/segment_format.h"
#include "libwal/status.h"

namespace wal {

class SegmentCodec {
 public:
  virtual ~SegmentCodec() = default;
  virtual SegmentFormat format() const = 0;
  // Bytes a frame's header takes: fewer than these at a position are a short header.
  virtual size_t FrameHeaderSize() const = 0;
  // The whole size of the frame whose first bytes are p[0, avail), when they hold a
  // header whose length is sound; 0 otherwise.
  virtual uint64_t FrameExtent(const char* p, size_t avail) const = 0;
  // Whether a zero byte never begins a frame (Ignite: it is the end-of-data mark), so a
  // resync may pass over a run of zeros at once.
  virtual bool ZeroBeginsNoFrame() const { return false; }
  // Parses (and with `verify`, checks) the frame at p, whose address is `at`.
  virtual FrameStatus Parse(const char* p, size_t avail, Pointer at, bool verify, FrameView* out) const = 0;
  // Decodes a payload of `type` (walcut: DecodePayload; Ignite: DecodeIgnitePayload).
  virtual Status Decode(uint8_t type, std::string_view payload, AnyRecord* out) const = 0;
  // The light views; false when the payload would not decode.
  virtual bool ViewTx(std::string_view payload, TxView* out) const = 0;
  virtual bool ViewData(std::string_view payload, DataView* out) const = 0;
  // Whether Decode gives a record of this type (dump prints its fields).
  virtual bool Decodes(uint8_t type) const = 0;
  // The name of a type id in this format; nullptr for an id it does not have.
  virtual const char* TypeName(uint8_t type) const = 0;
};

const SegmentCodec& CodecFor(SegmentFormat format);

// A record type's name as the format of its segment has it: "UNKNOWN" when it has none.
const char* RecordTypeName(uint8_t type, SegmentFormat format);

}  // namespace wal
