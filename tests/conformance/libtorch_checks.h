#pragma once
// The LibTorch half of the driver's checks (libtorch_checks.cpp), declared with nabla types
// only so that the driver compiles without ATen. Defined only in a build with LibTorch; the
// driver calls them under `if constexpr (kWithLibTorch)` (Note [Table without LibTorch],
// table.h).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "conformance.h"

namespace conform {

/// Reports a difference: fail(where, what).
using FailFn = std::function<void(const std::string&, const std::string&)>;

/// LibTorch's outcome for one case: its outputs, or the message it threw.
class TorchCase {
 public:
  virtual ~TorchCase() = default;
  /// LibTorch's message when it rejected the inputs; empty when it accepted them.
  virtual const std::string& error() const = 0;
  /// nabla's outputs against LibTorch's: their count, sizes, dtypes, values (within e's
  /// tolerances; NaN where LibTorch has NaN) and, for view entries, strides and offset.
  virtual void compare(const std::vector<nabla::Tensor>& got, const std::string& where,
                       const FailFn& fail) const = 0;
};

/// Runs e's LibTorch side on a LibTorch copy of s's inputs (same layout and values).
std::unique_ptr<TorchCase> run_libtorch(const OpEntry& e, const Sample& s);

/// The gradient check against LibTorch of one float64 sample. `nin` are nabla's inputs
/// (those at `diff_pos` requiring grad), `nout` e.nabla_fn(nin)'s outputs and `nloss` =
/// sum_i (nout_i * gs_i) after its backward (undefined when no output is differentiable).
/// Runs LibTorch on the same inputs and g_i and compares every differentiated input's
/// gradient, and every output's grad_fn name (Coverage::node_name_checks). Returns false
/// when the sample has nothing more to check: no differentiable output in either library,
/// or a difference that makes the rest meaningless (reported through `fail`).
bool compare_gradients(const OpEntry& e, const Sample& s, const std::vector<size_t>& diff_pos,
                       const std::vector<nabla::Tensor>& nin,
                       const std::vector<nabla::Tensor>& nout, const std::vector<nabla::Tensor>& gs,
                       const nabla::Tensor& nloss, const std::string& where, const FailFn& fail);

/// Whether LibTorch runs e's forward on `inputs` with exactly the inputs at `wanted`
/// requiring grad (it refuses some: nll_loss's weight, a target).
bool libtorch_accepts_grad(const OpEntry& e, const std::vector<nabla::Tensor>& inputs,
                           const std::vector<size_t>& wanted);

/// LibTorch's settings for the run: one thread (it is the reference, not the subject) and
/// no backtraces (thousands of cases expect it to throw; a backtrace costs milliseconds).
void setup_libtorch();

}  // namespace conform
