#pragma once
// How ops record themselves in the graph. An op's backward is a Formula — a PyTorch
// name and a function written with differentiable nabla ops, so create_graph gives
// higher-order derivatives for free (STYLE.md 3-4). The forward op, after computing its
// output, does:
//
//   if (autograd::any_requires_grad(a, b)) {
//     auto node = autograd::make_node(kMulBackward, {&a, &b});  // edges to a and b
//     node->save(a); node->save(b);                              // what backward reads
//     autograd::set_history(out, node);                          // out.grad_fn() = node
//   }
//
// and the formula reads node.saved(i) and the attributes below.
#include <initializer_list>
#include <vector>

#include "nabla/autograd/record.h"

namespace nabla::autograd {

class FormulaNode;
/// Returns one gradient per forward input (undefined where not needed); `grads` has one
/// defined gradient per forward output (zeros stand in for outputs that got none).
using BackwardFn = variable_list (*)(FormulaNode& node, const variable_list& grads);

struct Formula {
  const char* name;
  BackwardFn backward;
};

class FormulaNode final : public Node {
 public:
  explicit FormulaNode(const Formula& f) : formula_(&f) { saved_.reserve(2); }
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return formula_->name; }
  void release_variables() override;

  /// Saves a tensor for backward; outputs of this node must pass is_output = true.
  void save(const Tensor& t, bool is_output = false) { saved_.emplace_back(t, is_output); }
  /// The i-th saved tensor (checked against in-place modification and release).
  Tensor saved(size_t i) { return saved_[i].unpack(shared_from_this()); }
  /// needs_input_grad(i): whether forward input i wants a gradient.
  bool needs_input_grad(size_t i) const { return should_compute_output(i); }

  // Attributes of the forward call that its backward needs.
  Scalar alpha;
  double a = 0, b = 0;
  int64_t dim = 0;
  bool flag = false;
  DimVector dims;
  DimVector shape0, shape1;
  ScalarType dtype0 = kFloat;
  std::vector<int64_t> list;

 private:
  const Formula* formula_;
  std::vector<SavedVariable, ::nabla::detail::PoolAllocator<SavedVariable>> saved_;
};

/// A node for `f` with one next edge per input (invalid for inputs without grad).
std::shared_ptr<FormulaNode> make_node(const Formula& f,
                                       std::initializer_list<const Tensor*> inputs);
std::shared_ptr<FormulaNode> make_node(const Formula& f, TensorList inputs);

}  // namespace nabla::autograd
