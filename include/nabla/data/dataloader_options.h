#pragma once
// DataLoaderOptions: what a data loader is asked for (torch::data::DataLoaderOptions);
// FullDataLoaderOptions: the same with every default filled in, what the loader uses and
// options() returns.
//   data::DataLoaderOptions(64).workers(2).timeout(std::chrono::seconds(5))
#include <chrono>
#include <cstddef>

#include "nabla/core/optional.h"
#include "nabla/nn/options/arg.h"

namespace nabla::data {

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}  // NOLINT: implicit
  NABLA_ARG(size_t, batch_size) = 1;
  /// Background threads making batches (0: the loop makes them itself).
  NABLA_ARG(size_t, workers) = 0;
  /// Batches requested ahead at most (default 2 x workers).
  NABLA_ARG(optional<size_t>, max_jobs);
  /// With workers, how long the loop waits for a batch before raising nabla::Error.
  NABLA_ARG(optional<std::chrono::milliseconds>, timeout);
  /// With workers, batches arrive in the sampler's order (else as they are finished).
  NABLA_ARG(bool, enforce_ordering) = true;
  /// A last batch smaller than batch_size is left out.
  NABLA_ARG(bool, drop_last) = false;
  /// Batches land in page-locked memory (Tensor::pin_memory), so their copies to a GPU
  /// may be asynchronous (.to(kCUDA, ..., non_blocking = true)). PyTorch's DataLoader
  /// option (nabla's); needs CUDA (a nabla::Error at begin() otherwise).
  NABLA_ARG(bool, pin_memory) = false;
};

struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(const DataLoaderOptions& options)
      : batch_size(options.batch_size()),
        workers(options.workers()),
        max_jobs(options.max_jobs().value_or(2 * options.workers())),
        timeout(options.timeout()),
        enforce_ordering(options.enforce_ordering()),
        drop_last(options.drop_last()),
        pin_memory(options.pin_memory()) {}

  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
  bool pin_memory;
};

}  // namespace nabla::data
