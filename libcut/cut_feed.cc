#include "libcut/cut_feed.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

namespace cut {

namespace {

// An index's reading so far without its cuts (and, unless asked, its read errors).
NodeIndex WithoutCuts(const NodeIndex& index, bool errors) {
  NodeIndex p;
  p.node = index.node;
  p.node_id = index.node_id;
  p.order = index.order;
  p.snapshots = index.snapshots;
  if (errors) {
    p.read_errors = index.read_errors;
    p.read_error_at = index.read_error_at;
    p.torn_tail = index.torn_tail;
  }
  p.open_error = index.open_error;
  p.begin = index.begin;
  p.end = index.end;
  p.last_ts = index.last_ts;
  p.records = index.records;
  p.stopped = index.stopped;
  return p;
}

class IndexFeedImpl : public CutFeed {
 public:
  explicit IndexFeedImpl(const NodeIndex& index) : index_(index) {
    for (const auto& c : index.cuts) {
      if (c.has_start) last_start_ = std::max(last_start_, c.start_ts);
    }
  }
  bool Next(CutOnNode* out) override {
    if (next_ == index_.cuts.size()) return false;
    *out = index_.cuts[next_++];
    return true;
  }
  NodeIndex Progress() override { return WithoutCuts(index_, true); }
  std::vector<BaseSnapshot> Snapshots() override { return index_.snapshots; }
  uint64_t LastStartTs() override { return last_start_; }

 private:
  const NodeIndex& index_;
  size_t next_ = 0;
  uint64_t last_start_ = 0;
};

// A node's WAL read as its cuts are asked for.
class WalStreamFeed : public CutFeed {
 public:
  explicit WalStreamFeed(std::unique_ptr<NodeIndexStream> stream) : stream_(std::move(stream)) {}
  bool Next(CutOnNode* out) override {
    const bool more = stream_->Next(out);
    done_ = !more;
    return more;
  }
  // What has been read so far; read errors only at the end.
  NodeIndex Progress() override { return WithoutCuts(stream_->progress(), done_); }
  std::vector<BaseSnapshot> Snapshots() override { return stream_->progress().snapshots; }
  uint64_t LastStartTs() override { return stream_->last_start_ts(); }

 private:
  std::unique_ptr<NodeIndexStream> stream_;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<CutFeed> IndexFeed(const NodeIndex& index) { return std::make_unique<IndexFeedImpl>(index); }

namespace {

class UnreadableFeedImpl : public CutFeed {
 public:
  UnreadableFeedImpl(const std::string& node, const std::string& why) {
    index_.node = node;
    index_.open_error = why;
  }
  bool Next(CutOnNode*) override { return false; }
  NodeIndex Progress() override { return index_; }
  std::vector<BaseSnapshot> Snapshots() override { return {}; }
  uint64_t LastStartTs() override { return 0; }

 private:
  NodeIndex index_;
};

}  // namespace

std::unique_ptr<CutFeed> UnreadableFeed(const std::string& node, const std::string& why) {
  return std::make_unique<UnreadableFeedImpl>(node, why);
}

namespace {

// Runs the feeds given to it on a few threads, each feed a few cuts ahead of its
// consumer: a worker takes the feed that has waited longest for room and reads one cut
// of it. The check takes cut k of every node before cut k + 1 of any, so the feeds are
// served in turn and no more threads than cores are busy decoding.
class FeedPool : public std::enable_shared_from_this<FeedPool> {
 public:
  explicit FeedPool(size_t threads) : threads_(threads) {}
  ~FeedPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  // One feed of the pool; its state is guarded by the pool's mutex.
  class Feed : public CutFeed {
   public:
    Feed(std::shared_ptr<FeedPool> pool, std::unique_ptr<CutFeed> inner)
        : pool_(std::move(pool)),
          inner_(std::move(inner)),
          progress_(inner_->Progress()),
          last_start_(inner_->LastStartTs()) {}
    ~Feed() override {
      std::unique_lock<std::mutex> lock(pool_->mu_);
      gone_ = true;
      pool_->cv_.wait(lock, [&] { return !busy_; });
      std::erase(pool_->ready_, this);
    }
    bool Next(CutOnNode* out) override {
      std::unique_lock<std::mutex> lock(pool_->mu_);
      pool_->cv_.wait(lock, [&] { return !queue_.empty() || done_; });
      if (queue_.empty()) {
        // What the reading threw (out of memory) is thrown here, on the consumer's thread.
        if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
        return false;
      }
      *out = std::move(queue_.front());
      queue_.pop_front();
      pool_->Schedule(this);
      return true;
    }
    // The inner feed's reading, as of the cuts handed over so far.
    NodeIndex Progress() override {
      std::lock_guard<std::mutex> lock(pool_->mu_);
      return progress_;
    }
    std::vector<BaseSnapshot> Snapshots() override {
      std::lock_guard<std::mutex> lock(pool_->mu_);
      return progress_.snapshots;
    }
    uint64_t LastStartTs() override {
      std::lock_guard<std::mutex> lock(pool_->mu_);
      return last_start_;
    }

