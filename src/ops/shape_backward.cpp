// Derivatives of the copying shape ops and of clone / to / copy_ / fill_, written with
// differentiable nabla ops so create_graph gives higher orders. g is the output's gradient.
#include "ops/shape_backward.h"

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"

namespace nabla::ops::shape_formulas {

using autograd::FormulaNode;
using autograd::variable_list;

namespace {

ScalarType dtype_at(const FormulaNode& n, size_t i) { return static_cast<ScalarType>(n.dims[i]); }

variable_list clone_bw(FormulaNode&, const variable_list& g) { return {g[0]}; }
variable_list to_copy_bw(FormulaNode& n, const variable_list& g) { return {g[0].to(n.dtype0)}; }

// The old value of self is overwritten: it gets no gradient. src was broadcast and cast.
variable_list copy_bw(FormulaNode& n, const variable_list& g) {
  Tensor g_self, g_src;
  if (n.needs_input_grad(0)) g_self = zeros_like(g[0]);
  if (n.needs_input_grad(1)) g_src = sum_to(g[0], n.shape1).to(n.dtype0);
  return {g_self, g_src};
}
variable_list fill_bw(FormulaNode&, const variable_list& g) { return {zeros_like(g[0])}; }
variable_list fill_tensor_bw(FormulaNode& n, const variable_list& g) {
  return {n.needs_input_grad(0) ? zeros_like(g[0]) : Tensor(),
          n.needs_input_grad(1) ? g[0].sum() : Tensor()};
}

// Input i gets its slice of g along dim, in its own dtype.
variable_list cat_bw(FormulaNode& n, const variable_list& g) {
  variable_list out(n.list.size());
  int64_t offset = 0;
  for (size_t i = 0; i < n.list.size(); ++i) {
    const int64_t size = n.list[i];
    if (size < 0) {  // a 1-d empty input that cat skipped
      if (n.needs_input_grad(i)) out[i] = zeros({0}, g[0].options().dtype(dtype_at(n, i)));
      continue;
    }
    if (n.needs_input_grad(i)) out[i] = g[0].narrow(n.dim, offset, size).to(dtype_at(n, i));
    offset += size;
  }
  return out;
}
variable_list stack_bw(FormulaNode& n, const variable_list& g) {
  variable_list out(n.dims.size());
  for (size_t i = 0; i < out.size(); ++i)
    if (n.needs_input_grad(i))
      out[i] = g[0].select(n.dim, static_cast<int64_t>(i)).to(dtype_at(n, i));
  return out;
}

// The output viewed as [r0, s0, r1, s1, ...] holds the input at every (r0, r1, ...):
// sum over the r's.
variable_list repeat_bw(FormulaNode& n, const variable_list& g) {
  const int64_t nd = static_cast<int64_t>(n.list.size());
  if (nd == 0) return {g[0]};
  const int64_t lead = nd - static_cast<int64_t>(n.shape0.size());
  DimVector split(2 * nd);
  std::vector<int64_t> repeat_dims;
  for (int64_t i = 0; i < nd; ++i) {
    split[2 * i] = n.list[i];
    split[2 * i + 1] = i < lead ? 1 : n.shape0[i - lead];
    repeat_dims.push_back(2 * i);
  }
  return {g[0].reshape(split).sum(repeat_dims).reshape(n.shape0)};
}

variable_list flip_bw(FormulaNode& n, const variable_list& g) { return {g[0].flip(n.dims)}; }
variable_list roll_bw(FormulaNode& n, const variable_list& g) {
  std::vector<int64_t> back(n.list.size());
  for (size_t i = 0; i < back.size(); ++i) back[i] = -n.list[i];
  return {g[0].roll(back, n.dims)};
}
variable_list tril_bw(FormulaNode& n, const variable_list& g) { return {tril(g[0], n.dim)}; }
variable_list triu_bw(FormulaNode& n, const variable_list& g) { return {triu(g[0], n.dim)}; }
// Padding by p crops by p on the way back, and a crop (negative p) pads with zeros.
variable_list constant_pad_bw(FormulaNode& n, const variable_list& g) {
  std::vector<int64_t> back(n.list.size());
  for (size_t i = 0; i < back.size(); ++i) back[i] = -n.list[i];
  return {constant_pad_nd(g[0], back, 0)};
}

}  // namespace

const Formula kClone{"CloneBackward0", clone_bw};
const Formula kToCopy{"ToCopyBackward0", to_copy_bw};
const Formula kCopy{"CopyBackwards", copy_bw};
const Formula kFill{"FillBackward2", fill_bw};
const Formula kFillTensor{"FillBackward3", fill_tensor_bw};
const Formula kZero{"ZeroBackward0", fill_bw};
const Formula kCat{"CatBackward0", cat_bw};
const Formula kStack{"StackBackward0", stack_bw};
const Formula kRepeat{"RepeatBackward0", repeat_bw};
const Formula kFlip{"FlipBackward0", flip_bw};
const Formula kRoll{"RollBackward0", roll_bw};
const Formula kTril{"TrilBackward0", tril_bw};
const Formula kTriu{"TriuBackward0", triu_bw};
const Formula kConstantPad{"ConstantPadNdBackward0", constant_pad_bw};

}  // namespace nabla::ops::shape_formulas
