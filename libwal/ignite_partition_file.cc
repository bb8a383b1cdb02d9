#include "libwal/ignite_partition_file.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace wal {
namespace ip = ignite_page;
namespace {

// What is known of each page.
enum : uint8_t {
  kSound = 1,     // its CRC and id are right
  kData = 2,      // a data page whose header and entries read
  kTail = 4,      // a fragment other than a row's head: some entry's link leads to it
  kFollowed = 8,  // a row's fragments led to it
};

bool AllZero(std::string_view b) {
  static constexpr char kZeros[64] = {};
  for (size_t i = 0; i < b.size(); i += sizeof kZeros) {
    const size_t n = std::min(sizeof kZeros, b.size() - i);
    if (std::memcmp(b.data() + i, kZeros, n) != 0) return false;
  }
  return true;
}

const char* CompressionName(uint8_t c) {
  switch (c) {
    case 1: return "compacted (SKIP_GARBAGE)";
    case 2: return "ZSTD";
    case 3: return "LZ4";
    case 4: return "SNAPPY";
    default: return "of an unknown kind";
  }
}

// The external item id of direct item `k`: its own, unless an indirect item maps an id
// to it (its row was moved there when another was removed).
uint8_t ExternalId(std::string_view page, const ip::DataPage& d, uint8_t k) {
  for (size_t i = d.direct; i < size_t{d.direct} + d.indirect; ++i) {
    const uint16_t v =
        static_cast<uint16_t>(static_cast<uint8_t>(page[54 + 2 * i]) | static_cast<uint8_t>(page[55 + 2 * i]) << 8);
    if ((v & 0xFF) == k) return static_cast<uint8_t>(v >> 8);
  }
  return k;
}

}  // namespace

std::string PageDamage::ToString(const std::string& path) const {
  return fmt::format("\"{}\": page {} (offset {}): {}", path, page, offset, what);
}

bool ParsePageFileName(std::string_view name, uint32_t* partition) {
  if (name == "index.bin") {
    *partition = ip::kIndexPartition;
    return true;
  }
  if (name.size() < 10 || name.substr(0, 5) != "part-" || name.substr(name.size() - 4) != ".bin") return false;
  const std::string_view digits = name.substr(5, name.size() - 9);
  if (digits.empty() || digits.size() > 5 || (digits.size() > 1 && digits[0] == '0')) return false;
  uint32_t p = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    p = p * 10 + static_cast<uint32_t>(c - '0');
  }
  if (p > ip::kMaxPartition) return false;
  *partition = p;
  return true;
}

Result<IgnitePartitionFile> IgnitePartitionFile::Open(const std::string& path) {
  auto m = MappedFile::Open(path);
  if (!m.ok()) return m.status();
  return Init(std::move(m).value());
}

Result<IgnitePartitionFile> IgnitePartitionFile::FromBytes(const std::string& path, std::string bytes) {
  return Init(MappedFile::FromString(path, std::move(bytes)));
}

Result<IgnitePartitionFile> IgnitePartitionFile::Init(MappedFile file) {
  const std::string path = file.path();
  const size_t slash = path.find_last_of('/');
  IgnitePartitionFile f;
  if (!ParsePageFileName(slash == std::string::npos ? path : path.substr(slash + 1), &f.partition_)) {
    return Status::InvalidArgument(fmt::format("\"{}\" is not named like a page file (part-N.bin or index.bin)", path));
  }
  f.file_ = std::move(file);
  std::string why;
  if (!ip::ParseFileHeader(f.file_.bytes(), &f.header_, &why)) {
    return Status::Corruption(fmt::format("\"{}\": {}", path, why));
  }
  const bool index = f.partition_ == ip::kIndexPartition;
  if ((f.header_.type == ip::kStoreIndex) != index) {
    return Status::Corruption(
        fmt::format("\"{}\": its header says a{} file", path, f.header_.type == ip::kStoreIndex ? "n index" : " data"));
  }
  const size_t size = f.file_.bytes().size();
  f.pages_ = size > f.header_.size ? (size - f.header_.size) / f.header_.page_size : 0;
  return f;
}

void IgnitePartitionFile::Damage(Outcome* out, uint64_t page, size_t in_page, std::string what) const {
  out->damage.push_back({page, header_.size + page * header_.page_size + in_page, std::move(what)});
}

