#include "tools/restore.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <thread>

#include "libwal/segment_file.h"
#include "libwal/wal_writer.h"
#include "recovery/restore.h"
#include "recovery/verify.h"
#include "tools/cut_sources.h"
#include "tools/escape.h"

namespace tools {
namespace fs = std::filesystem;

namespace {

// The cut the options name, among the report's cuts.
bool ChooseCut(const RestoreOptions& o, const cut::ClusterReport& report, Output& output, size_t* index,
               int* code) {
  if (o.cut) return SelectCut(report, *o.cut, output, index, code);
  std::optional<size_t> found;
  std::string latest_base;
  for (const auto& c : report.cuts) {
    if (c.status == cut::CutStatus::kConsistent) latest_base = c.base;
  }
  for (size_t i = 0; i < report.cuts.size(); ++i) {
    const auto& c = report.cuts[i];
    if (c.status != cut::CutStatus::kConsistent) continue;
    if (o.increment && c.increment == o.increment && c.base == latest_base) found = i;
    if (o.latest) found = i;
    if (o.time && static_cast<double>(c.finish_ts) / 1e9 <= *o.time) found = i;
  }
  if (!found) {
    if (o.increment) output.Error("no consistent cut is increment {}", *o.increment);
    else if (o.time) output.Error("no consistent cut finished at or before {} s", *o.time);
    else output.Error("no consistent cut to restore");
    output.Hint("\"walcut cuts DIR\" lists the cuts and their statuses");
    *code = kExitProblems;
    return false;
  }
  *index = *found;
  return true;
}

std::string Slurp(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int RunRestore(const RestoreOptions& o, Output& output) {
  std::vector<cut::NodeIndex> indexes;
  std::optional<cut::ClusterInfo> cluster;
  int code = kExitOk;
  if (!LoadIndexesFromWal({o.dir}, output, &indexes, &cluster, &code)) return code;
  cut::ClusterReport report = cut::CheckCluster(indexes, cluster ? &*cluster : nullptr);
  PrintNodeProblems(report, output);
  size_t chosen = 0;
  if (!ChooseCut(o, report, output, &chosen, &code)) return code;
  const auto& rows = report.cuts[chosen].nodes;
  for (const auto& want : o.nodes) {
    if (std::none_of(indexes.begin(), indexes.end(), [&](const cut::NodeIndex& n) { return n.node == want; })) {
      output.Error("no node \"{}\" in \"{}\"", want, o.dir);
      return kExitUsage;
    }
    if (std::none_of(rows.begin(), rows.end(), [&](const cut::CutNodeRow& r) { return r.node == want; })) {
      output.Error("--node {}: it takes no part in cut {} (it does not hold its base snapshot \"{}\")", want,
                   report.cuts[chosen].id.ToString(), report.cuts[chosen].base);
      return kExitUsage;
    }
  }
  auto plan = recovery::PlanRestore(o.dir, indexes, report, chosen, o.nodes);
  if (!plan.ok()) {
    output.Error("refusing to restore: {}", plan.status().message());
    return plan.status().code() == wal::StatusCode::kIoError ? kExitUnreadable : kExitProblems;
  }
  if (o.dry_run && o.json) {
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    fmt::format_to(it, "{{\"schema\":1,\"dry_run\":true,\"cut\":\"{}\",\"increment\":{},\"base\":", plan->cut.ToString(),
                   plan->increment);
    AppendJsonString(&b, plan->base);
    fmt::format_to(it, ",\"nodes\":[");
    for (size_t i = 0; i < plan->nodes.size(); ++i) {
      const auto& n = plan->nodes[i];
      fmt::format_to(it, "{}{{\"node\":", i ? "," : "");
      AppendJsonString(&b, n.node);
      fmt::format_to(it, ",\"base\":");
      AppendJsonString(&b, n.base_dir);
      fmt::format_to(it, ",\"from\":\"{}\",\"start\":\"{}\",\"finish\":\"{}\",\"before\":{},\"after\":{}}}",
                     n.from.ToString(), n.start.ToString(), n.finish.ToString(), n.before.size(), n.after.size());
    }
    fmt::format_to(it, "]}}\n");
    output.out->Write(std::string_view(b.data(), b.size()));
    return kExitOk;
  }
  if (o.dry_run) {
    if (o.quiet) return kExitOk;
    std::string t = fmt::format("restore plan: cut {}, increment {} of \"{}\"\n", plan->cut.ToString(),
                                plan->increment, plan->base);
    for (const auto& n : plan->nodes) {
      t += fmt::format("  {:<12} base {} from {} to {} (Start {}), apply what committed before Start except {} "
                       "listed After, and {} listed Before after it\n",
                       n.node, n.base_dir, n.from.ToString(), n.finish.ToString(), n.start.ToString(),
                       n.after.size(), n.before.size());
    }
    output.out->Write(t);
    return kExitOk;
  }
  std::error_code ec;
  if (fs::exists(o.out, ec) && !(fs::is_directory(o.out, ec) && fs::is_empty(o.out, ec))) {
    output.Error("output \"{}\" exists and is not an empty directory", o.out);
    return kExitUsage;
  }
  // Everything goes under OUT.partial and is renamed when complete: an interrupted
  // restore never leaves output that looks complete, and a rerun starts over.
  const std::string partial = o.out + ".partial";
  fs::remove_all(partial, ec);
  fs::create_directories(partial, ec);
  if (ec) {
    output.Error("cannot create \"{}\": {}", partial, ec.message());
    return kExitUnreadable;
  }
  std::vector<wal::Result<recovery::NodeResult>> results(plan->nodes.size(), wal::Status::Internal("not run"));
  std::mutex mu;
  std::map<std::string, uint64_t> done_bytes;
  // What each node has to replay, from the sizes of the segments in its range (compressed
  // segments count by their file size, so this is an estimate).
  uint64_t total_bytes = 0;
  for (const auto& n : plan->nodes) {
    auto files = wal::ListSegments(n.node_dir + "/wal");
    if (!files.ok()) continue;
    for (const auto& f : *files) {
      if (f.index < n.from.segment || f.index > n.finish.segment) continue;
      uint64_t size = fs::file_size(f.path, ec);
      if (f.index == n.finish.segment) size = std::min<uint64_t>(size, n.finish.offset);
      if (f.index == n.from.segment) size -= std::min<uint64_t>(size, n.from.offset);
      total_bytes += size;
    }
  }
  const auto started = std::chrono::steady_clock::now();
  auto last_report = started;
  auto progress = [&](const std::string& node, uint64_t bytes) {
    if (!output.err_is_terminal || o.quiet) return;
    std::lock_guard<std::mutex> lock(mu);
    done_bytes[node] = bytes;
    auto now = std::chrono::steady_clock::now();
    if (now - last_report < std::chrono::milliseconds(200)) return;
    last_report = now;
    uint64_t total = 0;
    std::string line = "\rrestoring:";
    for (const auto& [n, b] : done_bytes) {
      line += fmt::format(" {} {} MiB", n, b >> 20);
      total += b;
    }
    double secs = std::chrono::duration<double>(now - started).count();
    line += fmt::format(" (total {} of ~{} MiB", total >> 20, total_bytes >> 20);
    if (total > 0 && total < total_bytes && secs > 0.5) {
      line += fmt::format(", ~{:.0f} s left", secs * static_cast<double>(total_bytes - total) / static_cast<double>(total));
    }
    line += ")   ";
    output.err->Write(line);
  };
  unsigned jobs = o.jobs != 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (unsigned j = 0; j < std::min<size_t>(jobs, plan->nodes.size()); ++j) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < plan->nodes.size(); i = next++) {
        results[i] = recovery::RestoreNode(plan->nodes[i], progress);
      }
    });
  }
  for (auto& w : workers) w.join();
  if (output.err_is_terminal && !o.quiet) output.err->Write("\n");
  fmt::memory_buffer manifest;
  auto it = std::back_inserter(manifest);
  fmt::format_to(it, "{{\n  \"schema\": 1,\n  \"cut\": \"{}\",\n  \"increment\": {},\n  \"base\": ", plan->cut.ToString(),
                 plan->increment);
  AppendJsonString(&manifest, plan->base);
  fmt::format_to(it, ",\n  \"topology_version\": {},\n  \"finish_ts\": {},\n  \"nodes\": [", plan->topology_version,
                 plan->finish_ts);
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) {
      output.Error("restore of {} failed: {}", plan->nodes[i].node, results[i].status().message());
      fs::remove_all(partial, ec);
      return results[i].status().code() == wal::StatusCode::kIoError ? kExitUnreadable : kExitProblems;
    }
    const recovery::NodeResult& r = *results[i];
    std::string data = partial + "/" + r.node + "/data";
    fs::create_directories(data, ec);
    fmt::format_to(it, "{}\n    {{\"node\": ", i ? "," : "");
    AppendJsonString(&manifest, r.node);
    fmt::format_to(it, ", \"read_from\": \"{}\", \"read_to\": \"{}\", \"txs_applied\": {}, "
                       "\"txs_skipped\": {}, \"entries\": {}, \"rollbacks_applied\": {}, \"gaps_closed\": {}, \"files\": [",
                   r.read_from.ToString(), r.read_to.ToString(), r.txs_applied, r.txs_skipped,
                   r.entries, r.rollbacks_applied, r.gaps_closed);
    for (size_t k = 0; k < r.partitions.size(); ++k) {
      const auto& pf = r.partitions[k];
      std::string bytes = recovery::EncodePartitionFile(pf);
      wal::Status s = wal::WriteFileAtomically(data + "/" + recovery::PartitionFileName(pf.cache_id, pf.partition), bytes);
      if (!s.ok()) {
        output.Error("{}", s.message());
        fs::remove_all(partial, ec);
        return kExitUnreadable;
      }
      fmt::format_to(it, "{}{{\"file\": \"{}\", \"checksum\": \"0x{:016x}\", \"counter\": {}, \"hash\": \"0x{:016x}\"}}",
                     k ? ", " : "", recovery::PartitionFileName(pf.cache_id, pf.partition), recovery::FileChecksum(bytes),
                     pf.lwm, recovery::ContentHash(pf));
    }
    fmt::format_to(it, "]}}");
  }
  fmt::format_to(it, "\n  ]\n}}\n");
  bool have_cluster = false;
  std::string cluster_json = Slurp(o.dir + "/cluster.json", &have_cluster);
  wal::Status s = have_cluster ? wal::WriteFileAtomically(partial + "/cluster.json", cluster_json)
                               : wal::Status::IoError(fmt::format("cannot read \"{}/cluster.json\"", o.dir));
  if (s.ok()) s = wal::WriteFileAtomically(partial + "/restore.json", fmt::to_string(manifest));
  if (s.ok() && fs::exists(o.out, ec)) fs::remove(o.out, ec);
  if (s.ok()) {
    fs::rename(partial, o.out, ec);
    if (ec) s = wal::Status::IoError(fmt::format("cannot rename \"{}\": {}", partial, ec.message()));
  }
  if (!s.ok()) {
    output.Error("{}", s.message());
    fs::remove_all(partial, ec);
    return kExitUnreadable;
  }
  if (o.quiet) return kExitOk;
  fmt::memory_buffer b;
  auto bi = std::back_inserter(b);
  if (o.json) {
    fmt::format_to(bi, "{{\"schema\":1,\"cut\":\"{}\",\"increment\":{},\"base\":", plan->cut.ToString(), plan->increment);
    AppendJsonString(&b, plan->base);
    fmt::format_to(bi, ",\"output\":");
    AppendJsonString(&b, o.out);
    fmt::format_to(bi, ",\"nodes\":[");
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& r = *results[i];
      fmt::format_to(bi, "{}{{\"node\":", i ? "," : "");
      AppendJsonString(&b, r.node);
      fmt::format_to(bi, ",\"txs_applied\":{},\"txs_skipped\":{},\"entries\":{},\"partitions\":{},\"gaps_closed\":{}}}",
                     r.txs_applied, r.txs_skipped, r.entries, r.partitions.size(), r.gaps_closed);
    }
    fmt::format_to(bi, "]}}\n");
  } else {
    fmt::format_to(bi, "restored cut {} (increment {} of \"{}\") into {}\n", plan->cut.ToString(), plan->increment,
                   plan->base, o.out);
    for (const auto& res : results) {
      const auto& r = *res;
      fmt::format_to(bi, "  {:<12} {} transactions applied, {} skipped, {} entries, {} partitions, {} gaps closed\n",
                     r.node, r.txs_applied, r.txs_skipped, r.entries, r.partitions.size(), r.gaps_closed);
    }
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return kExitOk;
}

