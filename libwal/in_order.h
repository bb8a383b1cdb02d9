// Work spread over threads: items done on several threads at once, and
// parts made on several threads and taken in order (printed as one thread would print
// them). What a thread throws (out of memory) stops the others and is thrown to the
// caller once every thread has stopped.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace wal {

// f(i) for every i in [0, n), on up to `threads` threads (the caller's among them).
template <typename F>
void OnThreads(size_t n, size_t threads, F&& f) {
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr failure;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!failure) failure = std::current_exception();
        next.store(n);
      }
    }
  };
  {
    std::vector<std::jthread> pool;  // joined when the block ends
    for (size_t t = 1; t < std::min(n, threads); ++t) pool.emplace_back(work);
    work();
  }
  if (failure) std::rethrow_exception(failure);
}

// Parts 0..n-1 made by make(k) on `threads` threads and handed to take(k, part) on the
// caller's thread in order, each as soon as it and every part before it are made; at
// most `ahead` parts are made and not yet taken. take returns false to stop (the reader
// of the output went away): no more parts are made or taken.
template <typename Part, typename Make, typename Take>
void MakeInOrder(size_t n, size_t threads, size_t ahead, Make&& make, Take&& take) {
  std::vector<std::optional<Part>> made(n);
  std::mutex mu;
  std::condition_variable cv;
  size_t next = 0, taken = 0;
  bool stop = false;
  std::exception_ptr failure;
  auto fail = [&] {
    std::lock_guard lock(mu);
    if (!failure) failure = std::current_exception();
    stop = true;
    cv.notify_all();
  };
  auto work = [&] {
    for (;;) {
      size_t k;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return stop || next >= n || next < taken + ahead; });
        if (stop || next >= n) return;
        k = next++;
      }
      try {
        Part part = make(k);
        std::lock_guard lock(mu);
        made[k].emplace(std::move(part));
        cv.notify_all();
      } catch (...) {
        fail();
        return;
      }
    }
  };
  {
    std::vector<std::jthread> pool;  // joined when the block ends
    for (size_t t = 0; t < std::min(n, threads); ++t) pool.emplace_back(work);
    try {
      for (size_t k = 0; k < n; ++k) {
        std::optional<Part> part;
        {
          std::unique_lock lock(mu);
          cv.wait(lock, [&] { return stop || made[k].has_value(); });
          if (stop) break;
          part.swap(made[k]);
        }
        const bool more = take(k, *part);
        part.reset();
        std::lock_guard lock(mu);
        taken = k + 1;
        if (!more) stop = true;
        cv.notify_all();
      }
    } catch (...) {
      fail();
    }
    std::lock_guard lock(mu);
    stop = true;  // the parts not taken are not made
    cv.notify_all();
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace wal
