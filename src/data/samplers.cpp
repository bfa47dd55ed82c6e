// Sequential and random samplers.
#include "nabla/data/samplers.h"

#include <algorithm>

#include "nabla/ops/factories.h"

namespace nabla::data::samplers {

void SequentialSampler::reset(optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  if (index_ >= size_) return nullopt;
  const size_t n = std::min(batch_size, size_ - index_);
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = index_ + i;
  index_ += n;
  return out;
}

RandomSampler::RandomSampler(int64_t size, optional<Generator> generator)
    : size_(static_cast<size_t>(size)), generator_(std::move(generator)) {
  NABLA_CHECK(size >= 0, "RandomSampler: negative size ", size);
  reset();
}

void RandomSampler::reset(optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  Tensor perm = randperm(static_cast<int64_t>(size_), generator_, TensorOptions(kLong));
  const int64_t* p = perm.data_ptr<int64_t>();
  permutation_.assign(p, p + size_);
  index_ = 0;
}

optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  if (index_ >= permutation_.size()) return nullopt;
  const size_t n = std::min(batch_size, permutation_.size() - index_);
  std::vector<size_t> out(permutation_.begin() + static_cast<std::ptrdiff_t>(index_),
                          permutation_.begin() + static_cast<std::ptrdiff_t>(index_ + n));
  index_ += n;
  return out;
}

}  // namespace nabla::data::samplers
