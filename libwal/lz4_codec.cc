#include "libwal/lz4_codec.h"

#include <lz4frame.h>

#include <fmt/format.h>
#include <memory>

namespace wal {
namespace {

struct DctxDeleter {
  void operator()(LZ4F_dctx* d) const { LZ4F_freeDecompressionContext(d); }
};

}  // namespace

Result<std::string> CompressLz4Frame(std::string_view input) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  prefs.frameInfo.contentSize = input.size();
  prefs.frameInfo.blockSizeID = LZ4F_max4MB;
  std::string out(LZ4F_compressFrameBound(input.size(), &prefs), '\0');
  size_t n = LZ4F_compressFrame(out.data(), out.size(), input.data(), input.size(), &prefs);
  if (LZ4F_isError(n)) {
    return Status::Internal(fmt::format("lz4 compression failed: {}", LZ4F_getErrorName(n)));
  }
  out.resize(n);
  return out;
}

Result<std::string> DecompressLz4Frame(std::string_view input, size_t limit) {
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
    return Status::Internal("cannot create lz4 decompression context");
  }
  std::unique_ptr<LZ4F_dctx, DctxDeleter> dctx(raw);
  std::string out;
  size_t in_pos = 0;
  constexpr size_t kChunk = 1 << 20;
  size_t hint = 1;
  while (in_pos < input.size()) {
    if (out.size() >= limit) {
      return Status::Corruption(fmt::format(
          "lz4 frame decompresses past the segment size limit of {} bytes (at compressed byte {})", limit, in_pos));
    }
    size_t old = out.size();
    size_t room = std::min(kChunk, limit - old);
    out.resize(old + room);
    size_t dst_size = room;
    size_t src_size = input.size() - in_pos;
    hint = LZ4F_decompress(dctx.get(), out.data() + old, &dst_size, input.data() + in_pos, &src_size, nullptr);
    out.resize(old + dst_size);
    if (LZ4F_isError(hint)) {
      return Status::Corruption(
          fmt::format("damaged lz4 frame at compressed byte {}: {}", in_pos, LZ4F_getErrorName(hint)));
    }
    in_pos += src_size;
    if (hint == 0) break;  // frame complete (content checksum verified by lz4)
    if (src_size == 0 && dst_size == 0) {
      return Status::Corruption(fmt::format("damaged lz4 frame at compressed byte {}: no progress", in_pos));
    }
  }
  if (hint != 0) {
    return Status::Corruption(fmt::format("truncated lz4 frame: input ends at compressed byte {}", input.size()));
  }
  if (in_pos != input.size()) {
    return Status::Corruption(fmt::format("trailing bytes after the lz4 frame at compressed byte {}", in_pos));
  }
  return out;
}

}  // namespace wal
