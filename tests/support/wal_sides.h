// Test support: read back, from a node's WAL alone, every cut's records and the side
// (Before/After) of each committed transaction, by the seed rules:
//   Before = committed before Start and not in `after`, or between Start and Finish and
//            in `before`; After = everything else.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "libwal/wal_reader.h"

namespace testing_support {

struct CutOnNode {
  wal::Pointer start{UINT64_MAX, 0};
  wal::Pointer finish{UINT64_MAX, 0};
  bool has_start = false, has_finish = false;
  std::set<wal::TxId> before, after;
};

struct NodeWal {
  std::map<wal::Uuid, CutOnNode> cuts;
  std::vector<wal::Uuid> cut_order;
  std::vector<std::pair<wal::TxId, wal::Pointer>> commits;  // every COMMITTED TxRecord
  size_t errors = 0;

  // true = Before.
  bool Side(const wal::Uuid& cut, const wal::TxId& xid, const wal::Pointer& at) const {
    const CutOnNode& c = cuts.at(cut);
    if (at < c.start) return c.after.count(xid) == 0;
    if (at < c.finish) return c.before.count(xid) != 0;
    return false;
  }
};

inline NodeWal ReadNodeWal(const std::string& wal_dir) {
  NodeWal out;
  auto reader = wal::WalReader::OpenDirectory(wal_dir, {}, [&](const wal::Issue& i) {
    if (i.IsError()) ++out.errors;
  });
  if (!reader.ok()) {
    ++out.errors;
    return out;
  }
  const wal::Record* r = nullptr;
  while ((*reader)->Next(&r)) {
    const auto& a = r->decoded;
    switch (static_cast<wal::RecordType>(r->type)) {
      case wal::RecordType::kCutStart: {
        auto& c = out.cuts[a.cut_start.cut_id];
        if (!c.has_start) out.cut_order.push_back(a.cut_start.cut_id);
        c.has_start = true;
        c.start = r->ptr;
        break;
      }
      case wal::RecordType::kCutFinish: {
        auto& c = out.cuts[a.cut_finish.cut_id];
        c.has_finish = true;
        c.finish = r->ptr;
        c.before.insert(a.cut_finish.before.begin(), a.cut_finish.before.end());
        c.after.insert(a.cut_finish.after.begin(), a.cut_finish.after.end());
        break;
      }
      case wal::RecordType::kTx:
        if (a.tx.state == wal::TxState::kCommitted) out.commits.emplace_back(a.tx.xid, r->ptr);
        break;
      default: break;
    }
  }
  return out;
}

}  // namespace testing_support
