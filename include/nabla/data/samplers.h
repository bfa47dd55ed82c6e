#pragma once
// Samplers, as torch::data::samplers: which example indices make up the next batch.
// RandomSampler draws its permutation from nabla's generator, so the order is fixed by
// manual_seed (or the generator passed in) and independent of the thread count.
#include <cstddef>
#include <utility>
#include <vector>

#include "nabla/core/generator.h"
#include "nabla/core/optional.h"

namespace nabla::data::samplers {

class Sampler {
 public:
  using BatchRequestType = std::vector<size_t>;
  virtual ~Sampler() = default;
  /// Starts a new epoch (optionally over a new dataset size).
  virtual void reset(optional<size_t> new_size = nullopt) = 0;
  /// The next indices (at most batch_size), or nullopt at the end of the epoch.
  virtual optional<std::vector<size_t>> next(size_t batch_size) = 0;
};

class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  size_t index_ = 0;
};

class RandomSampler : public Sampler {
 public:
  /// A new permutation per epoch from `generator` (the default generator if none).
  explicit RandomSampler(int64_t size, optional<Generator> generator = nullopt);
  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  optional<Generator> generator_;
  std::vector<size_t> permutation_;
  size_t index_ = 0;
};

/// What the distributed samplers share (LibTorch's DistributedSampler): `num_replicas`
/// processes each take `local_sample_count()` indices of a dataset of `size`; with
/// `allow_duplicates` that count is rounded up and the indices wrap around to fill the
/// last replicas, otherwise rounded down and the last indices are left out.
class DistributedSampler : public Sampler {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                     bool allow_duplicates = true);
  /// The epoch seeds the random sampler's permutation: call it before each epoch's reset()
  /// (every replica with the same value) to get a new order per epoch.
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }
  /// Where in its share this replica is (LibTorch's index()).
  size_t index() const noexcept { return sample_index_; }

 protected:
  size_t local_sample_count() const;
  /// Places this replica's share at [rank * n, (rank + 1) * n) and rewinds to its start.
  void place_share();
  /// The next [from, to) of at most `batch_size` positions of the share; nullopt at its end.
  optional<std::pair<size_t, size_t>> take(size_t batch_size);

  size_t begin_index_ = 0, end_index_ = 0, sample_index_ = 0;
  size_t size_;
  size_t num_replicas_;
  size_t rank_;
  size_t epoch_ = 0;
  bool allow_duplicates_;
};

/// This replica's share of a permutation drawn from std::mt19937(epoch), the same draw on
/// every replica, so the shares partition the (padded) dataset: the indices LibTorch's
/// DistributedRandomSampler gives for the same arguments.
class DistributedRandomSampler : public DistributedSampler {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                           bool allow_duplicates = true);
  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;

 private:
  std::vector<size_t> indices_;  // the whole permutation; this replica reads its slice
};

/// This replica's contiguous share, in order: [rank * n, (rank + 1) * n) modulo size.
class DistributedSequentialSampler : public DistributedSampler {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                               bool allow_duplicates = true);
  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
};

}  // namespace nabla::data::samplers