int RunVerify(const VerifyOptions& o, Output& output) {
  auto report = recovery::VerifyDirectory(o.dir);
  if (!report.ok()) {
    output.Error("{}", report.status().message());
    return kExitUnreadable;
  }
  const auto& r = *report;
  if (!o.quiet) {
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    if (o.json) {
      fmt::format_to(it, "{{\"schema\":1,\"ok\":{},\"restored\":{},\"partitions\":{},\"files\":{},\"conflicts\":[",
                     r.conflicts.empty(), r.restored, r.partitions, r.files);
      for (size_t i = 0; i < r.conflicts.size(); ++i) {
        const auto& c = r.conflicts[i];
        fmt::format_to(it, "{}{{\"kind\":\"{}\",\"cache\":{},\"partition\":{},\"nodes\":[", i ? "," : "", c.kind, c.cache,
                       c.partition);
        for (size_t k = 0; k < c.nodes.size(); ++k) {
          if (k) b.push_back(',');
          AppendJsonString(&b, c.nodes[k]);
        }
        fmt::format_to(it, "],\"detail\":");
        AppendJsonString(&b, c.detail);
        b.push_back('}');
      }
      fmt::format_to(it, "]}}\n");
    } else {
      for (const auto& c : r.conflicts) {
        std::string nodes;
        for (const auto& n : c.nodes) nodes += (nodes.empty() ? "" : ",") + n;
        fmt::format_to(it, "conflict {} cache {} partition {} [{}]: {}\n", c.kind, c.cache, c.partition, nodes, c.detail);
      }
      fmt::format_to(it, "{} partitions in {} files{}: {}\n", r.partitions, r.files,
                     r.restored ? " (checked against restore.json)" : "",
                     r.conflicts.empty() ? "all copies agree" : fmt::format("{} conflict(s)", r.conflicts.size()));
    }
    output.out->Write(std::string_view(b.data(), b.size()));
  }
  return r.conflicts.empty() ? kExitOk : kExitProblems;
}

}  // namespace tools
