#pragma once
// ChunkDataset: a stateful dataset over data stored in chunks (files, shards), as
// torch::data::datasets::ChunkDataset.
//
// A ChunkDataReader reads chunk i as a vector of examples. At reset() the dataset starts
// `preloader_count` threads; each takes the next `cross_chunk_shuffle_count` chunk indices
// from the chunk sampler, reads and concatenates those chunks, applies the optional
// preprocessing policy, and hands the examples, in the order the example sampler draws,
// to a buffer of batches holding at most about `cache_size` examples (a preloader waits
// while it is full). get_batch(batch_size) takes the next full batch; when every chunk has
// been read it returns what is left (the last batch may be short), then nullopt.
//
//   auto dataset = datasets::make_shared_dataset<datasets::ChunkDataset<MyReader>>(
//       MyReader(files), samplers::RandomSampler(0), samplers::RandomSampler(0),
//       datasets::ChunkDatasetOptions(/*preloader_count=*/2, /*batch_size=*/64));
//   auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(64));
//
// The reader's read_chunk is called from several preloader threads at once. An exception
// thrown while reading a chunk is raised by the get_batch that reaches it, as a
// WorkerException holding the original; the other chunks are still read. save() writes the
// chunk sampler's position; load() makes the next reset() resume from it.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/data/datasets/base.h"
#include "nabla/data/samplers.h"
#include "nabla/data/worker_exception.h"
#include "nabla/nn/options/arg.h"

namespace nabla::data::datasets {

template <class ExampleT, class ChunkT = std::vector<ExampleT>>
class ChunkDataReader {
 public:
  using ChunkType = ChunkT;
  using ExampleType = ExampleT;
  virtual ~ChunkDataReader() = default;
  /// The examples of chunk `chunk_index` (0 <= chunk_index < chunk_count()).
  virtual ChunkType read_chunk(size_t chunk_index) = 0;
  virtual size_t chunk_count() = 0;
  /// Called at the start of every epoch.
  virtual void reset() = 0;
};

struct ChunkDatasetOptions {
  ChunkDatasetOptions() = delete;
  /// Every count must be positive and cache_size >= batch_size (nabla::Error otherwise).
  ChunkDatasetOptions(size_t preloader_count, size_t batch_size, size_t cache_size = 2048,
                      size_t cross_chunk_shuffle_count = 1);
  /// Raises nabla::Error naming the first option out of range (the setters do not check;
  /// ChunkDataset calls this).
  void validate() const;

  /// Threads reading chunks.
  NABLA_ARG(size_t, preloader_count);
  /// The one batch size get_batch accepts.
  NABLA_ARG(size_t, batch_size);
  /// Examples buffered ahead before the preloaders wait.
  NABLA_ARG(size_t, cache_size) = 2048;
  /// Chunks read together and mixed by the example sampler.
  NABLA_ARG(size_t, cross_chunk_shuffle_count) = 1;
};

namespace detail {

/// The batch type of a reader: its BatchType where it names one (LibTorch's readers do),
/// else its ChunkType.
template <class Reader>
struct ChunkBatch {
  using type = typename Reader::ChunkType;
};
template <class Reader>
requires requires { typename Reader::BatchType; }
struct ChunkBatch<Reader> {
  using type = typename Reader::BatchType;
};

/// The batches made from preloaded chunks, between the preloader threads (add_chunk,
/// add_error) and get_batch. Only the last batch may be partial: the next chunk's examples
/// fill it first. `example_sampler` orders each chunk's examples; it is used under this
/// buffer's lock only.
template <class Batch, class ExampleSampler>
class BatchBuffer {
 public:
  BatchBuffer(size_t batch_size, ExampleSampler& example_sampler, size_t capacity)
      : batch_size_(batch_size), example_sampler_(example_sampler), capacity_(capacity) {}

