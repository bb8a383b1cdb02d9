// Test support: read a whole WAL stream and keep what came out.
#pragma once

#include <string>
#include <vector>

#include "libwal/wal_reader.h"

namespace testing_support {

struct ReadRecord {
  wal::Pointer ptr;
  uint8_t type = 0;
  std::string payload;
  bool operator==(const ReadRecord&) const = default;
};

struct ReadResult {
  std::vector<ReadRecord> records;
  std::vector<wal::Issue> issues;

  size_t Count(wal::IssueKind kind) const {
    size_t n = 0;
    for (const auto& i : issues) n += i.kind == kind;
    return n;
  }
  size_t Errors() const {
    size_t n = 0;
    for (const auto& i : issues) n += i.IsError();
    return n;
  }
};

inline ReadResult ReadAll(std::vector<wal::SegmentFile> files, wal::ReaderOptions options = {}) {
  ReadResult out;
  auto reader =
      wal::WalReader::OpenFiles(std::move(files), options, [&](const wal::Issue& i) { out.issues.push_back(i); });
  const wal::Record* r = nullptr;
  while (reader->Next(&r)) out.records.push_back({r->ptr, r->type, std::string(r->payload)});
  return out;
}

}  // namespace testing_support
