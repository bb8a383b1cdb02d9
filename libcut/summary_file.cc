#include "libcut/summary_file.h"

#include "libcut/tx_table.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cut {
namespace {

using Json = nlohmann::ordered_json;

wal::Pointer ParsePtr(const Json& j) {
  auto p = wal::Pointer::Parse(j.get<std::string>());
  if (!p) throw std::runtime_error("bad pointer " + j.get<std::string>());
  return *p;
}

wal::TxId ParseTx(const Json& j) {
  auto t = wal::TxId::Parse(j.get<std::string>());
  if (!t) throw std::runtime_error("bad transaction id " + j.get<std::string>());
  return *t;
}

Json TxList(const std::vector<wal::TxId>& v) {
  Json a = Json::array();
  for (const auto& t : v) a.push_back(t.ToString());
  return a;
}

}  // namespace

std::string EncodeSummary(const NodeIndex& n) {
  Json j;
  j["schema"] = 1;
  j["kind"] = "walcut-node-summary";
  j["node"] = n.node;
  j["node_id"] = n.node_id.ToString();
  j["order"] = n.order;
  j["end"] = n.end.ToString();
  j["records"] = n.records;
  j["begin"] = n.begin.ToString();
  j["last_ts"] = n.last_ts;
  j["read_errors"] = n.read_errors;
  Json snaps = Json::array();
  for (const auto& s : n.snapshots) snaps.push_back({{"name", s.name}, {"at", s.at.ToString()}, {"timestamp", s.timestamp}});
  j["snapshots"] = snaps;
  Json cuts = Json::array();
  for (const auto& c : n.cuts) {
    Json cj;
    cj["id"] = c.id.ToString();
    cj["start"] = c.has_start ? Json(c.start.ToString()) : Json(nullptr);
    cj["finish"] = c.has_finish ? Json(c.finish.ToString()) : Json(nullptr);
    cj["topology_version"] = c.topology_version;
    cj["start_ts"] = c.start_ts;
    cj["finish_ts"] = c.finish_ts;
    cj["base"] = c.base;
    cj["before"] = TxList(c.before);
    cj["after"] = TxList(c.after);
    Json txs = Json::array();
    size_t next = 0;  // in c.participants, which follows the order of c.txs
    for (size_t k = 0; k < c.txs.size(); ++k) {
      const auto& t = c.txs[k];
      std::vector<uint16_t> nodes;
      while (next < c.participants.size() && c.participants[next].tx < k) ++next;
      if (next < c.participants.size() && c.participants[next].tx == k) nodes = c.participants[next].nodes;
      txs.push_back(Json::array({t.xid.ToString(), t.side == Side::kBefore ? "B" : "A", t.commit.ToString(), nodes}));
    }
    cj["txs"] = txs;
    Json probs = Json::array();
    for (const auto& p : c.problems) {
      probs.push_back({{"kind", p.kind}, {"tx", p.xid.IsNull() ? Json(nullptr) : Json(p.xid.ToString())},
                       {"at", p.at.ToString()}, {"detail", p.detail}});
    }
    cj["problems"] = probs;
    cj["unverifiable"] = c.unverifiable ? Json(*c.unverifiable) : Json(nullptr);
    cuts.push_back(cj);
  }
  j["cuts"] = cuts;
  // Names and paths are bytes, not always UTF-8: replace what JSON cannot carry.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

wal::Result<NodeIndex> DecodeSummary(const std::string& text, const std::string& origin) {
  auto j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return wal::Status::Corruption(fmt::format("\"{}\": not JSON", origin));
  try {
    if (j.value("kind", "") != "walcut-node-summary" || j.value("schema", 0) != 1) {
      return wal::Status::Corruption(fmt::format("\"{}\": not a walcut node summary (schema 1)", origin));
    }
    NodeIndex n;
    n.node = j.at("node").get<std::string>();
    auto id = wal::Uuid::Parse(j.at("node_id").get<std::string>());
    if (id) n.node_id = *id;
    n.order = j.at("order").get<uint16_t>();
    n.end = ParsePtr(j.at("end"));
    n.records = j.at("records").get<uint64_t>();
    // Absent from the summaries of earlier versions: unknown, so never "before" anything.
    n.begin = j.contains("begin") ? ParsePtr(j.at("begin")) : wal::Pointer{};
    n.last_ts = j.contains("last_ts") ? j.at("last_ts").get<uint64_t>() : UINT64_MAX;
    n.read_errors = j.at("read_errors").get<std::vector<std::string>>();
    for (const auto& s : j.at("snapshots")) {
      n.snapshots.push_back({s.at("name").get<std::string>(), ParsePtr(s.at("at")), s.at("timestamp").get<uint64_t>()});
    }
    for (const auto& cj : j.at("cuts")) {
      CutOnNode c;
      auto cid = wal::Uuid::Parse(cj.at("id").get<std::string>());
      if (!cid) throw std::runtime_error("bad cut id");
      c.id = *cid;
      c.has_start = !cj.at("start").is_null();
      if (c.has_start) c.start = ParsePtr(cj.at("start"));
      c.has_finish = !cj.at("finish").is_null();
      if (c.has_finish) c.finish = ParsePtr(cj.at("finish"));
      c.topology_version = cj.at("topology_version").get<uint32_t>();
      c.start_ts = cj.at("start_ts").get<uint64_t>();
      c.finish_ts = cj.at("finish_ts").get<uint64_t>();
      c.base = cj.at("base").get<std::string>();
      for (const auto& t : cj.at("before")) c.before.push_back(ParseTx(t));
      for (const auto& t : cj.at("after")) c.after.push_back(ParseTx(t));
      for (const auto& t : cj.at("txs")) {
        TxSide s;
        s.xid = ParseTx(t.at(0));
        s.side = t.at(1).get<std::string>() == "B" ? Side::kBefore : Side::kAfter;
        s.commit = ParsePtr(t.at(2));
        s.hash = HashTxId(s.xid);
        auto nodes = t.at(3).get<std::vector<uint16_t>>();
        if (!nodes.empty()) c.participants.push_back({static_cast<uint32_t>(c.txs.size()), std::move(nodes)});
        c.txs.push_back(s);
      }
      for (const auto& p : cj.at("problems")) {
        LocalProblem lp;
        lp.kind = p.at("kind").get<std::string>();
        if (!p.at("tx").is_null()) lp.xid = ParseTx(p.at("tx"));
        lp.at = ParsePtr(p.at("at"));
        lp.detail = p.at("detail").get<std::string>();
        c.problems.push_back(std::move(lp));
      }
      if (!cj.at("unverifiable").is_null()) c.unverifiable = cj.at("unverifiable").get<std::string>();
      n.cuts.push_back(std::move(c));
    }
    return n;
  } catch (const std::exception& e) {
    return wal::Status::Corruption(fmt::format("\"{}\": malformed summary: {}", origin, e.what()));
  }
}

}  // namespace cut