Status IgnitePartitionFile::CheckPages(std::vector<uint8_t>* state, Outcome* out) const {
  const size_t tail = (file_.bytes().size() - header_.size) % header_.page_size;
  if (file_.bytes().size() > header_.size && tail != 0) {
    Damage(out, pages_, 0, fmt::format("the file ends {} bytes into this page", tail));
  }
  for (uint64_t i = 0; i < pages_; ++i) {
    const std::string_view page = Page(i);
    const ip::PageHeader h = ip::ParsePageHeader(page);
    if (h.compression != 0) {
      return Status::NotSupported(
          fmt::format("\"{}\": page {} is compressed ({}): walcut does not read compressed pages (a cache with "
                      "diskPageCompression)",
                      path(), i, CompressionName(h.compression)));
    }
    if (h.type == 0 && AllZero(page)) {
      Damage(out, i, 0, "all zeros: a page never written");
      continue;
    }
    const uint32_t crc = ip::PageCrc(page);
    if (crc != h.crc) {
      Damage(out, i, 4, fmt::format("CRC 0x{:08x} stored, 0x{:08x} computed", h.crc, crc));
      continue;
    }
    if (ip::PageIndexOf(h.page_id) != i || ip::PartitionOf(h.page_id) != partition_) {
      Damage(out, i, 8,
             fmt::format("its header names page {} of partition {} (page id 0x{:016x})", ip::PageIndexOf(h.page_id),
                         ip::PartitionOf(h.page_id), h.page_id));
      continue;
    }
    (*state)[i] = kSound;
  }
  return Status::Ok();
}

// Marks each data page's entries read and the pages their links lead to as fragments.
void IgnitePartitionFile::MarkTails(std::vector<uint8_t>* state, Outcome* out) const {
  std::string why;
  for (uint64_t i = 0; i < pages_; ++i) {
    if (!((*state)[i] & kSound)) continue;
    const std::string_view page = Page(i);
    if (ip::ParsePageHeader(page).type != ip::kData) continue;
    ip::DataPage d;
    if (!ip::ParseDataPage(page, &d, &why)) {
      Damage(out, i, 48, why);
      continue;
    }
    (*state)[i] |= kData;
    ++out->data_pages;
    for (uint8_t k = 0; k < d.direct; ++k) {
      ip::Payload p;
      if (!ip::DirectPayload(page, d, k, &p, &why) || !p.fragmented || p.next == 0) continue;
      const uint64_t t = ip::PageIndexOf(p.next);
      if (t >= pages_ || ip::PartitionOf(p.next) != partition_) continue;  // reported when followed
      if ((*state)[t] & kTail) {
        Damage(out, i, p.offset, fmt::format("item {} links to page {}, which another fragment links to", k, t));
      }
      (*state)[t] |= kTail;
    }
  }
}

void IgnitePartitionFile::ReadLeaves(const ip::PartitionMeta& meta, bool shared, const std::vector<uint8_t>& state,
                                     std::vector<std::pair<uint64_t, int32_t>>* leaves, Outcome* out) const {
  std::string why;
  // The page a tree's page id names, or damage reported at `from`.
  auto page_of = [&](uint64_t id, const char* what, uint64_t from, std::string_view* page) {
    const uint64_t t = ip::PageIndexOf(id);
    if (id == 0 || t >= pages_ || ip::PartitionOf(id) != partition_) {
      Damage(out, from, 0, fmt::format("the {} is page id 0x{:016x}, no page of this file", what, id));
      return false;
    }
    if (!(state[t] & kSound)) {
      Damage(out, from, 0, fmt::format("the {} is page {}, which is damaged", what, t));
      return false;
    }
    *page = Page(t);
    return true;
  };
  std::string_view root;
  uint64_t leaf = 0;
  if (!page_of(meta.tree_root, "data tree's meta page", 0, &root)) return;
  if (!ip::ParseTreeMeta(root, &leaf, &why)) {
    Damage(out, ip::PageIndexOf(meta.tree_root), 0, "the data tree's meta page: " + why);
    return;
  }
  uint64_t from = ip::PageIndexOf(meta.tree_root);
  std::vector<ip::LeafItem> items;
  for (uint64_t hops = 0; leaf != 0; ++hops) {
    if (hops > pages_) {
      Damage(out, from, 0, "the data tree's leaves link in a loop");
      return;
    }
    std::string_view page;
    if (!page_of(leaf, "next leaf of the data tree", from, &page)) return;
    from = ip::PageIndexOf(leaf);
    items.clear();
    if (!ip::ParseDataLeaf(page, &leaf, &items, &why)) {
      Damage(out, from, 0, "a leaf of the data tree: " + why);
      return;
    }
    if (shared != (ip::ParsePageHeader(page).type == ip::kCacheIdDataRefLeaf)) {
      Damage(out, from, 0,
             shared ? "a leaf of a shared cache group's data tree without cache ids"
                    : "a leaf with cache ids in a cache's own data tree");
      return;
    }
    for (const auto& it : items) leaves->emplace_back(it.link, it.cache_id);
  }
}

