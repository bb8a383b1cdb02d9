#include "tools/diff.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "app/cut_diff.h"
#include "app/inputs.h"
#include "libcut/side.h"
#include "tools/cut_sources.h"
#include "tools/escape.h"
#include "tools/json_writer.h"

namespace tools {
namespace {

const char* SideName(cut::Side s) { return s == cut::Side::kBefore ? "Before" : "After"; }

void AppendKeyText(const app::Key& k, bool ignite, fmt::memory_buffer* b) {
  fmt::format_to(std::back_inserter(*b), "{}/{}:", k.cache, k.partition);
  if (ignite) {
    b->append(k.bytes);
  } else {
    AppendQuoted(b, k.bytes);
  }
}

}  // namespace

int RunDiff(const DiffOptions& o, Output& output) {
  WalCheck how;
  how.keep_sets = true;
  how.progress = "finding the cuts";
  DirCuts found;
  int code = kExitOk;
  if (!CheckDir(o.dir, how, output, &found, &code)) return code;
  const app::WalInputs& inputs = found.inputs;
  const std::vector<cut::NodeIndex>& indexes = found.indexes;
  const cut::ClusterReport& report = found.report;
  PrintNodeProblems(report, output);
  size_t ia = 0, ib = 0;
  if (!SelectCut(report, o.a, output, &ia, &code) || !SelectCut(report, o.b, output, &ib, &code)) return code;
  const cut::CutReport& ca = report.cuts[ia];
  const cut::CutReport& cb = report.cuts[ib];
  for (const auto* c : {&ca, &cb}) {
    if (c->status != cut::CutStatus::kConsistent) {
      output.Error("cut {} is {}: only consistent cuts have one side on every node ({})", c->id.ToString(),
                   cut::CutStatusName(c->status), c->reason);
      return kExitProblems;
    }
  }
  if (ca.base != cb.base) {
    output.Error(
        "cut {} is an increment of \"{}\" and cut {} of \"{}\": diff compares increments of one base "
        "snapshot",
        ca.id.ToString(), ca.base, cb.id.ToString(), cb.base);
    return kExitProblems;
  }
  const bool ignite = std::any_of(inputs.nodes.begin(), inputs.nodes.end(), app::IsIgniteInput);
  std::map<wal::TxId, app::Changed> changed;
  for (size_t i = 0; i < indexes.size(); ++i) {
    const cut::NodeIndex& n = indexes[i];
    const cut::CutOnNode* a = cut::FindCut(n, ca.id);
    const cut::CutOnNode* b = cut::FindCut(n, cb.id);
    if (a == nullptr && b == nullptr) continue;  // not in the cuts' baseline
    if (a == nullptr || b == nullptr || !a->has_start || !a->has_finish || !b->has_start || !b->has_finish) {
      output.Error("{} lacks the records of cut {}", n.node, (a == nullptr || !a->has_finish ? ca : cb).id.ToString());
      return kExitProblems;
    }
    app::CutOn oa{a->start, a->finish, {a->before.begin(), a->before.end()}, {a->after.begin(), a->after.end()}};
    app::CutOn ob{b->start, b->finish, {b->before.begin(), b->before.end()}, {b->after.begin(), b->after.end()}};
    if (wal::Status s = app::DiffNode(n, inputs.nodes[i].wal_dir, ca.base, oa, ob, &changed); !s.ok()) {
      output.Error("refusing to diff: {}", s.message());
      return ExitCodeOf(s, Step::kRefusal);
    }
  }
  if (o.quiet) return kExitOk;
  std::set<app::Key> keys;
  size_t only_a = 0, only_b = 0;
  for (const auto& [x, c] : changed) {
    keys.insert(c.keys.begin(), c.keys.end());
    (c.a == cut::Side::kBefore ? only_a : only_b) += 1;
  }
  fmt::memory_buffer b;
  auto cut_json = [](JsonWriter& j, const char* key, const cut::CutReport& c) {
    j.Key(key).BeginObject().Field("cut", c.id.ToString()).Field("increment", c.increment.value_or(0));
    j.Field("base", c.base).Field("finish_ts", c.finish_ts).EndObject();
  };
  if (o.json) {
    JsonWriter j(&b);
    j.BeginObject().Field("schema", 1);
    cut_json(j, "a", ca);
    cut_json(j, "b", cb);
    j.Field("before_in_a_only", only_a).Field("before_in_b_only", only_b).Field("keys", keys.size());
    j.Key("transactions").BeginArray();
    for (const auto& [x, c] : changed) {
      j.BeginObject().Field("tx", x.ToString()).Field("a", SideName(c.a)).Field("b", SideName(c.b));
      j.Key("nodes").BeginArray();
      for (const auto& node : c.nodes) j.String(node);
      j.EndArray().Key("keys").BeginArray();
      for (const auto& k : c.keys) {
        j.BeginObject().Field("cache", k.cache).Field("partition", k.partition).Field("key", k.bytes).EndObject();
      }
      j.EndArray().EndObject();
    }
    j.EndArray().EndObject();
    b.push_back('\n');
  } else {
    auto it = std::back_inserter(b);
    fmt::format_to(it, "a: cut {} (increment {} of \"{}\")\nb: cut {} (increment {} of \"{}\")\n", ca.id.ToString(),
                   ca.increment.value_or(0), ca.base, cb.id.ToString(), cb.increment.value_or(0), cb.base);
    fmt::format_to(it, "{} transaction(s) differ: {} Before in b only, {} Before in a only; {} key(s)\n",
                   changed.size(), only_b, only_a, keys.size());
    for (const auto& [x, c] : changed) {
      fmt::format_to(it, "  {} {} in a, {} in b (", x.ToString(), SideName(c.a), SideName(c.b));
      bool first = true;
      for (const auto& node : c.nodes) {
        fmt::format_to(it, "{}{}", first ? "" : ", ", node);
        first = false;
      }
      fmt::format_to(it, ")");
      first = true;
      for (const auto& k : c.keys) {
        fmt::format_to(it, "{}", first ? ": " : ", ");
        AppendKeyText(k, ignite, &b);
        first = false;
      }
      b.push_back('\n');
    }
  }
  output.out->Write(std::string_view(b.data(), b.size()));
  return kExitOk;
}

}  // namespace tools
