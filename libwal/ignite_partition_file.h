// One page file of Apache Ignite: part-N.bin (a partition of a cache or cache group) or
// index.bin, of a stopped node's db/<folder>/cache-<name>/ or cacheGroup-<name>/, or of
// a full snapshot's db/<folder>/. Its pages are read in place; every page's CRC and id
// are checked; the partition meta page is read; and every row is given exactly once: a
// row's head is an entry of a data page, and a row larger than a page continues in
// fragments, each on a page of its own, followed link by link. Each row's cache id, in
// a cache group of several caches, comes from the leaves of the partition's data tree
// (a row does not hold it); in any group every row must be in a leaf and every leaf
// item a row.
//
// Damage is reported by page (file, page, byte offset, what) and the rest is read: a
// page whose CRC or id is wrong gives no rows, a row whose entry or fragments are
// damaged is left out. What is held beyond the file's mapping is a byte per page, the
// row in hand, and a cache id per row of a shared group. Compressed pages are refused
// by name (kNotSupported), as walcut does not decompress them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "libwal/ignite_page.h"
#include "libwal/mapped_file.h"
#include "libwal/status.h"

namespace wal {

struct PageDamage {
  uint64_t page = 0;
  uint64_t offset = 0;  // in the file
  std::string what;
  std::string ToString(const std::string& path) const;
};

struct PartitionRow {
  ignite_page::Row row;
  uint64_t link = 0;     // Ignite's link of the row: its head's page id and item id
  int32_t cache_id = 0;  // of a shared group's row; 0 otherwise
  uint32_t pages = 1;    // the pages its fragments take
};

class IgnitePartitionFile {
 public:
  // The file at `path`, whose name (part-N.bin or index.bin) gives its partition. Its
  // header must be a page file's: kCorruption naming the file otherwise; kNotFound,
  // kIoError as MappedFile::Open.
  static Result<IgnitePartitionFile> Open(const std::string& path);
  // The same of bytes in memory, named `path` (tests, fuzzing).
  static Result<IgnitePartitionFile> FromBytes(const std::string& path, std::string bytes);

  const std::string& path() const { return file_.path(); }
  const ignite_page::FileHeader& header() const { return header_; }
  uint32_t partition() const { return partition_; }
  uint64_t pages() const { return pages_; }
  uint64_t bytes() const { return file_.bytes().size(); }
  std::string_view Page(uint64_t i) const {
    return file_.bytes().substr(header_.size + i * header_.page_size, header_.page_size);
  }

  struct Reading {
    bool shared_group = false;  // rows take their cache ids from the data tree's leaves
    bool rows = true;           // false: the pages are only checked (a metastorage file)
    std::function<bool()> cancelled;
  };
  struct Outcome {
    bool meta_read = false;
    ignite_page::PartitionMeta meta;
    uint64_t rows = 0;
    uint64_t data_pages = 0;
    std::vector<PageDamage> damage;
  };
  // Every row to `on_row`, in the order of their heads' pages and items. kNotSupported
  // for a compressed page, kCancelled when `cancelled` says so; damage goes to the
  // outcome. index.bin gives no rows: its pages are only checked, as without `rows`.
  Status ReadRows(const Reading& how, const std::function<void(const PartitionRow&)>& on_row, Outcome* out) const;

 private:
  IgnitePartitionFile() = default;
  static Result<IgnitePartitionFile> Init(MappedFile file);
  // Checks every page (zeros, compression, CRC, id); true for those that pass.
  Status CheckPages(std::vector<uint8_t>* state, Outcome* out) const;
  void MarkTails(std::vector<uint8_t>* state, Outcome* out) const;
  // link -> cache id from the leaves of the data tree, every link a leaf names.
  void ReadLeaves(const ignite_page::PartitionMeta& meta, bool shared, const std::vector<uint8_t>& state,
                  std::vector<std::pair<uint64_t, int32_t>>* leaves, Outcome* out) const;
  void Damage(Outcome* out, uint64_t page, size_t in_page, std::string what) const;

  MappedFile file_;
  ignite_page::FileHeader header_;
  uint32_t partition_ = 0;
  uint64_t pages_ = 0;
};

// The partition of a page file's name: N of part-N.bin (N up to 65500), 0xFFFF of
// index.bin; false for any other name.
bool ParsePageFileName(std::string_view name, uint32_t* partition);

}  // namespace wal
