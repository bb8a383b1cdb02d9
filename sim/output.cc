// What a run writes: base and full snapshots, the truth files, data/ and cluster.json.
#include "sim/cluster.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "libcut/cluster_file.h"
#include "recovery/partition_file.h"
#include "recovery/snapshot_file.h"

namespace sim {

// The initial load (a data streamer's CREATE records, no transactions) and the full
// snapshot `base`, taken with no transaction in flight.
Status Cluster::WriteBaseSnapshot() {
  for (uint32_t s : servers_) {
    Node& n = nodes_[s];
    std::vector<std::vector<uint32_t>> by_part(c_.partitions);
    for (uint32_t a = 0; a < c_.accounts; ++a) {
      if (n.parts[key_partition_[a]].held) by_part[key_partition_[a]].push_back(a);
    }
    const std::string value = fmt::format("{}", c_.balance);
    for (uint32_t p = 0; p < c_.partitions; ++p) {
      if (!n.parts[p].held) continue;
      wal::DataRecord d;
      uint64_t counter = 0;
      for (uint32_t a : by_part[p]) {
        wal::DataEntry e;
        e.cache_id = kCacheId;
        e.partition = p;
        e.counter = ++counter;
        e.op = wal::EntryOp::kCreate;
        e.flags = PrimaryOf(p) == s ? wal::kEntryFlagPrimary : 0;
        e.write_version = TxId{1, n.order, 0};
        e.key = key_name_[a];
        e.value = value;
        d.entries.push_back(e);
        n.balance[a] = c_.balance;
        n.key_counter[a] = counter;
      }
      if (!d.entries.empty()) Log(s, d);
      n.parts[p].tracker = recovery::CounterTracker(counter, counter);
    }
    WAL_RETURN_IF_ERROR(WriteSnapshot(s, "base"));
  }
  return status_;
}

// What server `s` holds of partition `p` now, as a partition file.
recovery::PartitionFile Cluster::PartitionFileOf(uint32_t s, uint32_t p) const {
  const Node& n = nodes_[s];
  recovery::PartitionFile pf;
  pf.cache_id = kCacheId;
  pf.partition = p;
  pf.lwm = n.parts[p].tracker.lwm();
  pf.hwm = n.parts[p].tracker.hwm();
  for (uint32_t a = 0; a < c_.accounts; ++a) {
    if (key_partition_[a] != p || n.open[a] == 0) continue;
    pf.entries.push_back({key_name_[a], fmt::format("{}", n.balance[a]), n.key_counter[a]});
  }
  std::sort(pf.entries.begin(), pf.entries.end(), [](const auto& x, const auto& y) { return x.key < y.key; });
  return pf;
}

// A full snapshot on server `s`, taken with no transaction in flight: its partition
// files, then the ClusterSnapshotRecord, then snapshot.json pointing at the record.
Status Cluster::WriteSnapshot(uint32_t s, const std::string& name) {
  Node& n = nodes_[s];
  std::string dir = c_.out_dir + "/" + n.name + "/snapshots/" + name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(fmt::format("cannot create \"{}\": {}", dir, ec.message()));
  for (uint32_t p = 0; p < c_.partitions; ++p) {
    if (!n.parts[p].held) continue;
    WAL_RETURN_IF_ERROR(recovery::WritePartitionFile(dir, PartitionFileOf(s, p), c_.fsync));
  }
  auto ptr = n.wal->Append(wal::ClusterSnapshotRecord{now_, name});
  if (!ptr.ok()) return ptr.status();
  n.last_record = *ptr;
  n.last_record_finishes = {};
  WAL_RETURN_IF_ERROR(n.wal->Flush());
  recovery::SnapshotMeta meta{name, n.name, *ptr, topver_, now_};
  return wal::WriteFileAtomically(dir + "/" + recovery::kSnapshotFileName, recovery::EncodeSnapshotFile(meta),
                                  c_.fsync);
}

// The cluster is idle after a server left: every survivor takes a new full snapshot, and
// later cuts are increments of it.
void Cluster::TakeSnapshot() {
  quiescing_ = false;
  const std::string name = fmt::format("snap-{}", ++snapshots_);
  for (uint32_t s : servers_) {
    if (nodes_[s].alive) Check(WriteSnapshot(s, name));
  }
  Resume();
}

void Cluster::WriteTruthTx(const Tx& t, const char* outcome) {
  if (!truth_txs_) return;
  nlohmann::ordered_json j;
  j["tx"] = t.xid.ToString();
  j["near"] = nodes_[t.near].name;
  j["outcome"] = outcome;
  j["order"] = outcome_seq_;
  j["one_phase"] = t.one_phase;
  if (t.recovered) j["recovered"] = true;
  j["stamp"] = t.stamp.IsNil() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.stamp.ToString());
  auto& keys = j["keys"] = nlohmann::ordered_json::array();
  for (uint32_t a : t.accounts) keys.push_back(key_name_[a]);
  auto& parts = j["participants"] = nlohmann::ordered_json::array();
  for (const auto& g : t.groups) {
    nlohmann::ordered_json pj;
    pj["primary"] = nodes_[g.primary].name;
    auto& bj = pj["backups"] = nlohmann::ordered_json::array();
    for (uint32_t b : g.backups) bj.push_back(nodes_[b].name);
    parts.push_back(pj);
  }
  *truth_txs_ << j.dump() << '\n';
}

