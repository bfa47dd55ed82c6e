#pragma once
// Samplers, as torch::data::samplers: which example indices make up the next batch.
// RandomSampler draws its permutation from nabla's generator, so the order is fixed by
// manual_seed (or the generator passed in) and independent of the thread count.
#include <cstddef>
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

}  // namespace nabla::data::samplers
