#pragma once
// DataLoaderBase: what the stateless and stateful data loaders share (torch::data's
// DataLoaderBase): the epoch, the iterator, the worker threads and their queues.
//
// An epoch starts at begin(): the loader resets its source (the sampler, or the stateful
// dataset) and, with workers, queues up to max_jobs batch requests (jobs) for them. Each
// batch the loop takes queues one more. Results are numbered by job; with enforce_ordering
// they reach the loop in job order (detail::sequencers). Without workers the loop's own
// thread makes each batch when the iterator advances.
//
// Errors: an exception thrown while a worker makes a batch reaches the loop at that batch
// as a WorkerException (the original in its original_exception); without workers it
// propagates as it is. Either way the loop may catch it and continue with ++it. With a
// timeout, waiting longer for a batch raises nabla::Error ("Timeout ...").
//
// begin() while an iterator of the current epoch is still alive and has batches in flight
// raises nabla::Error; once that iterator is gone (a loop left with break), begin() drops
// the rest of its epoch and starts a new one. The destructor stops the workers even in
// the middle of an epoch.
#include <cstddef>
#include <exception>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "nabla/core/cuda.h"
#include "nabla/core/error.h"
#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/data/dataloader_options.h"
#include "nabla/data/detail/data_shuttle.h"
#include "nabla/data/detail/sequencers.h"
#include "nabla/data/iterator.h"
#include "nabla/data/worker_exception.h"

namespace nabla::data {

namespace detail {
inline void pin(Tensor& t) {
  if (t.defined()) t = t.pin_memory();
}
/// Pins the tensors of a batch: an example's data (and target), or each of a range's.
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

template <class Dataset, class Batch, class BatchRequest>
class DataLoaderBase {
 public:
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;

  /// `main_thread_dataset`: the dataset the loop's thread reads (or, for a stateful
  /// loader, the one every worker shares).
  explicit DataLoaderBase(DataLoaderOptions options,
                          std::unique_ptr<Dataset> main_thread_dataset = nullptr)
      : options_(std::move(options)), main_thread_dataset_(std::move(main_thread_dataset)) {
    NABLA_CHECK(options_.batch_size > 0, "DataLoader: batch_size must be positive, got 0");
    NABLA_CHECK(options_.workers == 0 || options_.max_jobs > 0,
                "DataLoader: max_jobs must be positive when there are workers, got 0");
  }
  DataLoaderBase(const DataLoaderBase&) = delete;
  DataLoaderBase& operator=(const DataLoaderBase&) = delete;
  virtual ~DataLoaderBase() { join(); }

  /// Starts an epoch (see above) and returns its iterator.
  Iterator<Batch> begin() {
    NABLA_CHECK(shuttle_.in_flight_jobs() == 0 || live_iterator_.expired(),
                "Attempted to get a new DataLoader iterator while another iterator is not yet "
                "exhausted");
    NABLA_CHECK(!options_.pin_memory || cuda::is_available(),
                "DataLoader: pin_memory(true) needs a CUDA device (cuda::is_available() is false)");
    reset();
    auto state = std::make_shared<detail::IteratorState<Batch>>([this] { return next(); });
    live_iterator_ = state;
    return Iterator<Batch>(std::move(state));
  }
  /// The sentinel every valid iterator equals once its epoch is over.
  Iterator<Batch> end() { return Iterator<Batch>(); }

  /// Stops the workers (waiting for the batches they are making). The loader is unusable
  /// afterwards; the destructor calls it.
  void join() {
    if (joined_) return;
    joined_ = true;
    shuttle_.drain();
    for (size_t i = 0; i < workers_.size(); ++i) shuttle_.push_job(Job{nullopt, 0});
    for (auto& worker : workers_) worker.join();
  }

  const FullDataLoaderOptions& options() const noexcept { return options_; }

 protected:
  struct Job {
    optional<BatchRequest> batch_request;  // none: the worker quits
    size_t sequence_number;
  };
  struct Result {
    optional<Batch> batch;  // none: a stateful dataset's epoch is over
    std::exception_ptr exception;
    size_t sequence_number;
  };

  /// The next request of the epoch, or nullopt when there is none.
  virtual optional<BatchRequest> get_batch_request() = 0;
  /// Rewinds the source of requests (the sampler, or the stateful dataset).
  virtual void reset_source() = 0;

  /// Runs jobs until told to quit; `dataset` is this worker's.
  void worker_thread(Dataset& dataset) {
    while (true) {
      Job job = shuttle_.pop_job();
      if (!job.batch_request) return;
      Result result{nullopt, nullptr, job.sequence_number};
      try {
        result.batch = dataset.get_batch(std::move(*job.batch_request));
        if (options_.pin_memory && result.batch) detail::pin(*result.batch);
      } catch (...) {
        result.exception = std::current_exception();
      }
      shuttle_.push_result(std::move(result));
    }
  }

  const FullDataLoaderOptions options_;
  std::unique_ptr<Dataset> main_thread_dataset_;
  std::vector<std::thread> workers_;

 private:
  void reset() {
    shuttle_.drain();  // what an abandoned iterator left in flight
    reset_source();
    sequence_number_ = 0;
    if (options_.workers > 0) {
      if (options_.enforce_ordering)
        sequencer_ =
            std::make_unique<detail::sequencers::OrderedSequencer<Result>>(options_.max_jobs);
      else
        sequencer_ = std::make_unique<detail::sequencers::NoSequencer<Result>>();
      prefetch(options_.max_jobs);
    }
  }

  void prefetch(size_t jobs) {
    for (size_t i = 0; i < jobs; ++i) {
      auto request = get_batch_request();
      if (!request) return;
      shuttle_.push_job(Job{std::move(request), sequence_number_++});
    }
  }

  optional<Batch> next() {
    if (options_.workers == 0) {
      auto request = get_batch_request();
      if (!request) return nullopt;
      optional<Batch> batch = main_thread_dataset_->get_batch(std::move(*request));
      if (options_.pin_memory && batch) detail::pin(*batch);
      return batch;
    }
    auto take = [this] { return shuttle_.pop_result(options_.timeout); };
    while (optional<Result> result = sequencer_->next(take)) {
      if (result->exception) {
        prefetch(1);  // the failed batch's place in the pipeline goes to the next request
        throw WorkerException(result->exception);
      }
      if (result->batch) {
        prefetch(1);
        return std::move(result->batch);
      }
    }
    return nullopt;
  }

  detail::DataShuttle<Job, Result> shuttle_;
  std::unique_ptr<detail::sequencers::Sequencer<Result>> sequencer_;
  std::weak_ptr<detail::IteratorState<Batch>> live_iterator_;
  size_t sequence_number_ = 0;
  bool joined_ = false;
};

}  // namespace nabla::data