  /// The next full batch, waiting for one; after stop(), what is left, then nullopt. A
  /// stored error is raised as a WorkerException.
  optional<Batch> get_batch() {
    std::unique_lock<std::mutex> lock(mutex_);
    filled_.wait(lock, [this] {
      return stopped_ || examples_ >= batch_size_ || (!entries_.empty() && entries_.front().error);
    });
    if (entries_.empty()) return nullopt;
    Entry entry = std::move(entries_.front());
    entries_.pop_front();
    examples_ -= entry.batch.size();
    lock.unlock();
    drained_.notify_all();
    if (entry.error) throw WorkerException(entry.error);
    return std::move(entry.batch);
  }

  /// Adds a chunk's examples in the example sampler's order; waits while the buffer is
  /// full. Does nothing after stop().
  void add_chunk(Batch chunk) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!wait_for_room(lock)) return;
    const size_t n = chunk.size();
    example_sampler_.reset(n);
    for (size_t added = 0; added < n;) {
      if (entries_.empty() || entries_.back().error || entries_.back().batch.size() >= batch_size_)
        entries_.emplace_back();
      Batch& batch = entries_.back().batch;
      auto indices = example_sampler_.next(batch_size_ - batch.size());
      if (!indices || indices->size() == 0) break;
      for (size_t i : *indices) {
        NABLA_CHECK(i < n, "ChunkDataset: the example sampler gave index ", i, " for a chunk of ",
                    n, " examples");
        batch.push_back(std::move(chunk[i]));
        ++examples_;
        ++added;
      }
    }
    if (!entries_.empty() && !entries_.back().error && entries_.back().batch.size() == 0)
      entries_.pop_back();
    lock.unlock();
    filled_.notify_all();
  }

  /// Queues an error in place of a chunk; waits while the buffer is full.
  void add_error(std::exception_ptr error) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!wait_for_room(lock)) return;
    entries_.emplace_back();
    entries_.back().error = std::move(error);
    lock.unlock();
    filled_.notify_all();
  }

  /// No more chunks: waiting adders return, get_batch drains what is left.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    filled_.notify_all();
    drained_.notify_all();
  }

 private:
  struct Entry {
    Batch batch;
    std::exception_ptr error;
  };
  // False when stopped while waiting.
  bool wait_for_room(std::unique_lock<std::mutex>& lock) {
    drained_.wait(lock, [this] { return stopped_ || examples_ < capacity_; });
    return !stopped_;
  }

  const size_t batch_size_;
  ExampleSampler& example_sampler_;
  const size_t capacity_;
  std::deque<Entry> entries_;
  size_t examples_ = 0;  // in entries_, every batch counted
  bool stopped_ = false;
  std::mutex mutex_;
  std::condition_variable filled_, drained_;
};

}  // namespace detail

template <class ChunkReader, class ChunkSampler = samplers::RandomSampler,
          class ExampleSampler = samplers::RandomSampler>
