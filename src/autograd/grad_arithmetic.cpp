// The table of Note [Gradient arithmetic] (nabla/autograd/detail/grad_arithmetic.h).
#include "nabla/autograd/detail/grad_arithmetic.h"

#include <atomic>

namespace nabla::autograd::detail {

namespace {
std::atomic<const GradArithmetic*> g_table{nullptr};
}  // namespace

const GradArithmetic& grad_arithmetic() {
  const GradArithmetic* t = g_table.load(std::memory_order_acquire);
  NABLA_CHECK(t,
              "autograd: a backward pass started without the ops layer's gradient "
              "arithmetic (enter it through autograd::backward, autograd::grad or "
              "Tensor::backward)");
  return *t;
}

void install_grad_arithmetic(const GradArithmetic& table) {
  // Every caller installs the same table: store it once, not on every pass.
  if (g_table.load(std::memory_order_relaxed) != &table)
    g_table.store(&table, std::memory_order_release);
}

}  // namespace nabla::autograd::detail
