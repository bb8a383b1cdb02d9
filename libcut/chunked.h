// A vector that grows by chunks: what it holds is never moved, so growing copies
// nothing and touches each page once (a std::vector grown by doubling copies it all and
// faults in pages twice as many, which a table of millions of entries pays for in system
// time). Elements are left uninitialized until pushed: trivially copyable types only.
//
// Fifo (commit_window.h) is the queue of this kind: its blocks come from the heap and are
// reused as the window slides. A table made once and freed whole wants its memory back
// at once instead: with 64 KiB chunks from the heap, `txs` peaked at 323 MiB on the
// 300 k bench cluster, against 222 MiB with mappings.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace cut {

template <typename T>
class Chunked {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  // Chunks of 1 MiB at most, each a mapping of its own, populated when made (one
  // system call, not a fault per page; all but the first) and unmapped when freed, so
  // that the memory goes back to the system at once.
  static constexpr size_t kShift = [] {
    size_t shift = 0;
    while ((size_t{2} << shift) * sizeof(T) <= (size_t{1} << 20)) ++shift;
    return shift;
  }();
  static constexpr size_t kPerChunk = size_t{1} << kShift;
  static constexpr size_t kChunkBytes = kPerChunk * sizeof(T);

  Chunked() = default;
  Chunked(const Chunked&) = delete;
  Chunked& operator=(const Chunked&) = delete;
  Chunked(Chunked&& o) noexcept : chunks_(std::move(o.chunks_)), size_(o.size_) {
    o.chunks_.clear();
    o.size_ = 0;
  }
  Chunked& operator=(Chunked&& o) noexcept {
    if (this != &o) {
      clear();
      chunks_ = std::move(o.chunks_);
      size_ = o.size_;
      o.chunks_.clear();
      o.size_ = 0;
    }
    return *this;
  }
  ~Chunked() { clear(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](size_t i) { return chunks_[i >> kShift][i & (kPerChunk - 1)]; }
  const T& operator[](size_t i) const { return chunks_[i >> kShift][i & (kPerChunk - 1)]; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(const T& v) {
    if ((size_ & (kPerChunk - 1)) == 0) Grow();
    chunks_.back()[size_ & (kPerChunk - 1)] = v;
    ++size_;
  }

  // Frees everything.
  void clear() {
    for (T* c : chunks_) ::munmap(c, kChunkBytes);
    std::vector<T*>().swap(chunks_);
    size_ = 0;
  }

  // f(element) for each, in order.
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const size_t n = c + 1 < chunks_.size() ? kPerChunk : size_ - c * kPerChunk;
      const T* p = chunks_[c];
      for (size_t k = 0; k < n; ++k) f(p[k]);
    }
  }

 private:
  void Grow() {
    chunks_.reserve(chunks_.size() + 1);  // before the mapping, which nothing would unmap
    // The first chunk is faulted in as it fills (a table of a few entries, one per node
    // and table, takes no more memory than it uses); the next ones at once.
    const int populate = chunks_.empty() ? 0 : MAP_POPULATE;
    void* c = ::mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | populate, -1, 0);
    if (c == MAP_FAILED) throw std::bad_alloc();
    chunks_.push_back(static_cast<T*>(c));
  }

  std::vector<T*> chunks_;
  size_t size_ = 0;
};

}  // namespace cut
