#pragma once
// Samplers, as torch::data::samplers: what the next batch asks a dataset for. A
// Sampler<BatchRequest> answers next(batch_size) with a request (by default a list of
// example indices), or nullopt at the end of the epoch; reset() starts a new epoch.
// RandomSampler draws its permutation from nabla's generator, so the order is fixed by
// manual_seed (or the generator passed in) and independent of the thread count.
// Every sampler saves its position to an archive and resumes from it:
//   nabla::save(sampler, "sampler.safetensors"); ... nabla::load(sampler, "sampler.safetensors");
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/core/generator.h"
#include "nabla/core/optional.h"
#include "nabla/serialize/archive.h"

namespace nabla::data::samplers {

/// A batch request other than a vector of indices (a stream's batch size, a custom index
/// type): the loader asks it for size() to apply drop_last.
struct CustomBatchRequest {
  virtual ~CustomBatchRequest() = default;
  /// The number of examples the request asks for.
  virtual size_t size() const = 0;
};

template <class BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;
  virtual ~Sampler() = default;
  /// Starts a new epoch, over `new_size` examples when given (else the current size).
  virtual void reset(optional<size_t> new_size = nullopt) = 0;
  /// The next request for at most `batch_size` examples, or nullopt at the epoch's end.
  virtual optional<BatchRequest> next(size_t batch_size) = 0;
  /// Writes the sampler's position (and what it needs to resume) to `archive`.
  virtual void save(serialize::OutputArchive& archive) const = 0;
  /// Restores what save() wrote; a missing or inconsistent entry raises nabla::Error.
  virtual void load(serialize::InputArchive& archive) = 0;
};

/// `archive << sampler` and `archive >> sampler`, LibTorch's spelling of save and load.
template <class BatchRequest>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                     const Sampler<BatchRequest>& sampler) {
  sampler.save(archive);
  return archive;
}
template <class BatchRequest>
serialize::InputArchive& operator>>(serialize::InputArchive& archive,
                                    Sampler<BatchRequest>& sampler) {
  sampler.load(archive);
  return archive;
}

/// 0, 1, ..., size - 1 in order.
class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Writes "index" and "size".
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// How many indices this epoch has handed out.
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  size_t index_ = 0;
};

/// A permutation of 0 .. size - 1, new at every reset().
class RandomSampler : public Sampler<> {
 public:
  /// A new permutation per epoch from `generator` (the default generator if none).
  explicit RandomSampler(int64_t size, optional<Generator> generator = nullopt);
  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Writes "index" and the permutation ("indices", int64), so a loaded sampler goes on
  /// with the same order.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  optional<Generator> generator_;
  std::vector<size_t> permutation_;
  size_t index_ = 0;
};

/// A stream's request: only how many examples the batch should hold. Converts to size_t,
/// so a StreamDataset's get_batch(size_t) takes it as it is.
struct BatchSize : CustomBatchRequest {
  explicit BatchSize(size_t size) : size_(size) {}
  size_t size() const noexcept override { return size_; }
  operator size_t() const noexcept { return size_; }  // NOLINT: implicit, as LibTorch's
  size_t size_;
};

/// For datasets without indices (StreamDataset): asks for batch_size examples at a time
/// until `epoch_size` examples were asked for in the epoch (the last request may be less).
class StreamSampler : public Sampler<BatchSize> {
 public:
  explicit StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}
  void reset(optional<size_t> new_size = nullopt) override;
  optional<BatchSize> next(size_t batch_size) override;
  /// Writes "examples_retrieved_so_far" and "epoch_size".
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  size_t examples_retrieved_so_far_ = 0;
  size_t epoch_size_;
};

/// What the distributed samplers share (LibTorch's DistributedSampler): `num_replicas`
/// processes each take `local_sample_count()` indices of a dataset of `size`; with
/// `allow_duplicates` that count is rounded up and the indices wrap around to fill the
/// last replicas, otherwise rounded down and the last indices are left out.
template <class BatchRequest = std::vector<size_t>>
class DistributedSampler : public Sampler<BatchRequest> {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                     bool allow_duplicates = true)
      : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
    NABLA_CHECK(num_replicas > 0, "DistributedSampler: num_replicas must be positive, got 0");
    NABLA_CHECK(rank < num_replicas, "DistributedSampler: rank ", rank,
                " is out of range for num_replicas ", num_replicas, " (expected 0 <= rank < ",
                num_replicas, ")");
  }
  /// The epoch seeds the random sampler's permutation: call it before each epoch's reset()
  /// (every replica with the same value) to get a new order per epoch.
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }
  /// Where in its share this replica is (LibTorch's index()).
  size_t index() const noexcept { return sample_index_; }

 protected:
  size_t local_sample_count() const {
    return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  }
  /// Places this replica's share at [rank * n, (rank + 1) * n) and rewinds to its start.
  void place_share() {
    begin_index_ = rank_ * local_sample_count();
    end_index_ = begin_index_ + local_sample_count();
    sample_index_ = begin_index_;
  }
  /// The next [from, to) of at most `batch_size` positions of the share; nullopt at its end.
  optional<std::pair<size_t, size_t>> take(size_t batch_size) {
    if (sample_index_ >= end_index_) return nullopt;
    const size_t from = sample_index_;
    sample_index_ = std::min(end_index_, sample_index_ + batch_size);
    return std::make_pair(from, sample_index_);
  }
  /// Writes "epoch" and "sample_index". Loading reads the epoch, the caller rebuilds the
  /// share for it, then load_sample_index() moves to the saved place (checked to lie in
  /// the share).
  void save_position(serialize::OutputArchive& archive) const {
    archive.write("epoch", static_cast<int64_t>(epoch_));
    archive.write("sample_index", static_cast<int64_t>(sample_index_));
  }
  size_t load_epoch(serialize::InputArchive& archive) {
    int64_t epoch = 0;
    archive.read("epoch", epoch);
    NABLA_CHECK(epoch >= 0, "DistributedSampler::load: 'epoch' is ", epoch, ", expected >= 0");
    return static_cast<size_t>(epoch);
  }
  void load_sample_index(serialize::InputArchive& archive) {
    int64_t index = 0;
    archive.read("sample_index", index);
    NABLA_CHECK(index >= 0 && static_cast<size_t>(index) >= begin_index_ &&
                    static_cast<size_t>(index) <= end_index_,
                "DistributedSampler::load: 'sample_index' ", index,
                " is outside this replica's share [", begin_index_, ", ", end_index_, "]");
    sample_index_ = static_cast<size_t>(index);
  }

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
class DistributedRandomSampler : public DistributedSampler<> {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                           bool allow_duplicates = true);
  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Writes the epoch and the position; load() redraws the epoch's permutation.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  std::vector<size_t> indices_;  // the whole permutation; this replica reads its slice
};

/// This replica's contiguous share, in order: [rank * n, (rank + 1) * n) modulo size.
class DistributedSequentialSampler : public DistributedSampler<> {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                               bool allow_duplicates = true);
  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
};

}  // namespace nabla::data::samplers
