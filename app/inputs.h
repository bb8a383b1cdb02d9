// Turning the PATH arguments of a command into node WAL streams: a segment file, a
// node's wal/ directory, a node directory, or a cluster directory (every server node,
// in node order); of Apache Ignite, a WAL folder, a work directory (every node folder of
// its db/wal, each read from its archive and work folders), a directory of them, or a
// snapshot directory (the WAL its increments keep, increments/*/db/wal/<folder>).
#pragma once

#include <string>
#include <vector>

#include <optional>

#include "libcut/cluster_file.h"
#include "libcut/kept_increments.h"
#include "libwal/ignite_increment_meta.h"
#include "libwal/ignite_snapshot.h"
#include "libwal/segment_file.h"
#include "libwal/status.h"

namespace app {

struct WalInput {
  std::string node;                     // node name, or "-" when it cannot be known
  wal::WalLocation wal_dir;             // set for directories
  std::vector<wal::SegmentFile> files;  // set for a single segment file
  bool ignite = false;                  // a node of an Ignite work directory (archive + work folder)
  std::string ignite_work;              // that work directory (its snapshots/ hold the increments)
  std::string ignite_snapshot;          // or the snapshot directory whose increments/ hold its WAL
  // Set by BoundToIncrement: the increment's cut, past whose Finish record a check of that
  // cut alone may stop reading (cut::NodeIndexStream::Open).
  std::optional<wal::Uuid> stop_after;
};

struct WalInputs {
  std::vector<WalInput> nodes;
  // The cluster file of the (first) cluster directory given, read and validated. Its
  // servers are all inputs, each with its wal/ directory even when that is missing:
  // a reader then reports the node as unreadable rather than leaving it out.
  std::optional<cut::ClusterInfo> cluster;
  // The cluster file was found above a node directory given on its own (c/cluster.json
  // of c/node-0): it names the nodes not given; --cluster may replace it.
  bool cluster_above = false;
};

// kNotFound / kInvalidArgument for a path that is none of these; the status of the
// cluster file when it is there but not valid.
// `cluster_above`: a node directory given on its own takes the cluster file of the
// directory above it, when there is one, as the cluster's membership (cluster_above set),
// so that the nodes not given are known (what a verdict about the cluster needs; a node's
// own listing does not).
wal::Result<WalInputs> ResolveWalInputs(const std::vector<std::string>& paths, bool cluster_above = false);

// Whether `in` is Apache Ignite's WAL (a node of a work directory, or a folder whose
// segments are Ignite's): walcut reads it and never writes into it.
bool IsIgniteInput(const WalInput& in);

// The increments the Ignite nodes of `inputs` keep (libwal/ignite_increment_meta.h):
// nothing when no node has a snapshots/ folder (or is a snapshot directory); otherwise
// every Ignite node, one without the folder with its metadata unreadable.
std::optional<std::vector<cut::NodeKept>> KeptIncrementsOf(const std::vector<WalInput>& inputs);
// One node's part of that: nothing when it is not an Ignite node; with has_metadata false
// when it has no snapshots/ folder (a summary carries it so, for the check to decide).
std::optional<cut::NodeKept> KeptIncrementsOfNode(const WalInput& in);

// Where an Ignite node's binary metadata lies (db/binary_meta/<node folder> of its work
// directory; of a snapshot directory, its own and then each increment's, in order): what
// gives binary objects their type and field names. None for other inputs.
std::vector<std::string> BinaryMetaDirsOf(const WalInput& in);

// Limits each Ignite node of `nodes` to the part of its WAL that increment `increment`
// of full snapshot `snapshot` needs, by the snapshots' metadata: from the segment of the
// full snapshot's CLUSTER_SNAPSHOT record (nothing before it matters: a full snapshot is
// taken with nothing in flight) to that of the next increment's Finish record (a cut is
// checked once every node has passed the next cut's Start), or to the end when there is
// none; and names the increment's cut in stop_after. `snapshot` empty: the node's full
// snapshot taken last, by its metadata's time. A node whose metadata does not say keeps
// its whole WAL. Returns the snapshot's name, or empty when no node could be limited.
std::string BoundToIncrement(std::vector<WalInput>* nodes, const std::string& snapshot, uint32_t increment);

// Where an Ignite node's restore of increment `increment` of full snapshot `snapshot` (a
// name) reads its WAL from and to, by the node's metadata: the snapshot's CLUSTER_SNAPSHOT
// record and the increment's id (its Finish record's). None when its metadata does not say.
struct IncrementRange {
  wal::Pointer from;
  wal::Uuid cut_id;
};
std::optional<IncrementRange> IncrementRangeOf(const WalInput& in, const std::string& snapshot, uint32_t increment);

// The increment (snapshot and index) whose request id is `cut_id` (a whole id, in any
// case), by the increments' metadata of the Ignite nodes; none when none or several
// match, or for a prefix of an id (it may begin a cut no metadata names too).
std::optional<std::pair<std::string, uint32_t>> IncrementOfCut(const std::vector<WalInput>& nodes,
                                                               const std::string& cut_id);

// The last increment the Ignite nodes keep of `snapshot` (empty: of the full snapshot
// taken last), by their metadata; none when they keep none.
std::optional<std::pair<std::string, uint32_t>> LatestIncrement(const std::vector<WalInput>& nodes,
                                                                const std::string& snapshot);

// The snapshot directories an Ignite node's metadata lies in: its snapshot directory, or
// each of its work directory's snapshots/*, sorted.
std::vector<std::string> SnapshotDirsOf(const WalInput& in);
// The node's metadata (`folder`.smf) of the full snapshot in `dir`, or of its increment
// `i` (increments/<16 digits>/); none when it is missing, does not parse, or names
// another folder or index.
std::optional<wal::IgniteSnapshotMeta> FullSnapshotMeta(const std::string& dir, const std::string& folder);
std::optional<wal::IgniteIncrementMeta> IncrementSnapshotMeta(const std::string& dir, const std::string& folder,
                                                              uint32_t i);

// The directory holding `path` (its absolute, normal form's parent).
std::string ParentOf(const std::string& path);

// Orders node names so that node-2 comes before node-10.
bool NaturalLess(const std::string& a, const std::string& b);

}  // namespace app
