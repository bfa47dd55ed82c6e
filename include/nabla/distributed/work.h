#pragma once
// Work: the handle of one asynchronous collective (c10d::Work). A process group runs its
// collectives in the order they were called, one at a time, on its own thread; the caller
// gets a Work at once and waits on it when it needs the result.
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/distributed/types.h"

namespace nabla::distributed {

class Work {
 public:
  using Clock = std::chrono::steady_clock;
  /// When the collective was called, began running and ended (steady clock); what
  /// DistributedDataParallel's timeline and the overlap test read.
  struct Timing {
    Clock::time_point queued, started, finished;
  };

  explicit Work(std::string name, std::vector<Tensor> outputs = {});
  virtual ~Work();
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  /// Whether the collective has ended (successfully or not).
  bool isCompleted();
  /// Whether it ended without an error. Requires isCompleted().
  bool isSuccess() const;
  /// The error it ended with, or null.
  std::exception_ptr exception() const;
  /// Blocks until the collective ends and rethrows its failure (a nabla::Error naming the
  /// collective, the backend and the rank). With a timeout (> 0) that passes first,
  /// throws a nabla::Error saying so; the collective itself keeps running. Returns true.
  virtual bool wait(std::chrono::milliseconds timeout = kNoTimeout);
  /// Nothing to do on the CPU (LibTorch's CUDA stream synchronization).
  virtual void synchronize() {}
  /// The output tensors (for allreduce and broadcast, the tensors given).
  std::vector<Tensor> result();
  /// Ends a collective still queued with an error saying it was aborted.
  virtual void abort();

  const std::string& name() const { return name_; }
  Timing timing() const;

  // Called by the process group's thread.
  void mark_started();
  void finish(std::exception_ptr error = nullptr);

 private:
  std::string name_;
  std::vector<Tensor> outputs_;
  mutable std::mutex mutex_;
  std::condition_variable done_;
  bool completed_ = false;
  std::exception_ptr error_;
  Timing timing_;
};

}  // namespace nabla::distributed
