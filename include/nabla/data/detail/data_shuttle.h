#pragma once
// detail::DataShuttle<Job, Result>: the two queues a data loader shares with its workers,
// jobs out and results back, and the count of jobs whose result has not been taken yet
// (LibTorch's torch::data::detail::DataShuttle). The count belongs to the thread that
// pushes jobs and pops results (the loader's); workers only pop_job and push_result.
#include <chrono>
#include <cstddef>
#include <utility>

#include "nabla/core/optional.h"
#include "nabla/data/detail/queue.h"

namespace nabla::data::detail {

template <class Job, class Result>
class DataShuttle {
 public:
  /// Queues a job for a worker; it is in flight until its result is popped.
  void push_job(Job job) {
    new_jobs_.push(std::move(job));
    ++in_flight_jobs_;
  }
  /// A worker's answer to a job.
  void push_result(Result result) { results_.push(std::move(result)); }
  /// The next job, waiting for one (workers call this).
  Job pop_job() { return new_jobs_.pop(); }

  /// The next result, waiting at most `timeout` (a nabla::Error after it); nullopt at once
  /// when no job is in flight, so an epoch ends when its last result was taken.
  optional<Result> pop_result(optional<std::chrono::milliseconds> timeout = nullopt) {
    if (in_flight_jobs_ == 0) return nullopt;
    Result result = results_.pop(timeout);
    --in_flight_jobs_;
    return result;
  }

  /// Ends an epoch early: drops the jobs no worker took, waits for the results of those
  /// being worked on and drops them too. Afterwards nothing is in flight.
  void drain() {
    const size_t dropped = new_jobs_.clear();
    in_flight_jobs_ -= dropped < in_flight_jobs_ ? dropped : in_flight_jobs_;
    while (in_flight_jobs_ > 0) pop_result();
    results_.clear();  // results pushed for jobs that were dropped above
  }

  size_t in_flight_jobs() const noexcept { return in_flight_jobs_; }

 private:
  Queue<Job> new_jobs_;
  Queue<Result> results_;
  size_t in_flight_jobs_ = 0;
};

}  // namespace nabla::data::detail
