#include "tools/txs_printer.h"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "tools/record_format.h"

namespace tools {
namespace {

const char* StateName(const std::optional<wal::TxState>& s) { return s ? wal::TxStateName(*s) : "missing"; }

}  // namespace

TxsPrinter::TxsPrinter(const TxsOptions& o, const std::vector<cut::NodeTxs>& nodes,
                       const std::vector<cut::NodeIndex>& indexes, const std::optional<cut::ClusterInfo>& cluster,
                       const cut::ClusterReport& report)
    : o_(o), nodes_(nodes), indexes_(indexes), sides_(SidesByNode(indexes, report)) {
  // Node names by order: servers from their WAL headers, clients from cluster.json.
  for (const auto& n : indexes) names_[n.order] = n.node;
  if (cluster) {
    for (const auto& n : cluster->nodes) names_[n.order] = n.name;
  }
  for (size_t i = 0; i < indexes.size(); ++i) {
    const uint16_t order = indexes[i].order;
    if (index_of_order_.size() <= order) index_of_order_.resize(size_t{order} + 1, kNoNode);
    index_of_order_[order] = static_cast<uint32_t>(i);
    node_text_.push_back(fmt::format("  {:<10} ", indexes[i].node));
  }
  for (size_t k = 0; k + 1 < state_text_.size(); ++k) {
    state_text_[k] = fmt::format("{:<11}", wal::TxStateName(static_cast<wal::TxState>(k)));
  }
  state_text_.back() = fmt::format("{:<11}", StateName(std::nullopt));
}

std::string TxsPrinter::Head() const { return o_.quiet || !o_.json ? "" : R"({"schema":1,"txs":[)"; }

std::string TxsPrinter::Tail(size_t shown) const {
  if (o_.quiet) return "";
  return o_.json ? "]}\n" : fmt::format("{} transaction(s)\n", shown);
}

size_t TxsPrinter::IdBytes() const {
  size_t bytes = 0;
  for (const NodeSides& n : sides_) {
    bytes += 256;
    for (const NodeCut& c : n.cuts()) {
      bytes += (o_.json ? c.json : c.text)[static_cast<size_t>(cut::Side::kBefore)].size();
    }
  }
  return bytes;
}

std::string TxsPrinter::NameOf(uint16_t order) const {
  auto it = names_.find(order);
  return it != names_.end() ? it->second : fmt::format("order-{}", order);
}

// Every participant the row's TX_RECORD names gets a place in row.nodes, null when its
// WAL has no record of the transaction.
void TxsPrinter::AddParticipants(Row& row) const {
  if (row.naming == nullptr) return;
  const uint16_t* p = row.named_by->participants.data() + row.naming->participants_begin;
  const size_t had = row.nodes.size();
  auto add = [&](uint16_t order) {
    if (order >= index_of_order_.size() || index_of_order_[order] == kNoNode) return;
    const size_t ix = index_of_order_[order];
    for (size_t k = 0; k < row.nodes.size(); ++k) {
      if (row.nodes[k].first == ix) return;
    }
    row.nodes.emplace_back(ix, nullptr);
  };
  for (uint16_t g = 0; g < row.naming->participants_count; ++g) {
    add(*p++);
    const uint16_t backups = *p++;
    for (uint16_t k = 0; k < backups; ++k) add(*p++);
  }
  if (row.nodes.size() != had) std::sort(row.nodes.begin(), row.nodes.end());
}

// "primary[backup,backup] primary[...]".
std::string TxsPrinter::ParticipantsText(const Row& row) const {
  std::string text;
  if (row.naming == nullptr) return text;
  const uint16_t* p = row.named_by->participants.data() + row.naming->participants_begin;
  for (uint16_t g = 0; g < row.naming->participants_count; ++g) {
    const uint16_t primary = *p++;
    const uint16_t backups = *p++;
    if (!text.empty()) text += ' ';
    text += NameOf(primary);
    text += '[';
    for (uint16_t k = 0; k < backups; ++k, ++p) {
      if (k != 0) text += ',';
      text += NameOf(*p);
    }
    text += ']';
  }
  return text;
}

bool TxsPrinter::Print(Row& row, RowsText& out) const {
  AddParticipants(row);
  auto state_of = [](const cut::TxOnNode* on) { return on != nullptr ? on->state() : std::nullopt; };
  bool some_committed = false, some_not = false, some_open = false;
  for (const auto& [i, on] : row.nodes) {
    const auto s = state_of(on);
    some_committed |= s == wal::TxState::kCommitted;
    some_not |= s != wal::TxState::kCommitted;
    some_open |= s == wal::TxState::kPrepared || s == wal::TxState::kUnknown;
  }
  const bool in_doubt = some_committed ? some_not : some_open;
  if (o_.in_doubt && !in_doubt) return false;
  if (o_.state && std::none_of(row.nodes.begin(), row.nodes.end(), [&](const auto& kv) {
        const std::string s = StateName(state_of(kv.second));
        return std::equal(s.begin(), s.end(), o_.state->begin(), o_.state->end(),
                          [](char x, char y) { return std::tolower(x) == std::tolower(y); });
      })) {
    return false;
  }
  if (o_.quiet) return true;
  const std::string participants = ParticipantsText(row);
  const std::string near = NameOf(static_cast<uint16_t>(row.xid.node_order));
  if (o_.json) {
    out.j.BeginObject().Field("tx", row.xid.ToString()).Field("near", near).Field("participants", participants);
    out.j.Field("in_doubt", in_doubt).Key("nodes").BeginArray();
  } else {
    // A near node none of the WALs read is named by its order, in words; participants that
    // the TX_RECORD does not name (Ignite's compact ids) are left out.
    const bool named = names_.count(static_cast<uint16_t>(row.xid.node_order)) != 0;
    fmt::format_to(std::back_inserter(out.b), "tx {} near {}{}{}{}\n", row.xid.ToString(),
                   named ? near : fmt::format("a node not read (order {})", row.xid.node_order),
                   participants.empty() ? "" : " participants ", participants, in_doubt ? " IN DOUBT" : "");
  }
  for (const auto& [i, on] : row.nodes) NodeLine(i, on, row.xid, out);
  if (o_.json) out.j.EndArray().EndObject();
  return true;
}

// Node `i`'s line of a transaction: its state, commits, writes and its side of each cut.
void TxsPrinter::NodeLine(size_t i, const cut::TxOnNode* on, const wal::TxId& xid, RowsText& out) const {
  const cut::NodeTxs& n = nodes_[i];
  const std::string& node = indexes_[i].node;
  static const cut::TxOnNode kNone;
  const cut::TxOnNode& t = on != nullptr ? *on : kNone;
  const wal::Pointer* commits = n.commits.data() + t.commits_begin;
  const cut::PartitionCounter* writes = n.writes.data() + t.writes_begin;
  if (o_.json) {
    JsonWriter& j = out.j;
    j.BeginObject().Field("node", node).Field("state", StateName(on != nullptr ? on->state() : std::nullopt));
    j.Key("commits").BeginArray();
    for (uint32_t c = 0; c < t.commits_count; ++c) {
      const fmt::format_int segment(commits[c].segment), offset(commits[c].offset);
      char text[48];  // "SEG:OFF", as Pointer::ToString gives it
      char* end = std::copy(segment.data(), segment.data() + segment.size(), text);
      *end++ = ':';
      end = std::copy(offset.data(), offset.data() + offset.size(), end);
      j.String({text, static_cast<size_t>(end - text)});
    }
    j.EndArray().Key("commit_ts").BeginArray();
    for (uint32_t c = 0; c < t.commits_count; ++c) j.Uint(n.commit_ts[t.commits_begin + c]);
    j.EndArray().Key("writes").BeginArray();
    for (uint32_t w = 0; w < t.writes_count; ++w) {
      j.BeginObject().Field("partition", writes[w].partition).Field("counter", writes[w].counter).EndObject();
    }
    j.EndArray().Key("sides").BeginObject();
    if (t.commits_count != 0) {
      sides_[i].AppendSides(xid, commits[0], true, [&j](std::string_view members) { j.Members(members); });
    }
    j.EndObject().EndObject();
    return;
  }
  // Appended straight to the buffer: a full table is mostly these lines.
  fmt::memory_buffer& b = out.b;
  const size_t begin = b.size();
  out.Append(node_text_[i]);
  size_t state = state_text_.size() - 1;  // missing
  if (on != nullptr && on->has_record()) state = static_cast<size_t>(*on->state());
  out.Append(state_text_[state]);
  auto pair = [&out](uint64_t x, uint64_t y) {
    const fmt::format_int fx(x), fy(y);
    out.Append({fx.data(), fx.size()});
    out.b.push_back(':');
    out.Append({fy.data(), fy.size()});
  };
  for (uint32_t c = 0; c < t.commits_count; ++c) {
    out.Append(c == 0 ? " at " : ",");
    pair(commits[c].segment, commits[c].offset);
  }
  if (t.commits_count != 0 && n.commit_ts[t.commits_begin] != 0) {  // the first commit's time
    out.Append(" ts ");
    fmt::memory_buffer when;
    AppendTime(&when, n.commit_ts[t.commits_begin]);
    out.Append({when.data(), when.size()});
  }
  for (uint32_t w = 0; w < t.writes_count; ++w) {
    out.Append(w == 0 ? " writes " : ",");
    pair(writes[w].partition, writes[w].counter);
  }
  if (t.commits_count != 0) {
    sides_[i].AppendSides(xid, commits[0], false, [&out](std::string_view text) { out.Append(text); });
  }
  size_t end = b.size();
  while (end > begin && b[end - 1] == ' ') --end;  // a line never ends in spaces
  b.resize(end);
  b.push_back('\n');
}

}  // namespace tools
