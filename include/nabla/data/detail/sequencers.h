#pragma once
// Sequencers put the results of a data loader's workers back in the order their jobs were
// issued (LibTorch's torch::data::detail::sequencers). Results carry a `sequence_number`;
// a sequencer pulls them from a producer and hands them on.
//   NoSequencer:      in arrival order (DataLoaderOptions::enforce_ordering(false)).
//   OrderedSequencer: in sequence order, holding early arrivals in a ring of max_jobs
//                     slots (at most max_jobs jobs are in flight, so slots never collide).
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/core/optional.h"

namespace nabla::data::detail::sequencers {

template <class Result>
struct Sequencer {
  /// Gives the next result that arrived (nullopt: no more will).
  using ResultProducer = std::function<optional<Result>()>;
  virtual ~Sequencer() = default;
  /// The next result in this sequencer's order, or nullopt when the producer has no more.
  virtual optional<Result> next(ResultProducer next_result) = 0;
};

template <class Result>
struct NoSequencer final : Sequencer<Result> {
  using typename Sequencer<Result>::ResultProducer;
  optional<Result> next(ResultProducer next_result) override { return next_result(); }
};

template <class Result>
struct OrderedSequencer : Sequencer<Result> {
  using typename Sequencer<Result>::ResultProducer;

  /// `max_jobs`: how many results can be in flight at once (the ring's size, > 0).
  explicit OrderedSequencer(size_t max_jobs) : buffer_(max_jobs) {
    NABLA_CHECK(max_jobs > 0, "OrderedSequencer: max_jobs must be positive, got 0");
  }

  optional<Result> next(ResultProducer next_result) override {
    if (auto& early = slot(next_sequence_number_)) {
      optional<Result> result = std::move(early);
      early.reset();
      ++next_sequence_number_;
      return result;
    }
    while (true) {
      optional<Result> result = next_result();
      if (!result) return nullopt;
      const size_t number = result->sequence_number;
      if (number == next_sequence_number_) {
        ++next_sequence_number_;
        return result;
      }
      NABLA_CHECK(number > next_sequence_number_ && number - next_sequence_number_ < buffer_.size(),
                  "OrderedSequencer: result ", number, " arrived while waiting for ",
                  next_sequence_number_, " with room for ", buffer_.size(),
                  " results (more jobs in flight than max_jobs?)");
      auto& place = slot(number);
      NABLA_ASSERT(!place.has_value(), "OrderedSequencer: result ", number, " arrived twice");
      place = std::move(result);
    }
  }

  /// The sequence number handed out next.
  size_t next_sequence_number_ = 0;
  /// Results that arrived early, at sequence_number % size().
  std::vector<optional<Result>> buffer_;

 private:
  optional<Result>& slot(size_t number) { return buffer_[number % buffer_.size()]; }
};

}  // namespace nabla::data::detail::sequencers
