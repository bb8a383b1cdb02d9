// How walcut's side-file readers stop at a fault without throwing: a VarintReader keeps
// the first fault and reads zero after it (libcut/varint_codec.h), a saved reading state
// cut short anywhere is refused by its loader, and a JSON document's first fault is the
// one reported (libcut/json_doc.h), whatever its reader looked at after it.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "libcut/cluster_file.h"
#include "libcut/commit_window.h"
#include "libcut/json_doc.h"
#include "libcut/varint_codec.h"

namespace {

TEST(VarintReader, KeepsTheFirstFaultAndReadsZeroAfterIt) {
  cut::VarintWriter o;
  o.U(7);
  o.U(300);
  std::string bytes = o.s;
  bytes.pop_back();  // 300 takes two bytes: the second is gone
  cut::VarintReader in(bytes.data(), bytes.size());
  EXPECT_EQ(in.U(), 7u);
  EXPECT_TRUE(in.ok());
  EXPECT_EQ(in.U(), 0u);
  EXPECT_FALSE(in.ok());
  EXPECT_EQ(in.error(), "ends inside a number");
  EXPECT_EQ(in.U(10, "a thing"), 0u);
  EXPECT_EQ(in.Count("things"), 0u);
  EXPECT_EQ(in.Str(10, "a name"), "");
  EXPECT_EQ(in.error(), "ends inside a number");  // still the first
  EXPECT_EQ(in.left(), 0u);
}

TEST(VarintReader, AValueBeyondItsBoundIsAFault) {
  cut::VarintWriter o;
  o.U(70000);
  o.U(1);
  cut::VarintReader in(o.s.data(), o.s.size());
  EXPECT_EQ(in.U(65535, "a participant"), 0u);
  EXPECT_EQ(in.error(), "a participant 70000 is beyond 65535");
  EXPECT_EQ(in.U(), 0u);  // the reading ended at the fault
}

// A commit window saved, then loaded from every prefix of its bytes: each one is refused
// (the loader reads every field), and the whole loads.
TEST(CommitWindow, EveryCutShortStateIsRefused) {
  cut::CommitWindow w;
  for (uint32_t k = 0; k < 20; ++k) {
    wal::DataEntry e;
    e.xid = wal::TxId{1, 1, k};
    e.partition = k % 4;
    e.counter = k + 1;
    e.key = "k" + std::to_string(k);
    w.OnWrite(e);
    wal::TxView t;
    t.state = wal::TxState::kCommitted;
    t.xid = e.xid;
    w.OnCommit(t, wal::Pointer{1, 100 + k * 10});
  }
  w.Settle();
  cut::VarintWriter o;
  w.Save(o);
  for (size_t n = 0; n < o.s.size(); ++n) {
    cut::CommitWindow v;
    cut::VarintReader in(o.s.data(), n);
    v.Load(in);
    EXPECT_FALSE(in.ok()) << "a state of " << n << " of its " << o.s.size() << " bytes was taken";
  }
  cut::CommitWindow v;
  cut::VarintReader in(o.s.data(), o.s.size());
  v.Load(in);
  EXPECT_TRUE(in.ok()) << in.error();
  EXPECT_EQ(in.left(), 0u);
  EXPECT_EQ(v.size(), w.size());
}

TEST(JsonObject, TheFirstFaultIsTheDocumentsAndLaterReadsAreEmpty) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"a": "x", "list": [1, 2], "n": 5})");
  cut::JsonErrors errors;
  cut::JsonObject o(doc, "", &errors);
  EXPECT_EQ(o.Uint("n"), 5u);
  EXPECT_TRUE(errors.ok());
  EXPECT_EQ(o.Uint("a"), 0u);
  EXPECT_FALSE(errors.ok());
  EXPECT_EQ(errors.first(), "a: expected a non-negative integer, found string");
  EXPECT_TRUE(o.Array("missing").empty());
  EXPECT_EQ(o.String("missing"), "");
  EXPECT_TRUE(o.At("missing").is_null());
  const cut::JsonObject element = o.Element(doc["list"][0], "list[0]");  // not an object
  EXPECT_FALSE(element.Has("x"));
  EXPECT_EQ(errors.first(), "a: expected a non-negative integer, found string");
}

TEST(JsonObject, AnElementThatIsNotAnObjectIsNamed) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"list": [1]})");
  cut::JsonErrors errors;
  cut::JsonObject o(doc, "", &errors);
  const cut::JsonObject element = o.Element(o.Array("list")[0], "list[0]");
  EXPECT_EQ(element.Uint("x"), 0u);
  EXPECT_EQ(errors.first(), "list[0]: not an object");
}

// A cluster file with two faults: the first in reading order is the one reported.
TEST(ClusterFile, ReportsTheFirstFaultInReadingOrder) {
  const std::string text = R"({"schema": 1, "nodes": [{"name": "../x", "role": "boss", "id": "?", "order": 0,
    "joined_topology_version": 1}], "caches": [], "topology_versions": []})";
  auto info = cut::ParseClusterFile(text, "c.json");
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), wal::StatusCode::kCorruption);
  EXPECT_NE(info.status().message().find("\"c.json\": nodes[0].name: \"../x\" cannot be a node name"),
            std::string::npos)
      << info.status().message();
  auto future = cut::ParseClusterFile(R"({"schema": 2})", "c.json");
  ASSERT_FALSE(future.ok());
  EXPECT_EQ(future.status().code(), wal::StatusCode::kNotSupported);
}

}  // namespace
