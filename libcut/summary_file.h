// A node's cut index as a compact file, written on the node (`walcut cuts NODE_DIR
// --summary FILE`) and checked elsewhere (`walcut check --summaries FILE...`), so a
// large cluster is checked without gathering its WALs.
//
// Two encodings, told apart by their first bytes (walcut-format(5), NODE SUMMARIES):
// - binary, schema 3, the default: frames, each checksummed and LZ4-compressed; the
//   node's reading first, then one frame per cut. Identifiers and pointers are deltas in
//   varints, and a cut's transactions that the previous cut's window also held are
//   given by reference. A few percent of the WAL it describes; read cut by cut.
// - JSON, schema 2: the same content, for reading by eye and by scripts.
// An Apache Ignite node's summary also carries what its check needs beside the WAL: the
// increments the node keeps by metadata (kept_increments.h) and, for each cut, the update
// counters its copies apply (copy_counters.h). Schema 2 binary and schema 1 JSON, written
// by earlier versions, are read (without either).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "libcut/cut_feed.h"
#include "libcut/cut_index.h"
#include "libcut/kept_increments.h"

namespace cut {

// For fuzz targets only: a summary's and a resume state's checksums are taken as right
// from then on (a fuzzer cannot make one). Nothing else calls it.
void SkipSummaryChecksumsForFuzzing();
bool SummaryChecksumsSkipped();

// The largest summary file read (a node's summary is a few percent of its WAL).
inline constexpr uint64_t kMaxSummaryBytes = 1ull << 30;
// The most kept increments (and baseline nodes) a summary gives for its node: Ignite keeps
// one metadata file per increment and node.
inline constexpr size_t kMaxKeptIncrements = 1 << 16;

enum class SummaryFormat { kBinary, kJson };

// `kept`: the node's kept increments (app::KeptIncrementsOf), null when it has none (not an
// Apache Ignite node).
std::string EncodeSummary(const NodeIndex& index, SummaryFormat format = SummaryFormat::kBinary,
                          const NodeKept* kept = nullptr);
// Whether `bytes` begin as a binary summary does.
bool IsBinarySummary(std::string_view bytes);
// Whether the first bytes of a file (a few hundred) are those of a summary in either
// encoding, or of a resume state: a look, not a reading.
bool LooksLikeSummary(std::string_view head);
bool LooksLikeResumeState(std::string_view head);
// Either encoding, whole; the kept increments into `*kept` when asked, and into `*parts`
// whether the encoding has room for them (and for applied counters): not in the schemas
// of earlier versions.
wal::Result<NodeIndex> DecodeSummary(const std::string& bytes, const std::string& origin,
                                     std::optional<NodeKept>* kept = nullptr, bool* parts = nullptr);

// The resume state of `walcut cuts NODE --summary FILE --append`, kept on the node as
// FILE.resume: the checkpoint of the reading that wrote FILE (cut_index.h), what FILE's
// cuts before it need to be kept as they are (the latest Start among them, and the last
// of them, which the next cut's frame may refer to), and the hash of FILE's bytes, so
// that a state is never used with a summary it was not saved with.
struct ResumeState {
  IndexCheckpoint checkpoint;
  uint64_t kept_last_start = 0;
  std::optional<CutOnNode> last_kept;
};
std::string EncodeResumeState(const ResumeState& state, const std::string& summary_bytes);
// Fails when the bytes are not a sound state, or `summary_bytes` are not the summary the
// state was saved with.
wal::Result<ResumeState> DecodeResumeState(const std::string& bytes, const std::string& summary_bytes,
                                           const std::string& origin);
// The summary, in the encoding of `old` (the summary `from` was saved with), of `index`
// whose cuts are those after from's checkpoint, following the cuts of `old` before it.
// A binary summary's earlier cut frames are copied, not encoded again.
// `kept`: the node's kept increments now (the file's are replaced).
wal::Result<std::string> EncodeAppended(const std::string& old, const ResumeState& from, const NodeIndex& index,
                                        const std::string& origin, const NodeKept* kept = nullptr);

// A summary file read one cut at a time: memory holds the node's reading and the cut in
// hand (and, for the binary encoding, the previous cut's transactions it may refer to),
// not the file.
class SummaryStream {
 public:
  // Reads the node's part (a JSON summary is read whole here).
  static wal::Result<std::unique_ptr<SummaryStream>> Open(const std::string& path);
  virtual ~SummaryStream() = default;
  // The node's reading, without cuts.
  virtual const NodeIndex& node() const = 0;
  // Its kept increments (Apache Ignite's), when it has any.
  virtual const std::optional<NodeKept>& kept() const = 0;
  // Whether its schema carries kept increments and applied counters at all.
  virtual bool carries_ignite_parts() const = 0;
  // The latest Start record's timestamp among all its cuts.
  virtual uint64_t last_start_ts() const = 0;
  // The next cut; false at the end, or at damage (status() says which).
  virtual bool Next(CutOnNode* out) = 0;
  virtual const wal::Status& status() const = 0;
};

// A cluster-check feed (cut_feed.h) over a summary stream. Damage found part way
// through ends the feed and is left in `*damage` for the caller, who must not trust the
// check then.
std::unique_ptr<CutFeed> SummaryFeed(std::unique_ptr<SummaryStream> stream, std::shared_ptr<wal::Status> damage);

}  // namespace cut
