// im2col and col2im as differentiable ops: each is the other's backward (they are
// adjoint linear maps), so convolution and pooling built on them get first and second
// derivatives without formulas of their own.
#include <vector>

#include "autograd/formula.h"
#include "nabla/backend/backend.h"
#include "nabla/ops/convolution.h"
#include "ops/op_utils.h"
#include "window.h"

namespace nabla {

namespace {

using autograd::FormulaNode;
using autograd::variable_list;

std::vector<int64_t> pair_of(const char* op, const char* what, IntArrayRef v) {
  NABLA_CHECK(v.size() == 2 || v.size() == 1, op, ": ", what, " must have 2 elements (or 1), got ",
              v.size());
  return v.size() == 2 ? std::vector<int64_t>{v[0], v[1]} : std::vector<int64_t>{v[0], v[0]};
}

WindowGeometry geometry(const char* op, int64_t h, int64_t w, IntArrayRef kernel,
                        IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  auto k = pair_of(op, "kernel_size", kernel), d = pair_of(op, "dilation", dilation);
  auto p = pair_of(op, "padding", padding), s = pair_of(op, "stride", stride);
  NABLA_CHECK(k[0] > 0 && k[1] > 0, op, ": kernel_size must be positive, got ", kernel);
  NABLA_CHECK(d[0] > 0 && d[1] > 0, op, ": dilation must be positive, got ", dilation);
  NABLA_CHECK(s[0] > 0 && s[1] > 0, op, ": stride must be positive, got ", stride);
  NABLA_CHECK(p[0] >= 0 && p[1] >= 0, op, ": padding must be non-negative, got ", padding);
  WindowGeometry g{h, w, k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], 0, 0};
  const int64_t span_h = d[0] * (k[0] - 1) + 1, span_w = d[1] * (k[1] - 1) + 1;
  NABLA_CHECK(h + 2 * p[0] >= span_h && w + 2 * p[1] >= span_w, op, ": the (dilated) kernel ",
              span_h, "x", span_w, " is larger than the padded input ", h + 2 * p[0], "x",
              w + 2 * p[1]);
  g.oh = (h + 2 * p[0] - span_h) / s[0] + 1;
  g.ow = (w + 2 * p[1] - span_w) / s[1] + 1;
  return g;
}

// node->list holds h, w, kh, kw, dh, dw, ph, pw, sh, sw.
void save_geometry(FormulaNode& n, const WindowGeometry& g) {
  n.list = {g.h, g.w, g.kh, g.kw, g.dh, g.dw, g.ph, g.pw, g.sh, g.sw};
}

variable_list im2col_backward(FormulaNode& n, const variable_list& grads) {
  const auto& l = n.list;
  return {col2im(grads[0], {l[0], l[1]}, {l[2], l[3]}, {l[4], l[5]}, {l[6], l[7]}, {l[8], l[9]})};
}

variable_list col2im_backward(FormulaNode& n, const variable_list& grads) {
  const auto& l = n.list;
  return {im2col(grads[0], {l[2], l[3]}, {l[4], l[5]}, {l[6], l[7]}, {l[8], l[9]})};
}

const autograd::Formula kIm2Col{"Im2ColBackward0", im2col_backward};
const autograd::Formula kCol2Im{"Col2ImBackward0", col2im_backward};

// Batch-inner forms: node->list holds the geometry then the batch size.
variable_list im2col_inner_backward(FormulaNode& n, const variable_list& grads) {
  const auto& l = n.list;
  return {ops::col2im_batch_inner(grads[0], l[10], {l[0], l[1]}, {l[2], l[3]}, {l[4], l[5]},
                                  {l[6], l[7]}, {l[8], l[9]})};
}

variable_list col2im_inner_backward(FormulaNode& n, const variable_list& grads) {
  const auto& l = n.list;
  return {
      ops::im2col_batch_inner(grads[0], {l[2], l[3]}, {l[4], l[5]}, {l[6], l[7]}, {l[8], l[9]})};
}

const autograd::Formula kIm2ColInner{"Im2ColBackward0", im2col_inner_backward};
const autograd::Formula kCol2ImInner{"Col2ImBackward0", col2im_inner_backward};

}  // namespace