class ChunkDataset final
    : public StatefulDataset<ChunkDataset<ChunkReader, ChunkSampler, ExampleSampler>,
                             typename detail::ChunkBatch<ChunkReader>::type, size_t> {
 public:
  using UnwrappedBatchType = typename detail::ChunkBatch<ChunkReader>::type;
  using BatchType = optional<UnwrappedBatchType>;
  using BatchRequestType = size_t;
  using ChunkSamplerType = ChunkSampler;
  using ExampleSamplerType = ExampleSampler;

  /// `preprocessing_policy`, when given, is applied to the examples of each read (after
  /// concatenating cross_chunk_shuffle_count chunks), before they are batched.
  ChunkDataset(ChunkReader chunk_reader, ChunkSampler chunk_sampler, ExampleSampler example_sampler,
               ChunkDatasetOptions options,
               std::function<void(UnwrappedBatchType&)> preprocessing_policy = {})
      : chunk_reader_(std::move(chunk_reader)),
        chunk_sampler_(std::move(chunk_sampler)),
        example_sampler_(std::move(example_sampler)),
        options_(std::move(options)),
        preprocessing_policy_(std::move(preprocessing_policy)) {
    options_.validate();
  }
  ChunkDataset(const ChunkDataset&) = delete;
  ChunkDataset& operator=(const ChunkDataset&) = delete;
  ~ChunkDataset() override { stop_preloaders(); }

  /// The next batch (nullopt once the epoch's chunks are used up). `batch_size` must be
  /// the options' batch_size, and reset() must have been called.
  BatchType get_batch(size_t batch_size) override {
    NABLA_CHECK(buffer_ != nullptr, "Dataset needs to call reset() before calling get_batch().");
    NABLA_CHECK(batch_size == options_.batch_size(),
                "The requested batch size does not match with the initialized batch size.\n"
                " The requested batch size is ",
                batch_size, ", while the dataset is created with batch size equal to ",
                options_.batch_size());
    return buffer_->get_batch();
  }
  BatchType get_batch() { return get_batch(options_.batch_size()); }

  /// Starts an epoch: stops the previous epoch's preloaders, resets the reader and the
  /// chunk sampler (over chunk_count() chunks; not after load(), which resumes) and starts
  /// new preloaders.
  void reset() override {
    stop_preloaders();
    chunk_reader_.reset();
    {
      std::lock_guard<std::mutex> lock(chunk_mutex_);
      if (!resume_) chunk_sampler_.reset(chunk_reader_.chunk_count());
      resume_ = false;
    }
    buffer_ =
        std::make_unique<Buffer>(options_.batch_size(), example_sampler_, options_.cache_size());
    quit_ = false;
    running_ = options_.preloader_count();
    for (size_t i = 0; i < options_.preloader_count(); ++i)
      preloaders_.emplace_back([this] { preload(); });
  }

  /// Unknown: chunks are only counted in examples once read.
  optional<size_t> size() const override { return nullopt; }

  ChunkSamplerType& chunk_sampler() { return chunk_sampler_; }

  /// The chunk sampler's state (its save()): where the epoch is, in chunks.
  void save(serialize::OutputArchive& archive) const override {
    std::lock_guard<std::mutex> lock(chunk_mutex_);
    chunk_sampler_.save(archive);
  }
  /// Loads the chunk sampler; the next reset() resumes from it instead of restarting.
  void load(serialize::InputArchive& archive) override {
    std::lock_guard<std::mutex> lock(chunk_mutex_);
    chunk_sampler_.load(archive);
    resume_ = true;
  }

 private:
  using Buffer = detail::BatchBuffer<UnwrappedBatchType, ExampleSampler>;

  void preload() {
    while (!quit_.load()) {
      std::vector<size_t> chunks;
      try {
        std::lock_guard<std::mutex> lock(chunk_mutex_);
        auto next = chunk_sampler_.next(options_.cross_chunk_shuffle_count());
        if (!next) break;
        chunks.assign(next->begin(), next->end());
      } catch (...) {  // a sampler that fails once would fail again: report and stop
        buffer_->add_error(std::current_exception());
        break;
      }
      if (chunks.empty()) break;
      try {
        UnwrappedBatchType data = chunk_reader_.read_chunk(chunks[0]);
        for (size_t i = 1; i < chunks.size(); ++i) {
          UnwrappedBatchType more = chunk_reader_.read_chunk(chunks[i]);
          std::move(more.begin(), more.end(), std::back_inserter(data));
        }
        if (preprocessing_policy_) preprocessing_policy_(data);
        if (data.size() > 0) buffer_->add_chunk(std::move(data));
      } catch (...) {  // this read failed; the next chunks may not
        buffer_->add_error(std::current_exception());
      }
    }
    if (--running_ == 0) buffer_->stop();
  }

  void stop_preloaders() {
    quit_ = true;
    if (buffer_) buffer_->stop();
    for (auto& t : preloaders_) t.join();
    preloaders_.clear();
  }

  ChunkReader chunk_reader_;
  ChunkSampler chunk_sampler_;
  ExampleSampler example_sampler_;
  ChunkDatasetOptions options_;
  std::function<void(UnwrappedBatchType&)> preprocessing_policy_;
  std::unique_ptr<Buffer> buffer_;
  std::vector<std::thread> preloaders_;
  std::atomic<bool> quit_{false};
  std::atomic<size_t> running_{0};
  mutable std::mutex chunk_mutex_;  // guards chunk_sampler_ and resume_
  bool resume_ = false;
};

}  // namespace nabla::data::datasets
