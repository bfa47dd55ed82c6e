#pragma once
// Iterator<Batch>: what a data loader's begin() and end() return (torch::data::Iterator).
//
// begin() gives a valid iterator; it fetches its first batch lazily, when first
// dereferenced, incremented or compared with end(), so making it costs nothing and a
// batch that throws does so inside the loop. end() gives a sentinel. Copies of an iterator
// share its state (incrementing one advances all: it is an input iterator). Two valid
// iterators are equal only if they are copies of each other; a valid iterator equals the
// sentinel once the epoch has no more batches; two sentinels are equal.
//
// When fetching the next batch throws, the iterator keeps its current batch, so a loop
// that catches the error may go on with ++it. Misuse (incrementing or dereferencing past
// the end, or the sentinel) raises nabla::Error.
#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <utility>

#include "nabla/core/error.h"
#include "nabla/core/optional.h"

namespace nabla::data {

namespace detail {

/// The state shared by copies of a valid iterator.
template <class Batch>
class IteratorState {
 public:
  using BatchProducer = std::function<optional<Batch>()>;
  explicit IteratorState(BatchProducer next_batch) : next_batch_(std::move(next_batch)) {}

  void advance() {
    start();
    NABLA_CHECK(batch_.has_value(), "Attempted to increment iterator past the end");
    // Assigned only once the producer returns: a throw leaves the current batch in place.
    batch_ = next_batch_();
  }
  Batch& get() {
    start();
    NABLA_CHECK(batch_.has_value(), "Attempted to dereference iterator that was past the end");
    return *batch_;
  }
  bool exhausted() {
    start();
    return !batch_.has_value();
  }

 private:
  // The first batch is fetched on first use; if that throws, the next use tries again.
  void start() {
    if (started_) return;
    batch_ = next_batch_();
    started_ = true;
  }

  BatchProducer next_batch_;
  optional<Batch> batch_;
  bool started_ = false;
};

}  // namespace detail

template <class Batch>
class Iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = Batch;
  using pointer = Batch*;
  using reference = Batch&;
  using iterator_category = std::input_iterator_tag;

  /// The sentinel (end()).
  Iterator() = default;
  /// A valid iterator over the batches `state` produces.
  explicit Iterator(std::shared_ptr<detail::IteratorState<Batch>> state)
      : state_(std::move(state)) {}

  Iterator& operator++() {
    NABLA_CHECK(state_ != nullptr,
                "Incrementing the DataLoader's past-the-end iterator is not allowed");
    state_->advance();
    return *this;
  }
  Batch& operator*() const {
    NABLA_CHECK(state_ != nullptr,
                "Dereferencing the DataLoader's past-the-end iterator is not allowed");
    return state_->get();
  }
  Batch* operator->() const { return &**this; }

  // Comparing with the sentinel may fetch the first batch (see above).
  bool operator==(const Iterator& other) const {
    if (state_ && other.state_) return state_ == other.state_;
    if (!state_ && !other.state_) return true;
    return (state_ ? state_ : other.state_)->exhausted();
  }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  std::shared_ptr<detail::IteratorState<Batch>> state_;
};

}  // namespace nabla::data
