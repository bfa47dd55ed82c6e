#pragma once
// WorkerException: what the data loader's loop raises when a worker thread's batch threw
// (as LibTorch's torch::data::WorkerException). The worker's own exception is kept in
// `original_exception` (std::rethrow_exception gives it back with its type); what() says
// where it came from and repeats its message.
#include <exception>
#include <string>
#include <utility>

namespace nabla::data {

struct WorkerException : std::exception {
  explicit WorkerException(std::exception_ptr original)
      : original_exception(std::move(original)),
        message("Caught exception in DataLoader worker thread.") {
    try {
      if (original_exception) std::rethrow_exception(original_exception);
    } catch (const std::exception& e) {
      message += " Original message: ";
      message += e.what();
    } catch (...) {  // not a std::exception: no message to repeat
    }
  }
  const char* what() const noexcept override { return message.c_str(); }

  std::exception_ptr original_exception;
  std::string message;
};

}  // namespace nabla::data
