#pragma once
// Grad mode: whether ops record the graph. Thread-local, as in PyTorch (docs/autograd.md).
#include <utility>

#include "nabla/core/storage.h"

namespace nabla {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Sets grad mode for its lifetime and restores the previous mode afterwards.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

/// Disables gradient recording in its scope (torch::NoGradGuard).
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

/// Enables gradient recording in its scope, even inside a NoGradGuard.
struct EnableGradGuard : AutoGradMode {
  EnableGradGuard() : AutoGradMode(true) {}
};

/// c10::InferenceMode: no graph is recorded in its scope, and the tensors whose storage is
/// made there are inference tensors (Tensor::is_inference): they keep no version counter,
/// take in-place writes only inside InferenceMode, cannot be saved for backward or be made
/// to require grad outside it. Views of normal tensors stay normal.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true)
      : guard_(!enabled), prev_(detail::inference_mode_enabled()) {
    detail::inference_mode_enabled() = enabled;
  }
  ~InferenceMode() { detail::inference_mode_enabled() = prev_; }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled() { return detail::inference_mode_enabled(); }

 private:
  AutoGradMode guard_;
  bool prev_;
};

namespace autograd {
using ::nabla::AutoGradMode;
using ::nabla::GradMode;
using ::nabla::InferenceMode;
using ::nabla::NoGradGuard;
}  // namespace autograd

/// The closure form: runs fn() with grad mode off and returns its result.
template <class F>
decltype(auto) no_grad(F&& fn) {
  NoGradGuard guard;
  return std::forward<F>(fn)();
}

/// Runs fn() with grad mode on.
template <class F>
decltype(auto) enable_grad(F&& fn) {
  EnableGradGuard guard;
  return std::forward<F>(fn)();
}

}  // namespace nabla