Status IgnitePartitionFile::ReadRows(const Reading& how, const std::function<void(const PartitionRow&)>& on_row,
                                     Outcome* out) const {
  std::vector<uint8_t> state(pages_, 0);
  WAL_RETURN_IF_ERROR(CheckPages(&state, out));
  std::string why;
  if (pages_ == 0) {
    Damage(out, 0, 0, "the file holds no page");
    return Status::Ok();
  }
  if (partition_ == ip::kIndexPartition || !how.rows) return Status::Ok();
  if (state[0] & kSound) {
    if (ip::ParsePartitionMeta(Page(0), &out->meta, &why)) {
      out->meta_read = true;
    } else {
      Damage(out, 0, 0, why);
    }
  } else {
    Damage(out, 0, 0, "the partition meta page is damaged: the partition's counter and size are unknown");
  }
  MarkTails(&state, out);
  std::vector<std::pair<uint64_t, int32_t>> leaves;
  if (out->meta_read) ReadLeaves(out->meta, how.shared_group, state, &leaves, out);
  std::sort(leaves.begin(), leaves.end());
  std::vector<bool> leaf_found(leaves.size(), false);
  for (size_t i = 1; i < leaves.size(); ++i) {
    if (leaves[i].first == leaves[i - 1].first) {
      Damage(out, 0, 0, fmt::format("the data tree names the row at link 0x{:016x} twice", leaves[i].first));
    }
  }
  std::string row_bytes;
  PartitionRow r;
  for (uint64_t i = 0; i < pages_; ++i) {
    if (how.cancelled && (i & 255) == 0 && how.cancelled()) return Status::Cancelled("cancelled");
    if ((state[i] & (kData | kTail)) != kData) continue;
    const std::string_view page = Page(i);
    ip::DataPage d;
    (void)ip::ParseDataPage(page, &d, &why);
    for (uint8_t k = 0; k < d.direct; ++k) {
      ip::Payload p;
      if (!ip::DirectPayload(page, d, k, &p, &why)) {
        Damage(out, i, 54 + 2 * size_t{k}, why);
        continue;
      }
      r.link =
          (uint64_t{ip::kFlagData} << 48) | (uint64_t{partition_} << 32) | i | uint64_t{ExternalId(page, d, k)} << 56;
      r.pages = 1;
      std::string_view bytes = p.bytes;
      bool whole = true;
      if (p.fragmented) {
        row_bytes.assign(p.bytes);
        for (uint64_t link = p.next; link != 0 && whole;) {
          const uint64_t t = ip::PageIndexOf(link);
          if (t >= pages_ || ip::PartitionOf(link) != partition_ || !(state[t] & kData) || r.pages > pages_) {
            Damage(out, i, p.offset,
                   fmt::format("the row of item {} continues at link 0x{:016x}, {}", k, link,
                               t >= pages_ || ip::PartitionOf(link) != partition_
                                   ? "no page of this file"
                                   : (r.pages > pages_ ? "in a loop" : "no sound data page")));
            whole = false;
            break;
          }
          if (state[t] & kFollowed) {
            Damage(out, i, p.offset, fmt::format("the row of item {} continues on page {}, already read", k, t));
            whole = false;
            break;
          }
          state[t] |= kFollowed;
          const std::string_view tp = Page(t);
          ip::DataPage td;
          ip::Payload fp;
          (void)ip::ParseDataPage(tp, &td, &why);
          if (td.direct != 1 || !ip::ItemPayload(tp, td, ip::ItemOf(link), &fp, &why) || !fp.fragmented) {
            Damage(out, t, 48,
                   fmt::format("a fragment of the row at page {} item {}: {}", i, k,
                               td.direct != 1 ? fmt::format("{} entries on the page", td.direct)
                                              : (fp.fragmented ? why : "not marked a fragment")));
            whole = false;
            break;
          }
          row_bytes.append(fp.bytes);
          ++r.pages;
          link = fp.next;
        }
        bytes = row_bytes;
      }
      if (!whole) continue;
      if (!ip::ParseRow(bytes, p.fragmented, &r.row, &why)) {
        Damage(out, i, p.offset, fmt::format("the row of item {}: {}", k, why));
        continue;
      }
      r.cache_id = 0;
      auto leaf = std::lower_bound(leaves.begin(), leaves.end(), std::make_pair(r.link, INT32_MIN));
      if (leaf != leaves.end() && leaf->first == r.link) {
        leaf_found[static_cast<size_t>(leaf - leaves.begin())] = true;
        r.cache_id = leaf->second;
      } else if (out->meta_read) {
        Damage(out, i, p.offset,
               fmt::format("the row of item {} (link 0x{:016x}) is in no leaf of the data tree{}", k, r.link,
                           how.shared_group ? ": its cache is unknown" : ""));
        if (how.shared_group) continue;
      }
      ++out->rows;
      on_row(r);
    }
  }
  for (uint64_t t = 0; t < pages_; ++t) {
    if ((state[t] & kTail) && (state[t] & kData) && !(state[t] & kFollowed)) {
      Damage(out, t, 0, "a fragment of a row that no row leads to");
    }
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaf_found[i]) {
      Damage(out, ip::PageIndexOf(leaves[i].first), 0,
             fmt::format("the data tree names a row at link 0x{:016x} that no data page holds", leaves[i].first));
    }
  }
  return Status::Ok();
}

}  // namespace wal
