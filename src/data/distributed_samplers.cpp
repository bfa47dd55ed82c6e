// The distributed samplers: each replica's share of the dataset's indices, the same
// partition as LibTorch's (tests/libtorch/test_samplers_libtorch.cpp compares them).
#include <algorithm>
#include <numeric>
#include <random>

#include "nabla/core/error.h"
#include "nabla/data/samplers.h"

namespace nabla::data::samplers {

DistributedSampler::DistributedSampler(size_t size, size_t num_replicas, size_t rank,
                                       bool allow_duplicates)
    : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
  NABLA_CHECK(num_replicas > 0, "DistributedSampler: num_replicas must be positive, got 0");
  NABLA_CHECK(rank < num_replicas, "DistributedSampler: rank ", rank,
              " is out of range for num_replicas ", num_replicas, " (expected 0 <= rank < ",
              num_replicas, ")");
}

size_t DistributedSampler::local_sample_count() const {
  return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
}

void DistributedSampler::place_share() {
  begin_index_ = rank_ * local_sample_count();
  end_index_ = begin_index_ + local_sample_count();
  sample_index_ = begin_index_;
}

optional<std::pair<size_t, size_t>> DistributedSampler::take(size_t batch_size) {
  if (sample_index_ >= end_index_) return nullopt;
  const size_t from = sample_index_;
  sample_index_ = std::min(end_index_, sample_index_ + batch_size);
  return std::make_pair(from, sample_index_);
}

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  reset(size_);
}

void DistributedRandomSampler::reset(optional<size_t> new_size) {
  size_ = new_size.value_or(size_);
  const size_t local = local_sample_count();
  // Every replica holds the whole padded index list (padding wraps to the start) and
  // shuffles it with the epoch's seed, so the replicas' slices are disjoint.
  const size_t total = num_replicas_ == 1 ? size_ : local * num_replicas_;
  indices_.resize(total);
  std::iota(indices_.begin(), indices_.begin() + static_cast<ptrdiff_t>(std::min(total, size_)),
            size_t{0});
  for (size_t i = size_; i < total; ++i) indices_[i] = i - size_;
  std::mt19937 engine(static_cast<std::mt19937::result_type>(epoch_));
  std::shuffle(indices_.begin(), indices_.end(), engine);
  place_share();
}

optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  const auto range = take(batch_size);
  if (!range) return nullopt;
  return std::vector<size_t>(indices_.begin() + static_cast<ptrdiff_t>(range->first),
                             indices_.begin() + static_cast<ptrdiff_t>(range->second));
}

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas,
                                                           size_t rank, bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  place_share();
}

void DistributedSequentialSampler::reset(optional<size_t> new_size) {
  size_ = new_size.value_or(size_);
  place_share();
}

optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  const auto range = take(batch_size);
  if (!range) return nullopt;
  std::vector<size_t> out(range->second - range->first);
  for (size_t i = 0; i < out.size(); ++i) out[i] = (range->first + i) % size_;
  return out;
}

}  // namespace nabla::data::samplers