   private:
    friend class FeedPool;
    std::shared_ptr<FeedPool> pool_;  // the pool outlives its feeds
    std::unique_ptr<CutFeed> inner_;
    std::deque<CutOnNode> queue_;
    NodeIndex progress_;
    uint64_t last_start_ = 0;
    bool done_ = false;
    bool busy_ = false;         // a worker is reading it
    bool queued_ = false;       // in ready_
    bool gone_ = false;         // being destroyed
    std::exception_ptr error_;  // what the inner feed threw; the feed is done then
  };

  std::unique_ptr<CutFeed> Add(std::unique_ptr<CutFeed> inner) {
    auto feed = std::make_unique<Feed>(shared_from_this(), std::move(inner));
    std::lock_guard<std::mutex> lock(mu_);
    if (workers_.size() < threads_) workers_.emplace_back([this] { Run(); });
    Schedule(feed.get());
    return feed;
  }

 private:
  // Cuts read ahead of the consumer, per feed: two, so that short windows of uneven
  // lengths keep the threads busy; one after a cut of a long window, whose classified
  // transactions are the largest thing a feed holds (8 nodes, 1 M transactions, 8 cuts:
  // check peaked at 338-352 MB with two such cuts ahead, 283-289 MB with one).
  static constexpr size_t kAhead = 2;
  static constexpr size_t kLongWindow = size_t{1} << 16;  // a node's transactions in a cut

  static bool HasRoom(const Feed& f) {
    return f.queue_.empty() || (f.queue_.size() < kAhead && f.queue_.back().txs.size() < kLongWindow);
  }

  // Queues `f` for a worker if it has room ahead and is not queued or read already.
  // Called with mu_ held.
  void Schedule(Feed* f) {
    if (f->done_ || f->busy_ || f->queued_ || f->gone_ || !HasRoom(*f)) {
      cv_.notify_all();
      return;
    }
    try {
      ready_.push_back(f);
      f->queued_ = true;
    } catch (...) {  // out of memory: the consumer gets it, the worker goes on
      f->error_ = std::current_exception();
      f->done_ = true;
    }
    cv_.notify_all();
  }

  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return !ready_.empty() || stop_; });
      if (stop_) return;
      Feed* f = ready_.front();
      ready_.pop_front();
      f->queued_ = false;
      f->busy_ = true;
      lock.unlock();
      CutOnNode c;
      bool more = false;
      NodeIndex p;
      uint64_t last_start = 0;
      std::exception_ptr error;
      try {
        more = f->inner_->Next(&c);
        p = f->inner_->Progress();
        last_start = f->inner_->LastStartTs();
      } catch (...) {  // not to end the process from a worker: the consumer gets it
        error = std::current_exception();
        more = false;
      }
      lock.lock();
      f->busy_ = false;
      if (more) {
        try {
          f->queue_.push_back(std::move(c));
        } catch (...) {
          error = std::current_exception();
          more = false;
        }
      }
      if (error) {
        f->error_ = error;
      } else {
        f->progress_ = std::move(p);
        f->last_start_ = last_start;
      }
      f->done_ = !more;
      Schedule(f);
    }
  }

  const size_t threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Feed*> ready_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace

std::vector<std::unique_ptr<CutFeed>> AheadFeeds(std::vector<std::unique_ptr<CutFeed>> inner, size_t threads) {
  auto pool = std::make_shared<FeedPool>(std::max<size_t>(threads, 1));
  std::vector<std::unique_ptr<CutFeed>> out;
  for (auto& f : inner) out.push_back(pool->Add(std::move(f)));
  return out;
}

wal::Result<std::unique_ptr<CutFeed>> WalFeed(const std::string& node, const wal::WalLocation& wal_dir, RecordTap tap,
                                              std::optional<wal::Uuid> stop) {
  auto stream = NodeIndexStream::Open(node, wal_dir, std::move(tap), false, stop);
  if (!stream.ok()) return stream.status();
  return std::unique_ptr<CutFeed>(std::make_unique<WalStreamFeed>(std::move(stream).value()));
}

}  // namespace cut
