#include "ops/grad_sinks.h"

namespace nabla::ops {

bool add_product_to_leaf_grad(const autograd::Edge& edge, const Tensor& a, const Tensor& b) {
  if (!edge.is_valid()) return false;
  const bool through = is_t_backward(*edge.function);
  return autograd::detail::add_to_leaf_grad(edge, through, [&](const Tensor& grad) {
    const Tensor x = through ? b.t() : a, y = through ? a.t() : b;
    if (grad.dim() != 2 || grad.scalar_type() != x.scalar_type() || grad.size(0) != x.size(0) ||
        grad.size(1) != y.size(1))
      return false;
    grad.addmm_(x, y);
    return true;
  });
}

}  // namespace nabla::ops
