// The distributed samplers: each replica's share of the dataset's indices, the same
// partition as LibTorch's (tests/libtorch/test_samplers_libtorch.cpp compares them).
#include <algorithm>
#include <numeric>
#include <random>

#include "nabla/core/error.h"
#include "nabla/data/samplers.h"

namespace nabla::data::samplers {

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : DistributedSampler<>(size, num_replicas, rank, allow_duplicates) {
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

void DistributedRandomSampler::save(serialize::OutputArchive& archive) const {
  save_position(archive);
}

void DistributedRandomSampler::load(serialize::InputArchive& archive) {
  // The permutation is a function of the epoch: redraw it, then move to the saved place.
  epoch_ = load_epoch(archive);
  reset();
  load_sample_index(archive);
}

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas,
                                                           size_t rank, bool allow_duplicates)
    : DistributedSampler<>(size, num_replicas, rank, allow_duplicates) {
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

void DistributedSequentialSampler::save(serialize::OutputArchive& archive) const {
  save_position(archive);
}

void DistributedSequentialSampler::load(serialize::InputArchive& archive) {
  epoch_ = load_epoch(archive);
  place_share();
  load_sample_index(archive);
}

}  // namespace nabla::data::samplers
