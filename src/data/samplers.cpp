// Sequential, random and stream samplers, and their archives.
#include "nabla/data/samplers.h"

#include <algorithm>

#include "data/archive_counts.h"
#include "nabla/ops/factories.h"

namespace nabla::data::samplers {

using nabla::data::detail::read_count;
using nabla::data::detail::write_count;

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

void SequentialSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "index", index_);
  write_count(archive, "size", size_);
}

void SequentialSampler::load(serialize::InputArchive& archive) {
  const size_t index = read_count(archive, "index", "SequentialSampler");
  // "size" is optional: an archive holding only the position keeps this sampler's size.
  const size_t size = archive.contains("size") ? read_count(archive, "size", "SequentialSampler")
                                               : std::max(size_, index);
  NABLA_CHECK(index <= size, "SequentialSampler::load: 'index' ", index,
              " is past the end of the saved size ", size);
  index_ = index;
  size_ = size;
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

void RandomSampler::save(serialize::OutputArchive& archive) const {
  std::vector<int64_t> indices(permutation_.begin(), permutation_.end());
  archive.write("indices", tensor(indices, TensorOptions(kLong)));
  write_count(archive, "index", index_);
}

void RandomSampler::load(serialize::InputArchive& archive) {
  Tensor indices;
  archive.read("indices", indices);
  NABLA_CHECK(indices.dim() == 1 && indices.scalar_type() == kLong,
              "RandomSampler::load: 'indices' must be a 1-d int64 tensor, got ", indices.dim(),
              "-d ", indices.scalar_type());
  const size_t index = read_count(archive, "index", "RandomSampler");
  const auto n = static_cast<size_t>(indices.numel());
  NABLA_CHECK(index <= n, "RandomSampler::load: 'index' ", index, " is past the end of the ", n,
              " saved indices");
  indices = indices.contiguous();
  const int64_t* p = indices.data_ptr<int64_t>();
  std::vector<size_t> permutation(n);
  for (size_t i = 0; i < n; ++i) {
    NABLA_CHECK(p[i] >= 0 && static_cast<size_t>(p[i]) < n, "RandomSampler::load: 'indices' holds ",
                p[i], ", not an index of ", n, " examples");
    permutation[i] = static_cast<size_t>(p[i]);
  }
  permutation_ = std::move(permutation);
  size_ = n;
  index_ = index;
}

void StreamSampler::reset(optional<size_t> new_size) {
  if (new_size) epoch_size_ = *new_size;
  examples_retrieved_so_far_ = 0;
}

optional<BatchSize> StreamSampler::next(size_t batch_size) {
  if (examples_retrieved_so_far_ >= epoch_size_) return nullopt;
  const size_t n = std::min(batch_size, epoch_size_ - examples_retrieved_so_far_);
  examples_retrieved_so_far_ += n;
  return BatchSize(n);
}

void StreamSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "examples_retrieved_so_far", examples_retrieved_so_far_);
  write_count(archive, "epoch_size", epoch_size_);
}

void StreamSampler::load(serialize::InputArchive& archive) {
  const size_t retrieved = read_count(archive, "examples_retrieved_so_far", "StreamSampler");
  const size_t epoch_size = read_count(archive, "epoch_size", "StreamSampler");
  NABLA_CHECK(retrieved <= epoch_size, "StreamSampler::load: 'examples_retrieved_so_far' ",
              retrieved, " is past the saved epoch_size ", epoch_size);
  examples_retrieved_so_far_ = retrieved;
  epoch_size_ = epoch_size;
}

}  // namespace nabla::data::samplers
