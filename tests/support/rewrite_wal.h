// Test support: rewrite a node's WAL record by record with libwal (checksums valid),
// letting a test change, drop or duplicate records, the way a buggy node would have
// written them.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "libwal/segment_file.h"
#include "libwal/wal_reader.h"
#include "libwal/wal_writer.h"

namespace testing_support {

// `edit` gets each decoded record (not headers or switches) and returns the records to
// write in its place: none drops it, two duplicate it or add another after it.
inline bool RewriteWalRecords(const std::string& wal_dir,
                              const std::function<std::vector<wal::AnyRecord>(const wal::AnyRecord&)>& edit) {
  namespace fs = std::filesystem;
  std::string tmp = wal_dir + ".rewrite";
  fs::remove_all(tmp);
  auto reader = wal::WalReader::OpenDirectory(wal_dir, {}, nullptr);
  if (!reader.ok()) return false;
  std::unique_ptr<wal::WalWriter> writer;
  wal::WriterOptions wo;
  wo.segment_size = 1 << 30;
  const wal::Record* r = nullptr;
  // Records point into the reader's mapping; keep copies of the strings we re-encode.
  while ((*reader)->Next(&r)) {
    if (r->type == static_cast<uint8_t>(wal::RecordType::kHeader)) {
      if (!writer) {
        auto w = wal::WalWriter::Create(tmp, r->decoded.header.node_id, r->decoded.header.node_order, wo);
        if (!w.ok()) return false;
        writer = std::move(w).value();
      }
      continue;
    }
    if (r->type == static_cast<uint8_t>(wal::RecordType::kSwitchSegment)) continue;
    for (const wal::AnyRecord& a : edit(r->decoded)) {
      wal::Status s;
      switch (static_cast<wal::RecordType>(a.type)) {
        case wal::RecordType::kTx: s = writer->Append(a.tx).status(); break;
        case wal::RecordType::kData: s = writer->Append(a.data).status(); break;
        case wal::RecordType::kRollback: s = writer->Append(a.rollback).status(); break;
        case wal::RecordType::kClusterSnapshot: s = writer->Append(a.snapshot).status(); break;
        case wal::RecordType::kCutStart: s = writer->Append(a.cut_start).status(); break;
        case wal::RecordType::kCutFinish: s = writer->Append(a.cut_finish).status(); break;
        default: break;
      }
      if (!s.ok()) return false;
    }
  }
  if (!writer || !writer->Close().ok()) return false;
  reader->reset();
  fs::remove_all(wal_dir);
  fs::rename(tmp, wal_dir);
  return true;
}

// `edit` gets each decoded record (not headers or switches) and returns how many times
// to write it: 0 drops it, 2 duplicates it. It may change the record.
inline bool RewriteWal(const std::string& wal_dir, const std::function<int(wal::AnyRecord&)>& edit) {
  return RewriteWalRecords(wal_dir, [&](const wal::AnyRecord& r) {
    wal::AnyRecord a = r;
    return std::vector<wal::AnyRecord>(static_cast<size_t>(std::max(0, edit(a))), a);
  });
}

}  // namespace testing_support