Tensor im2col(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  NABLA_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4),
              "im2col: expected a 3-d or 4-d input (N, C, H, W), got ",
              input.defined() ? input.dim() : 0, " dims");
  NABLA_CHECK(input.is_floating_point(), "im2col: input must be floating, got ",
              input.scalar_type());
  const bool batched = input.dim() == 4;
  Tensor x = (batched ? input : input.unsqueeze(0)).contiguous();
  const WindowGeometry g =
      geometry("im2col", x.size(2), x.size(3), kernel_size, dilation, padding, stride);
  Tensor out =
      ops::empty_tensor({x.size(0), x.size(1) * g.kh * g.kw, g.oh * g.ow}, x.scalar_type());
  if (out.numel() > 0) backend_for(x).im2col(out, x.detach(), g);
  if (autograd::any_requires_grad(x)) {
    auto node = autograd::make_node(kIm2Col, {&x});
    save_geometry(*node, g);
    autograd::set_history(out, node);
  }
  return batched ? out : out.squeeze(0);
}

Tensor col2im(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size,
              IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
              "col2im: expected a 2-d or 3-d input (N, C * kh * kw, L), got ",
              input.defined() ? input.dim() : 0, " dims");
  NABLA_CHECK(input.is_floating_point(), "col2im: input must be floating, got ",
              input.scalar_type());
  auto size = pair_of("col2im", "output_size", output_size);
  const bool batched = input.dim() == 3;
  Tensor x = (batched ? input : input.unsqueeze(0)).contiguous();
  const WindowGeometry g =
      geometry("col2im", size[0], size[1], kernel_size, dilation, padding, stride);
  const int64_t k = g.kh * g.kw;
  NABLA_CHECK(x.size(1) % k == 0, "col2im: expected size of dim 1 (", x.size(1),
              ") to be divisible by the product of kernel_size (", k, ")");
  NABLA_CHECK(x.size(2) == g.oh * g.ow, "col2im: given output_size ", output_size, ", kernel_size ",
              kernel_size, ", dilation ", dilation, ", padding ", padding, ", stride ", stride,
              ", expected size of dim 2 to be ", g.oh * g.ow, ", but got ", x.size(2));
  Tensor out = ops::empty_tensor({x.size(0), x.size(1) / k, size[0], size[1]}, x.scalar_type());
  if (out.numel() > 0) backend_for(x).col2im(out, x.detach(), g);
  if (autograd::any_requires_grad(x)) {
    auto node = autograd::make_node(kCol2Im, {&x});
    save_geometry(*node, g);
    autograd::set_history(out, node);
  }
  return batched ? out : out.squeeze(0);
}

Tensor ops::im2col_batch_inner(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation,
                               IntArrayRef padding, IntArrayRef stride) {
  NABLA_CHECK(input.defined() && input.dim() == 4 && input.is_floating_point(),
              "im2col: expected a floating 4-d input");
  Tensor x = input.contiguous();
  const WindowGeometry g =
      geometry("im2col", x.size(2), x.size(3), kernel_size, dilation, padding, stride);
  const int64_t n = x.size(0), rows = x.size(1) * g.kh * g.kw, positions = g.oh * g.ow;
  Tensor out = ops::empty_tensor({rows, n * positions}, x.scalar_type());
  // The kernel writes plane b's rows through a [N, rows, L] view of the [rows, N, L] buffer.
  if (out.numel() > 0)
    backend_for(x).im2col(out.view({rows, n, positions}).permute({1, 0, 2}), x.detach(), g);
  if (autograd::any_requires_grad(x)) {
    auto node = autograd::make_node(kIm2ColInner, {&x});
    save_geometry(*node, g);
    node->list.push_back(n);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor ops::col2im_batch_inner(const Tensor& cols, int64_t batch, IntArrayRef output_size,
                               IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                               IntArrayRef stride) {
  auto size = pair_of("col2im", "output_size", output_size);
  const WindowGeometry g =
      geometry("col2im", size[0], size[1], kernel_size, dilation, padding, stride);
  const int64_t k = g.kh * g.kw, positions = g.oh * g.ow;
  NABLA_CHECK(cols.defined() && cols.dim() == 2 && cols.size(0) % k == 0 &&
                  cols.size(1) == batch * positions,
              "col2im: columns of shape ", cols.sizes(), " do not fit ", batch, " images of ",
              positions, " window positions");
  Tensor c = cols.contiguous();
  Tensor out = ops::empty_tensor({batch, c.size(0) / k, size[0], size[1]}, c.scalar_type());
  if (out.numel() > 0)
    backend_for(c).col2im(out, c.detach().view({c.size(0), batch, positions}).permute({1, 0, 2}),
                          g);
  if (autograd::any_requires_grad(c)) {
    auto node = autograd::make_node(kCol2ImInner, {&c});
    save_geometry(*node, g);
    node->list.push_back(batch);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace nabla
