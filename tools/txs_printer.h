// `walcut txs`: the table's rows, as text or JSON, from every node's transactions and
// cuts; const once made, so that several threads print ranges of rows at once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "libcut/cluster_check.h"
#include "libcut/cluster_file.h"
#include "libcut/tx_census.h"
#include "tools/json_writer.h"
#include "tools/txs.h"
#include "tools/txs_sides.h"

namespace tools {

// One transaction across the nodes: its entry on each node that has one (null where the
// node has none but is a participant), by node index.
struct Row {
  wal::TxId xid;
  std::vector<std::pair<size_t, const cut::TxOnNode*>> nodes;  // by node index
  const cut::NodeTxs* named_by = nullptr;                      // the node whose TX_RECORD gives the participants
  const cut::TxOnNode* naming = nullptr;
};

// The rows' text (or JSON) for a range of transactions, written by one thread.
struct RowsText {
  RowsText() = default;
  RowsText(const RowsText&) = delete;  // j writes into this b
  RowsText& operator=(const RowsText&) = delete;

  fmt::memory_buffer b;
  JsonWriter j{&b};
  size_t rows = 0, shown = 0;
  // Empty again, its buffer's room kept for the next range.
  void Reset() {
    b.clear();
    j = JsonWriter(&b);
    rows = shown = 0;
  }
  void Append(std::string_view text) { b.append(text.data(), text.data() + text.size()); }
};

// Prints rows; const once made, so that several threads print ranges of rows at once.
class TxsPrinter {
 public:
  // `indexes[i]`: the cut index of nodes[i].
  TxsPrinter(const TxsOptions& o, const std::vector<cut::NodeTxs>& nodes, const std::vector<cut::NodeIndex>& indexes,
             const std::optional<cut::ClusterInfo>& cluster, const cut::ClusterReport& report);
  // Prints the row into `out` if it passes the filters; false when it does not. Adds the
  // participants without a record of the transaction to row.nodes. In JSON, the rows are
  // the elements of an array `out.j` has begun.
  bool Print(Row& row, RowsText& out) const;
  // The text before the first row, and after the last.
  std::string Head() const;
  std::string Tail(size_t shown) const;
  // About what one transaction's node lines take: its sides on every node, and 256
  // bytes for the rest of each line (a transaction with many writes takes more).
  size_t IdBytes() const;

 private:
  std::string NameOf(uint16_t order) const;
  void AddParticipants(Row& row) const;
  std::string ParticipantsText(const Row& row) const;
  void NodeLine(size_t i, const cut::TxOnNode* on, const wal::TxId& xid, RowsText& out) const;

  const TxsOptions& o_;
  const std::vector<cut::NodeTxs>& nodes_;
  const std::vector<cut::NodeIndex>& indexes_;
  std::vector<NodeSides> sides_;
  std::map<uint16_t, std::string> names_;
  // The text line's start: "  <node, padded> " by node index; "<state, padded>" by
  // state ordinal, the last for "missing".
  std::vector<std::string> node_text_;
  std::array<std::string, wal::kMaxTxStateOrdinal + 2> state_text_;
  // Node order -> index in nodes_, or kNoNode: asked for every participant of every row.
  static constexpr uint32_t kNoNode = UINT32_MAX;
  std::vector<uint32_t> index_of_order_;
};

}  // namespace tools
