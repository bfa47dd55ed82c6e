#pragma once
// detail::Queue<T>: the blocking FIFO between the data loader and its workers (LibTorch's
// torch::data::detail::Queue). Any number of threads push and pop; pop() waits for a value,
// at most `timeout` when one is given.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <utility>

#include "nabla/core/error.h"
#include "nabla/core/optional.h"

namespace nabla::data::detail {

template <class T>
class Queue {
 public:
  /// Appends `value` and wakes one waiting pop().
  void push(T value) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      values_.push_back(std::move(value));
    }
    ready_.notify_one();
  }

  /// Removes and returns the oldest value, waiting for one. With `timeout`, raises
  /// nabla::Error ("Timeout in DataLoader queue ...") when none arrives within it.
  T pop(optional<std::chrono::milliseconds> timeout = nullopt) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto has_value = [this] { return !values_.empty(); };
    if (timeout) {
      NABLA_CHECK(ready_.wait_for(lock, *timeout, has_value),
                  "Timeout in DataLoader queue while waiting for next batch (timeout was ",
                  timeout->count(), " ms)");
    } else {
      ready_.wait(lock, has_value);
    }
    T value = std::move(values_.front());
    values_.pop_front();
    return value;
  }

  /// Drops every value; returns how many there were.
  size_t clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t n = values_.size();
    values_.clear();
    return n;
  }

 private:
  std::deque<T> values_;
  std::mutex mutex_;
  std::condition_variable ready_;
};

}  // namespace nabla::data::detail
