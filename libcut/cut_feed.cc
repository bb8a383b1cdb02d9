#include "libcut/cut_feed.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

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

// A node's WAL read as its cuts are asked for (WalFeed runs it ahead on a thread).
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

class AheadFeedImpl : public CutFeed {
 public:
  explicit AheadFeedImpl(std::unique_ptr<CutFeed> inner) : inner_(std::move(inner)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~AheadFeedImpl() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  bool Next(CutOnNode* out) override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !queue_.empty() || done_; });
    if (queue_.empty()) return false;
    *out = std::move(queue_.front());
    queue_.pop_front();
    cv_.notify_all();
    return true;
  }
  // The inner feed's reading, as of the cuts handed over so far.
  NodeIndex Progress() override {
    std::lock_guard<std::mutex> lock(mu_);
    return progress_;
  }
  std::vector<BaseSnapshot> Snapshots() override {
    std::lock_guard<std::mutex> lock(mu_);
    return progress_.snapshots;
  }
  uint64_t LastStartTs() override {
    std::lock_guard<std::mutex> lock(mu_);
    return last_start_;
  }

 private:
  static constexpr size_t kAhead = 2;

  void Run() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      progress_ = inner_->Progress();
      last_start_ = inner_->LastStartTs();
    }
    CutOnNode c;
    for (;;) {
      const bool more = inner_->Next(&c);
      NodeIndex p = inner_->Progress();
      const uint64_t last_start = inner_->LastStartTs();
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return queue_.size() < kAhead || stop_; });
      if (stop_) return;
      if (more) queue_.push_back(std::move(c));
      progress_ = std::move(p);
      last_start_ = last_start;
      done_ = !more;
      cv_.notify_all();
      if (!more) return;
    }
  }

  std::unique_ptr<CutFeed> inner_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<CutOnNode> queue_;
  NodeIndex progress_;
  uint64_t last_start_ = 0;
  bool done_ = false;
  bool stop_ = false;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace

std::unique_ptr<CutFeed> AheadFeed(std::unique_ptr<CutFeed> inner) {
  return std::make_unique<AheadFeedImpl>(std::move(inner));
}

wal::Result<std::unique_ptr<CutFeed>> WalFeed(const std::string& node, const wal::WalLocation& wal_dir,
                                              RecordTap tap) {
  auto stream = NodeIndexStream::Open(node, wal_dir, std::move(tap));
  if (!stream.ok()) return stream.status();
  return AheadFeed(std::make_unique<WalStreamFeed>(std::move(stream).value()));
}


}  // namespace cut
