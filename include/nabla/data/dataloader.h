#pragma once
// The data loader, as torch::data's:
//   auto loader = data::make_data_loader(std::move(dataset),
//                                        data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) { ... batch.data, batch.target ... }
// With workers > 0, that many background threads compute batches ahead (at most
// max_jobs in flight) and the loop receives them in sampler order. An exception thrown
// while making a batch is rethrown by the loop at that batch, with its own type; the
// loop may catch it and continue with the next batch. Each `begin()` starts a new
// epoch; the loader's destructor stops its threads even in the middle of an epoch.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/data/datasets.h"
#include "nabla/data/samplers.h"
#include "nabla/nn/options/arg.h"

namespace nabla::data {

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}  // NOLINT
  NABLA_ARG(size_t, batch_size) = 1;
  NABLA_ARG(size_t, workers) = 0;
  /// Batches computed ahead at most (default 2 x workers).
  NABLA_ARG(optional<size_t>, max_jobs);
  NABLA_ARG(bool, drop_last) = false;
  /// Batches land in page-locked memory (Tensor::pin_memory), so their copies to a GPU
  /// may be asynchronous (.to(kCUDA, ..., non_blocking = true)). PyTorch's DataLoader
  /// option; needs CUDA (a nabla::Error on the first batch otherwise).
  NABLA_ARG(bool, pin_memory) = false;
};

namespace detail {
inline void pin(Tensor& t) {
  if (t.defined()) t = t.pin_memory();
}
/// Pins the tensors of a batch: an example's data (and target), or each of a vector's.
template <class Batch>
void pin(Batch& batch) {
  if constexpr (requires { batch.data, batch.target; }) {
    pin(batch.data);
    pin(batch.target);
  } else if constexpr (requires { batch.data; }) {
    pin(batch.data);
  } else if constexpr (requires { batch.begin(), batch.end(); }) {
    for (auto& item : batch) pin(item);
  }
}
}  // namespace detail

template <class Dataset, class Sampler>
class StatelessDataLoader {
 public:
  using Batch = typename Dataset::BatchType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : dataset_(std::move(dataset)), sampler_(std::move(sampler)), options_(std::move(options)) {
    NABLA_CHECK(options_.batch_size() > 0, "DataLoader: batch_size must be positive");
    max_jobs_ = options_.max_jobs().value_or(2 * options_.workers());
    if (options_.workers() > 0) NABLA_CHECK(max_jobs_ > 0, "DataLoader: max_jobs must be positive");
    for (size_t i = 0; i < options_.workers(); ++i)
      threads_.emplace_back([this] { worker_loop(); });
  }
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;
  ~StatelessDataLoader() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto& t : threads_) t.join();
  }

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    using pointer = Batch*;
    using reference = Batch&;
    Iterator() = default;
    explicit Iterator(StatelessDataLoader* loader) : loader_(loader) { advance(); }
    Batch& operator*() { return *current_; }
    Batch* operator->() { return &*current_; }
    Iterator& operator++() {
      advance();
      return *this;
    }
    bool operator==(const Iterator& other) const { return done() == other.done(); }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    bool done() const { return !current_.has_value(); }
    // When making the next batch throws, the iterator keeps its batch (as LibTorch's), so
    // a loop that catches the error goes on with `++it` instead of meeting end().
    void advance() {
      if (loader_ == nullptr) return;
      optional<Batch> next = loader_->next();
      current_ = std::move(next);
    }
    StatelessDataLoader* loader_ = nullptr;
    optional<Batch> current_;
  };

  /// Starts an epoch (the sampler is reset).
  Iterator begin() {
    start_epoch();
    return Iterator(this);
  }
  Iterator end() { return Iterator(); }
  const DataLoaderOptions& options() const noexcept { return options_; }

 private:
  struct Job {
    uint64_t epoch;
    uint64_t seq;
    std::vector<size_t> indices;
  };
  struct Result {
    optional<Batch> batch;
    std::exception_ptr error;
  };

  optional<std::vector<size_t>> next_indices() {
    auto indices = sampler_.next(options_.batch_size());
    if (!indices || indices->empty()) return nullopt;
    if (options_.drop_last() && indices->size() < options_.batch_size()) return nullopt;
    return indices;
  }

  void start_epoch() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++epoch_;
    jobs_.clear();
    results_.clear();
    next_seq_ = issued_ = 0;
    exhausted_ = false;
    sampler_.reset();  // as LibTorch: a sampler keeps the size it was made with
    issue_jobs_locked();
  }

  // Keeps max_jobs batches requested ahead of the consumer.
  void issue_jobs_locked() {
    while (!exhausted_ && issued_ - next_seq_ < max_jobs_) {
      auto indices = next_indices();
      if (!indices) {
        exhausted_ = true;
        break;
      }
      jobs_.push_back({epoch_, issued_++, std::move(*indices)});
      work_ready_.notify_one();
    }
  }

  optional<Batch> next() {
    if (threads_.empty()) {
      auto indices = next_indices();
      if (!indices) return nullopt;
      Batch batch = dataset_.get_batch(*indices);
      if (options_.pin_memory()) detail::pin(batch);
      return batch;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (exhausted_ && next_seq_ == issued_) return nullopt;
    result_ready_.wait(lock, [&] { return results_.count(next_seq_) != 0; });
    Result r = std::move(results_[next_seq_]);
    results_.erase(next_seq_);
    ++next_seq_;
    issue_jobs_locked();
    lock.unlock();
    if (r.error) std::rethrow_exception(r.error);
    return std::move(r.batch);
  }

  void worker_loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      work_ready_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      Job job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      Result r;
      try {
        r.batch = dataset_.get_batch(job.indices);
        if (options_.pin_memory()) detail::pin(*r.batch);
      } catch (...) {
        r.error = std::current_exception();
      }
      lock.lock();
      if (job.epoch == epoch_) {
        results_[job.seq] = std::move(r);
        result_ready_.notify_all();
      }
    }
  }

  Dataset dataset_;
  Sampler sampler_;
  DataLoaderOptions options_;
  size_t max_jobs_ = 0;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable work_ready_, result_ready_;
  std::deque<Job> jobs_;
  std::map<uint64_t, Result> results_;
  uint64_t epoch_ = 0, next_seq_ = 0, issued_ = 0;
  bool exhausted_ = false, stopping_ = false;
};

/// A loader over `dataset` drawing indices from `sampler`. `options` has no default here,
/// as in LibTorch: make_data_loader(dataset, 64) must mean a batch size, not a sampler.
template <class Dataset, class Sampler>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                        Sampler sampler,
                                                                        DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

/// A loader over `dataset` with a sampler of its size (RandomSampler by default):
///   make_data_loader<samplers::SequentialSampler>(std::move(dataset), 64)
template <class Sampler = samplers::RandomSampler, class Dataset,
          std::enable_if_t<std::is_constructible_v<Sampler, size_t>, int> = 0>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = {}) {
  const auto size = dataset.size();
  NABLA_CHECK(size.has_value(), "make_data_loader: the dataset has no size; pass a sampler");
  return make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

}  // namespace nabla::data
