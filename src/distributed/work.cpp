#include "nabla/distributed/work.h"

#include "nabla/core/error.h"

namespace nabla::distributed {

Work::Work(std::string name, std::vector<Tensor> outputs)
    : name_(std::move(name)), outputs_(std::move(outputs)) {
  timing_.queued = Clock::now();
}

Work::~Work() = default;

bool Work::isCompleted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Work::isSuccess() const {
  std::lock_guard<std::mutex> lock(mutex_);
  NABLA_CHECK(completed_, "Work::isSuccess: ", name_, " has not completed yet");
  return !error_;
}

std::exception_ptr Work::exception() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

bool Work::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout > kNoTimeout) {
    if (!done_.wait_for(lock, timeout, [&] { return completed_; }))
      throw Error(str(name_, ": not completed within ", timeout.count(),
                      " ms (Work::wait's timeout); a rank may have stopped calling collectives"));
  } else {
    done_.wait(lock, [&] { return completed_; });
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

std::vector<Tensor> Work::result() {
  wait();
  return outputs_;
}

void Work::abort() { finish(std::make_exception_ptr(Error(str(name_, ": aborted")))); }

Work::Timing Work::timing() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timing_;
}

void Work::mark_started() {
  std::lock_guard<std::mutex> lock(mutex_);
  timing_.started = Clock::now();
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (completed_) return;
    completed_ = true;
    error_ = std::move(error);
    timing_.finished = Clock::now();
  }
  done_.notify_all();
}

}  // namespace nabla::distributed