Status Cluster::Finish() {
  for (uint32_t s : servers_) {
    Node& n = nodes_[s];
    if (!n.alive) {
      // A crashed node keeps its WAL and snapshots; its memory is gone.
      summary_.nodes.push_back({n.name, n.wal->records_written(), n.wal->bytes_written()});
      continue;
    }
    std::string dir = c_.out_dir + "/" + n.name + "/data";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Status::IoError(fmt::format("cannot create \"{}\": {}", dir, ec.message()));
    for (uint32_t p = 0; p < c_.partitions; ++p) {
      if (!n.parts[p].held) continue;
      WAL_RETURN_IF_ERROR(recovery::WritePartitionFile(dir, PartitionFileOf(s, p), c_.fsync));
    }
    WAL_RETURN_IF_ERROR(n.wal->Close());
    NodeSummary ns;
    ns.name = n.name;
    ns.records = n.wal->records_written();
    ns.bytes = n.wal->bytes_written();
    summary_.nodes.push_back(ns);
    const cut::CutStats& st = n.cm->stats();
    auto& sum = summary_.classification;
    sum.cuts_started += st.cuts_started;
    sum.cuts_finished += st.cuts_finished;
    sum.cuts_failed += st.cuts_failed;
    sum.watched += st.watched;
    sum.before += st.before;
    sum.after_by_stamp += st.after_by_stamp;
    sum.after_by_topology += st.after_by_topology;
    sum.rolled_back += st.rolled_back;
    sum.committed_in_start_step += st.committed_in_start_step;
  }
  // What the WALs say: a cut is complete when every server of its topology wrote Finish.
  summary_.cuts_consistent = 0;
  for (const auto& r : cuts_) summary_.cuts_consistent += r.finish_records == r.baseline;
  if (truth_txs_) {
    truth_txs_->close();
    if (!*truth_txs_) return Status::IoError("cannot write truth/transactions.jsonl");
    nlohmann::ordered_json cuts = nlohmann::ordered_json::array();
    for (const auto& r : cuts_) {
      nlohmann::ordered_json j;
      j["id"] = r.id.ToString();
      j["topology_version"] = r.topver;
      j["initiated_at"] = r.initiated_at;
      j["verdict"] = r.finish_records == r.baseline ? "complete" : !r.done ? "unfinished" : "failed";
      j["reason"] = r.reason;
      j["finished_nodes"] = r.finished_nodes;
      cuts.push_back(j);
    }
    nlohmann::ordered_json doc;
    doc["schema"] = 1;
    doc["cuts"] = cuts;
    WAL_RETURN_IF_ERROR(wal::WriteFileAtomically(c_.out_dir + "/truth/cuts.json", doc.dump(2) + "\n", c_.fsync));
  }
  return WriteClusterJson();
}

Status Cluster::WriteClusterJson() {
  cut::ClusterInfo info;
  info.seed = std::to_string(c_.seed);
  for (const auto& n : nodes_) {
    if (!n.joined) continue;  // a join that never happened
    cut::ClusterNode cn{n.name, n.server, n.id, n.order, n.joined_topver, std::nullopt};
    if (n.left_topver != 0) cn.left_version = n.left_topver;
    info.nodes.push_back(std::move(cn));
  }
  info.caches.push_back({kCacheId, "accounts", c_.partitions, c_.backups, false, {}});
  info.accounts = c_.accounts;
  info.initial_balance = c_.balance;
  for (const auto& tv : topologies_) {
    cut::TopologyInfo t;
    t.version = tv.version;
    t.event = tv.event;
    for (uint32_t s : tv.servers) t.servers.push_back(nodes_[s].name);
    for (uint32_t k : tv.clients) t.clients.push_back(nodes_[k].name);
    for (const auto& a : tv.assignment) {
      std::vector<std::string> row;
      for (uint32_t n : a) row.push_back(nodes_[n].name);
      t.assignment.push_back(std::move(row));
    }
    info.versions.push_back(std::move(t));
  }
  return wal::WriteFileAtomically(c_.out_dir + "/" + cut::kClusterFileName, cut::EncodeClusterFile(info), c_.fsync);
}

}  // namespace sim
