#include "autograd/formula.h"

namespace nabla::autograd {

variable_list FormulaNode::apply(variable_list&& grads) {
  detail::fill_missing_grads(*this, grads);
  variable_list out = formula_->backward(*this, grads);
  detail::finish_grads(*this, out);
  return out;
}

void FormulaNode::release_variables() {
  for (auto& s : saved_) s.reset_data();
}

std::shared_ptr<FormulaNode> make_node(const Formula& f,
                                       std::initializer_list<const Tensor*> inputs) {
  auto node = ::nabla::detail::make_pooled<FormulaNode>(f);
  detail::connect(*node, inputs);
  return node;
}

std::shared_ptr<FormulaNode> make_node(const Formula& f, TensorList inputs) {
  auto node = ::nabla::detail::make_pooled<FormulaNode>(f);
  detail::connect(*node, inputs);
  return node;
}

}  // namespace nabla::autograd
