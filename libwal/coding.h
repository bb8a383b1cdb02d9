// The one family of encoding helpers. Every byte walcut writes goes through Put*,
// every byte it reads through Decoder. Little-endian, fixed width, no struct memcpy.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace wal {

inline void PutFixed8(std::string* dst, uint8_t v) { dst->push_back(static_cast<char>(v)); }

inline void PutFixed16(std::string* dst, uint16_t v) {
  char buf[2] = {static_cast<char>(v), static_cast<char>(v >> 8)};
  dst->append(buf, 2);
}

inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  dst->append(buf, 4);
}

inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  dst->append(buf, 8);
}

// u32 length, then the bytes.
inline void PutBytes(std::string* dst, std::string_view bytes) {
  PutFixed32(dst, static_cast<uint32_t>(bytes.size()));
  dst->append(bytes.data(), bytes.size());
}

inline void EncodeFixed32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

inline void EncodeFixed64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

inline uint16_t DecodeFixed16(const char* p) {
  auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>(u[0] | (u[1] << 8));
}

inline uint32_t DecodeFixed32(const char* p) {
  auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) | (static_cast<uint32_t>(u[2]) << 16) |
         (static_cast<uint32_t>(u[3]) << 24);
}

inline uint64_t DecodeFixed64(const char* p) {
  return static_cast<uint64_t>(DecodeFixed32(p)) | (static_cast<uint64_t>(DecodeFixed32(p + 4)) << 32);
}

// Bounds-checked reader over a byte range. Every Get* returns false, and leaves the
// decoder failed, when fewer bytes remain than asked for; nothing reads past the end.
class Decoder {
 public:
  explicit Decoder(std::string_view in) : begin_(in.data()), p_(in.data()), end_(in.data() + in.size()) {}

  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  size_t position() const { return static_cast<size_t>(p_ - begin_); }
  bool failed() const { return failed_; }
  bool done() const { return p_ == end_; }

  bool GetFixed8(uint8_t* v) {
    if (!Need(1)) return false;
    *v = static_cast<uint8_t>(*p_++);
    return true;
  }
  bool GetFixed16(uint16_t* v) {
    if (!Need(2)) return false;
    *v = DecodeFixed16(p_);
    p_ += 2;
    return true;
  }
  bool GetFixed32(uint32_t* v) {
    if (!Need(4)) return false;
    *v = DecodeFixed32(p_);
    p_ += 4;
    return true;
  }
  bool GetFixed64(uint64_t* v) {
    if (!Need(8)) return false;
    *v = DecodeFixed64(p_);
    p_ += 8;
    return true;
  }
  bool GetRaw(size_t n, std::string_view* out) {
    if (!Need(n)) return false;
    *out = std::string_view(p_, n);
    p_ += n;
    return true;
  }
  // u32 length + bytes; the view points into the input.
  bool GetBytes(std::string_view* out) {
    uint32_t n = 0;
    if (!GetFixed32(&n)) return false;
    return GetRaw(n, out);
  }
  // For a count of elements of at least `min_size` bytes each: a count the remaining
  // input cannot hold is refused before anything is allocated for it.
  bool GetCount32(uint32_t* n, size_t min_size) {
    if (!GetFixed32(n)) return false;
    if (min_size != 0 && *n > remaining() / min_size) return Fail();
    return true;
  }
  bool GetCount16(uint16_t* n, size_t min_size) {
    if (!GetFixed16(n)) return false;
    if (min_size != 0 && *n > remaining() / min_size) return Fail();
    return true;
  }
  // The next byte, for a decoder that reads a run of fixed fields at once once it has
  // seen that remaining() holds them; Skip(n) then passes them (n <= remaining()).
  const char* cursor() const { return p_; }
  void Skip(size_t n) { p_ += n; }
  // Marks the decoder failed; position() keeps telling where decoding stopped.
  bool Fail() {
    failed_ = true;
    return false;
  }

 private:
  bool Need(size_t n) {
    if (failed_ || remaining() < n) return Fail();
    return true;
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  bool failed_ = false;
};

}  // namespace wal
