// im2col and col2im: the backend's window kernels over a WindowGeometry, each op the
// other's backward (adjoint linear maps), so convolution and pooling formulas built on
// them get first and higher derivatives.
#include <string_view>
#include <tuple>

#include "nabla/autograd/record.h"
#include "nabla/ops/convolution.h"
#include "nabla/ops/detail/op_impls.h"
#include "ops/op_utils.h"
#include "ops/window/window.h"

namespace nabla {

namespace {

// ---- Nodes --------------------------------------------------------------------------------

/// im2col / col2im over `window`; `unbatched`: the op's input had no batch dim.
struct WindowState {
  WindowGeometry window{};
  bool unbatched = false;
};
/// The batch-inner forms: `batch` images.
struct BatchInnerState {
  WindowGeometry window{};
  int64_t batch = 0;
};

// grad_image [B, C, h, w] = col2im(grad [B, C kh kw, L])
variable_list im2col_backward(OpNode<WindowState>& n, const variable_list& grads) {
  const WindowState& s = n.state;
  if (!s.unbatched) return {ops::col2im(grads[0], s.window)};
  return {ops::col2im(grads[0].unsqueeze(0), s.window).squeeze(0)};
}
// grad_cols [B, C kh kw, L] = im2col(grad [B, C, h, w])
variable_list col2im_backward(OpNode<WindowState>& n, const variable_list& grads) {
  const WindowState& s = n.state;
  if (!s.unbatched) return {ops::im2col(grads[0], s.window)};
  return {ops::im2col(grads[0].unsqueeze(0), s.window).squeeze(0)};
}
variable_list im2col_inner_backward(OpNode<BatchInnerState>& n, const variable_list& grads) {
  return {ops::col2im_batch_inner(grads[0], n.state.batch, n.state.window)};
}
variable_list col2im_inner_backward(OpNode<BatchInnerState>& n, const variable_list& grads) {
  return {ops::im2col_batch_inner(grads[0], n.state.window)};
}

constexpr NodeType<WindowState> kIm2Col{"Im2ColBackward0", im2col_backward};
constexpr NodeType<WindowState> kCol2Im{"Col2ImBackward0", col2im_backward};
constexpr NodeType<BatchInnerState> kIm2ColInner{"Im2ColBackward0", im2col_inner_backward};
constexpr NodeType<BatchInnerState> kCol2ImInner{"Col2ImBackward0", col2im_inner_backward};

template <class State>
void record(const NodeType<State>& type, const Tensor& input, const Tensor& out, State state) {
  if (auto node = autograd::record_node(type, {&input})) {
    NABLA_ASSIGN_NODE_STATE(node->state, state);
    autograd::set_history(out, node);
  }
}

// ---- Values ---------------------------------------------------------------------------------

// [B, C, h, w] (contiguous) -> [B, C kh kw, L], without history.
Tensor im2col_value(const Tensor& x, const WindowGeometry& g) {
  Tensor out = ops::empty_tensor({x.size(0), x.size(1) * g.kh * g.kw, g.oh * g.ow}, x.scalar_type(),
                                 x.device());
  if (out.numel() > 0) backend_for(x).im2col(out, x.detach(), g);
  return out;
}

// [B, C kh kw, L] (contiguous) -> [B, C, h, w], without history.
Tensor col2im_value(const Tensor& x, const WindowGeometry& g) {
  Tensor out = ops::empty_tensor({x.size(0), x.size(1) / (g.kh * g.kw), g.h, g.w}, x.scalar_type(),
                                 x.device());
  if (out.numel() > 0) backend_for(x).col2im(out, x.detach(), g);
  return out;
}

void check_cols(const char* op, const Tensor& x, const WindowGeometry& g, IntArrayRef output_size,
                IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                IntArrayRef stride) {
  const int64_t k = g.kh * g.kw;
  NABLA_CHECK(x.size(1) % k == 0, op, ": expected size of dim 1 (", x.size(1),
              ") to be divisible by the product of kernel_size (", k, ")");
  NABLA_CHECK(x.size(2) == g.oh * g.ow, op, ": given output_size ", output_size, ", kernel_size ",
              kernel_size, ", dilation ", dilation, ", padding ", padding, ", stride ", stride,
              ", expected size of dim 2 to be ", g.oh * g.ow, ", but got ", x.size(2));
}

}  // namespace

std::array<int64_t, 2> ops::window_pair(const char* op, const char* what, IntArrayRef v,
                                        size_t dims) {
  NABLA_CHECK(v.size() == dims || v.size() == 1, op, ": expected ", what,
              " to be a single integer or a list of ", dims, ", got ", v.size(), " values");
  if (dims == 1) return {v[0], 0};
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

WindowGeometry ops::window_geometry(const char* op, int64_t h, int64_t w, IntArrayRef kernel,
                                    IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  auto [kh, kw] = ops::window_pair(op, "kernel_size", kernel);
  auto [dh, dw] = ops::window_pair(op, "dilation", dilation);
  auto [ph, pw] = ops::window_pair(op, "padding", padding);
  auto [sh, sw] = ops::window_pair(op, "stride", stride);
  NABLA_CHECK(kh > 0 && kw > 0, op, ": kernel_size must be positive, got ", kernel);
  NABLA_CHECK(dh > 0 && dw > 0, op, ": dilation must be positive, got ", dilation);
  NABLA_CHECK(sh > 0 && sw > 0, op, ": stride must be positive, got ", stride);
  NABLA_CHECK(ph >= 0 && pw >= 0, op, ": padding must be non-negative, got ", padding);
  const int64_t span_h = dh * (kh - 1) + 1, span_w = dw * (kw - 1) + 1;
  // LibTorch's wording (its blocks count, C++ division), then the reason in plain terms.
  const bool output = std::string_view(op).starts_with("col2im");
  NABLA_CHECK(h + 2 * ph >= span_h && w + 2 * pw >= span_w, op, ": Given ",
              output ? "output_size=(" : "input with spatial size (", h, ", ", w,
              "), kernel_size=(", kh, ", ", kw, "), dilation=(", dh, ", ", dw, "), padding=(", ph,
              ", ", pw, "), calculated shape of the array of sliding blocks as (",
              (h + 2 * ph - span_h) / sh + 1, ", ", (w + 2 * pw - span_w) / sw + 1,
              "), but its components must be at least one. (The dilated kernel ", span_h, "x",
              span_w, " is larger than the padded ", output ? "output " : "input ", h + 2 * ph, "x",
              w + 2 * pw, "; expected a kernel that fits.)");
  return {h,
          w,
          kh,
          kw,
          sh,
          sw,
          ph,
          pw,
          dh,
          dw,
          (h + 2 * ph - span_h) / sh + 1,
          (w + 2 * pw - span_w) / sw + 1};
}

Tensor ops::im2col(const Tensor& image, const WindowGeometry& g) {
  Tensor out = im2col_value(image.contiguous(), g);
  record(kIm2Col, image, out, WindowState{g, false});
  return out;
}

Tensor ops::col2im(const Tensor& cols, const WindowGeometry& g) {
  Tensor out = col2im_value(cols.contiguous(), g);
  record(kCol2Im, cols, out, WindowState{g, false});
  return out;
}

Tensor ops::im2col_batch_inner(const Tensor& image, const WindowGeometry& g) {
  Tensor x = image.contiguous();
  const int64_t n = x.size(0), rows = x.size(1) * g.kh * g.kw, positions = g.oh * g.ow;
  Tensor out = empty_tensor({rows, n * positions}, x.scalar_type(), x.device());
  // The kernel writes plane b's rows through a [N, rows, L] view of the [rows, N, L] buffer.
  if (out.numel() > 0)
    backend_for(x).im2col(out.view({rows, n, positions}).permute({1, 0, 2}), x.detach(), g);
  record(kIm2ColInner, image, out, BatchInnerState{g, n});
  return out;
}

Tensor ops::col2im_batch_inner(const Tensor& cols, int64_t batch, const WindowGeometry& g) {
  const int64_t k = g.kh * g.kw, positions = g.oh * g.ow;
  NABLA_CHECK(cols.defined() && cols.dim() == 2 && cols.size(0) % k == 0 &&
                  cols.size(1) == batch * positions,
              "col2im: columns of shape ", cols.sizes(), " do not fit ", batch, " images of ",
              positions, " window positions");
  Tensor c = cols.contiguous();
  Tensor out = empty_tensor({batch, c.size(0) / k, g.h, g.w}, c.scalar_type(), c.device());
  if (out.numel() > 0)
    backend_for(c).col2im(out, c.detach().view({c.size(0), batch, positions}).permute({1, 0, 2}),
                          g);
  record(kCol2ImInner, cols, out, BatchInnerState{g, batch});
  return out;
}

// ---- The public ops: unbatched inputs, LibTorch's checks -------------------------------------

Tensor ops::im2col_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation,
                        IntArrayRef padding, IntArrayRef stride) {
  NABLA_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4),
              "im2col: expected a 3-d or 4-d input (N, C, H, W), got ",
              input.defined() ? input.dim() : 0, " dims");
  NABLA_CHECK(input.is_floating_point(), "im2col: input must be floating, got ",
              input.scalar_type());
  if (input.dim() == 4) {
    const WindowGeometry g = ops::window_geometry("im2col (unfold)", input.size(2), input.size(3),
                                                  kernel_size, dilation, padding, stride);
    return ops::im2col(input, g);
  }
  const WindowGeometry g = ops::window_geometry("im2col (unfold)", input.size(1), input.size(2),
                                                kernel_size, dilation, padding, stride);
  Tensor out = im2col_value(input.detach().contiguous().unsqueeze(0), g).squeeze(0);
  record(kIm2Col, input, out, WindowState{g, true});
  return out;
}

Tensor ops::col2im_impl(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size,
                        IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
              "col2im: Input Error: Only unbatched (2D) or batched (3D) input Tensors are "
              "supported (got ",
              input.defined() ? input.dim() : 0, "D); expected (N, C * kh * kw, L)");
  NABLA_CHECK(input.is_floating_point(), "col2im: input must be floating, got ",
              input.scalar_type());
  auto [h, w] = ops::window_pair("col2im", "output_size", output_size);
  const WindowGeometry g =
      ops::window_geometry("col2im (fold)", h, w, kernel_size, dilation, padding, stride);
  const bool batched = input.dim() == 3;
  Tensor x = batched ? input : input.detach().unsqueeze(0);
  check_cols("col2im", x, g, output_size, kernel_size, dilation, padding, stride);
  if (batched) return ops::col2im(input, g);
  Tensor out = col2im_value(x.contiguous(), g).squeeze(0);
  record(kCol2Im, input, out, WindowState{g, true});
  return out;
}

}  // namespace nabla
