// conv1d / conv2d: float32 convolutions by the backend's direct kernels (oneDNN) when it
// has them, as one op with its own backward node (ConvolutionBackward0); otherwise, and
// for the transposed forms, weight @ im2col(input) (col2im(weight^T @ input) for the
// transposed form): one batched gemm per call, differentiable end to end through matmul
// and the window ops.
#include <string>

#include "autograd/formula.h"
#include "nabla/backend/backend.h"
#include "nabla/ops/convolution.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "window.h"

namespace nabla {

namespace {

std::vector<int64_t> expand_param(const char* op, const char* what, IntArrayRef v, size_t dims) {
  NABLA_CHECK(v.size() == dims || v.size() == 1, op, ": expected ", what,
              " to be a single integer or a list of ", dims, ", got ", v.size(), " values");
  return v.size() == dims ? v.vec() : std::vector<int64_t>(dims, v[0]);
}

struct ConvArgs {
  std::vector<int64_t> stride, padding, dilation;
};

void check_conv(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias,
                int64_t groups, bool transposed, const ConvArgs& a) {
  NABLA_CHECK(weight.defined() && weight.dim() == 4, op, ": expected a ", 3,
              "-d weight (out, in/groups, kernel...)",
              " for the 1-d form or 4-d for the 2-d form; got ",
              weight.defined() ? weight.dim() : 0, " dims");
  NABLA_CHECK(groups > 0, op, ": non-positive groups is not supported, got ", groups);
  NABLA_CHECK(x.is_floating_point(), op, ": input must be floating, got ", x.scalar_type());
  NABLA_CHECK(x.scalar_type() == weight.scalar_type(), op, ": input (", x.scalar_type(),
              ") and weight (", weight.scalar_type(), ") must have the same dtype");
  const int64_t channels = x.size(1);
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  if (!transposed) {
    NABLA_CHECK(channels == weight.size(1) * groups, op, ": given groups=", groups,
                ", weight of size ", weight.sizes(), ", expected input", x.sizes(), " to have ",
                weight.size(1) * groups, " channels, but got ", channels, " channels instead");
    NABLA_CHECK(weight.size(0) % groups == 0, op, ": given groups=", groups,
                ", expected weight to be divisible by ", groups,
                " at dimension 0, but got weight of size ", weight.sizes());
  } else {
    NABLA_CHECK(channels == weight.size(0), op, ": given transposed=1, weight of size ",
                weight.sizes(), ", expected input", x.sizes(), " to have ", weight.size(0),
                " channels, but got ", channels, " channels instead");
    NABLA_CHECK(weight.size(0) % groups == 0, op, ": given groups=", groups, ", weight of size ",
                weight.sizes(), " has in_channels not divisible by groups");
  }
  if (bias.defined())
    NABLA_CHECK(bias.dim() == 1 && bias.size(0) == out_channels, op, ": expected bias of shape [",
                out_channels, "], got ", bias.sizes());
  for (size_t d = 0; d < 2; ++d) {
    NABLA_CHECK(a.stride[d] > 0 && a.dilation[d] > 0 && a.padding[d] >= 0, op,
                ": stride and dilation must be positive and padding non-negative");
    if (!transposed) {
      const int64_t padded = x.size(static_cast<int64_t>(d) + 2) + 2 * a.padding[d];
      const int64_t span = a.dilation[d] * (weight.size(static_cast<int64_t>(d) + 2) - 1) + 1;
      NABLA_CHECK(padded >= span, op, ": calculated padded input size per channel: (",
                  x.size(2) + 2 * a.padding[0], " x ", x.size(3) + 2 * a.padding[1],
                  "). Kernel size: (", weight.size(2), " x ", weight.size(3),
                  "). Kernel size can't be greater than actual input size");
    }
  }
}

// The node keeps the geometry in `list`: h w kh kw sh sw ph pw dh dw oh ow groups.
WindowGeometry geometry_of(const std::vector<int64_t>& l) {
  return {l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[8], l[9], l[10], l[11]};
}

// ConvolutionBackward0. Without create_graph, the backend's backward kernels; with it
// (or when the backend declines), differentiable formulas: the input gradient is the
// transposed convolution of the output gradient, the weight gradient the product of the
// output gradient with the input's columns, the bias gradient its sum.
autograd::variable_list conv2d_backward(autograd::FormulaNode& n,
                                        const autograd::variable_list& grads) {
  Tensor x = n.saved(0), w = n.saved(1);
  const WindowGeometry g = geometry_of(n.list);
  const int64_t groups = n.list[12];
  const bool need_x = n.needs_input_grad(0), need_w = n.needs_input_grad(1),
             need_b = n.flag && n.needs_input_grad(2);
  if (!GradMode::is_enabled()) {
    Tensor xc = x.contiguous(), wc = w.contiguous();
    Tensor gx = need_x ? empty(xc.sizes(), xc.options()) : Tensor();
    Tensor gw = need_w ? empty(wc.sizes(), wc.options()) : Tensor();
    Tensor gb = need_b ? empty({wc.size(0)}, wc.options()) : Tensor();
    if (backend_for(x).conv2d_backward(gx, gw, gb, grads[0].contiguous(), xc, wc, g, groups))
      return {gx, gw, gb};
  }
  const Tensor& gy = grads[0];
  Tensor gx, gw, gb;
  if (need_x) {
    const int64_t pad_h = g.h - ((g.oh - 1) * g.sh - 2 * g.ph + g.dh * (g.kh - 1) + 1);
    const int64_t pad_w = g.w - ((g.ow - 1) * g.sw - 2 * g.pw + g.dw * (g.kw - 1) + 1);
    gx = conv_transpose2d(gy, w, Tensor(), {g.sh, g.sw}, {g.ph, g.pw}, {pad_h, pad_w}, groups,
                          {g.dh, g.dw});
  }
  if (need_w) {
    const int64_t batch = x.size(0), positions = g.oh * g.ow, out_channels = w.size(0);
    Tensor cols = im2col(x, {g.kh, g.kw}, {g.dh, g.dw}, {g.ph, g.pw}, {g.sh, g.sw});
    gw = matmul(gy.reshape({batch, groups, out_channels / groups, positions}),
                cols.view({batch, groups, cols.size(1) / groups, positions}).transpose(2, 3))
             .sum(0)
             .reshape(w.sizes());
  }
  if (need_b) gb = gy.sum({0, 2, 3});
  return {gx, gw, gb};
}
const autograd::Formula kConvolution{"ConvolutionBackward0", conv2d_backward};

// conv2d by the backend's direct kernel, or undefined when it has none for this call.
Tensor direct_conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias,
                     const WindowGeometry& g, int64_t groups) {
  if (x.scalar_type() != kFloat || x.numel() == 0 || weight.numel() == 0 ||
      (bias.defined() && bias.scalar_type() != kFloat))
    return {};
  Tensor out = empty({x.size(0), weight.size(0), g.oh, g.ow}, x.options());
  if (!backend_for(x).conv2d(out, x.detach().contiguous(), weight.detach().contiguous(),
                             bias.defined() ? bias.detach().contiguous() : Tensor(), g, groups))
    return {};
  if (autograd::any_requires_grad(x, weight, bias)) {
    auto node = autograd::make_node(kConvolution, {&x, &weight, &bias});
    node->save(x);
    node->save(weight);
    node->flag = bias.defined();
    node->list = {g.h, g.w, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.oh, g.ow, groups};
    autograd::set_history(out, node);
  }
  return out;
}

// From this many output positions per sample on, one product per sample (batched, in
// NCHW order) beats one product for the whole batch plus the transpose to NCHW.
constexpr int64_t kLargeImage = 1024;

Tensor conv2d_impl(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   ConvArgs a, int64_t groups) {
  NABLA_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4), op,
              ": expected 3-d (unbatched) or 4-d (batched) input, got ",
              input.defined() ? input.dim() : 0, " dims (sizes ",
              input.defined() ? input.sizes().vec() : std::vector<int64_t>{}, ")");
  const bool batched = input.dim() == 4;
  Tensor x = batched ? input : input.unsqueeze(0);
  check_conv(op, x, weight, bias, groups, false, a);
  const int64_t n = x.size(0), out_channels = weight.size(0);
  const int64_t kh = weight.size(2), kw = weight.size(3);
  const int64_t oh =
      (x.size(2) + 2 * a.padding[0] - a.dilation[0] * (kh - 1) - 1) / a.stride[0] + 1;
  const int64_t ow =
      (x.size(3) + 2 * a.padding[1] - a.dilation[1] * (kw - 1) - 1) / a.stride[1] + 1;
  const WindowGeometry g{x.size(2),     x.size(3),     kh,           kw,
                         a.stride[0],   a.stride[1],   a.padding[0], a.padding[1],
                         a.dilation[0], a.dilation[1], oh,           ow};
  if (Tensor direct = direct_conv2d(x, weight, bias, g, groups); direct.defined())
    return batched ? direct : direct.squeeze(0);
  const int64_t k = weight.size(1) * kh * kw, positions = oh * ow;
  Tensor out;
  const bool pointwise = kh == 1 && kw == 1 && a.stride[0] == 1 && a.stride[1] == 1 &&
                         a.padding[0] == 0 && a.padding[1] == 0;
  if (groups == 1 && pointwise) {
    // A 1x1 convolution is a product per sample, [O, C] @ [C, H W], written in NCHW order.
    out = matmul(weight.reshape({out_channels, k}), x.reshape({n, k, positions}));
  } else if (groups == 1 && positions < kLargeImage) {
    // One gemm for the whole batch: [O, K] @ [K, N L], then [O, N, L] -> [N, O, L].
    Tensor cols = ops::im2col_batch_inner(x, {kh, kw}, a.dilation, a.padding, a.stride);
    out = weight.reshape({out_channels, k})
              .mm(cols)
              .view({out_channels, n, positions})
              .transpose(0, 1);
    if (!bias.defined()) out = out.contiguous();
  } else {
    Tensor cols = im2col(x, {kh, kw}, a.dilation, a.padding, a.stride);  // [N, C kh kw, L]
    out = matmul(weight.reshape({groups, out_channels / groups, k}),
                 cols.view({n, groups, k, positions}))
              .reshape({n, out_channels, positions});
  }
  if (bias.defined()) out = out + bias.view({1, out_channels, 1});  // also makes it contiguous
  out = out.view({n, out_channels, oh, ow});
  return batched ? out : out.squeeze(0);
}

// "same" and "valid" padding: per-dim (left, right) amounts; asymmetric ones pad the
// input explicitly (the extra element goes right, as PyTorch).
Tensor conv_string_padding(const char* op, const Tensor& input, const Tensor& weight,
                           const Tensor& bias, std::vector<int64_t> stride,
                           std::string_view padding, std::vector<int64_t> dilation,
                           int64_t groups) {
  NABLA_CHECK(padding == "same" || padding == "valid", op, ": invalid padding string '",
              std::string(padding), "' (expected \"same\" or \"valid\")");
  if (padding == "valid")
    return conv2d_impl(op, input, weight, bias, {stride, {0, 0}, dilation}, groups);
  NABLA_CHECK(stride[0] == 1 && stride[1] == 1, op,
              ": padding='same' is not supported for strided convolutions");
  NABLA_CHECK(weight.defined() && weight.dim() == 4, op, ": expected a 4-d weight");
  std::vector<int64_t> sym(2), extra(2);
  for (size_t d = 0; d < 2; ++d) {
    const int64_t total = dilation[d] * (weight.size(static_cast<int64_t>(d) + 2) - 1);
    sym[d] = total / 2;
    extra[d] = total - 2 * sym[d];
  }
  Tensor x = input;
  if (extra[0] || extra[1]) x = constant_pad_nd(input, {0, extra[1], 0, extra[0]}, 0);
  return conv2d_impl(op, x, weight, bias, {stride, sym, dilation}, groups);
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv2d_impl(
      "conv2d", input, weight, bias,
      {expand_param("conv2d", "stride", stride, 2), expand_param("conv2d", "padding", padding, 2),
       expand_param("conv2d", "dilation", dilation, 2)},
      groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_string_padding("conv2d", input, weight, bias,
                             expand_param("conv2d", "stride", stride, 2), padding,
                             expand_param("conv2d", "dilation", dilation, 2), groups);
}

// 1-d convolutions are 2-d ones over a height of 1.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
              "conv1d: expected 2-d (unbatched) or 3-d ", "(batched) input, got ",
              input.defined() ? input.dim() : 0, " dims");
  NABLA_CHECK(weight.defined() && weight.dim() == 3, "conv1d: expected a 3-d weight, got ",
              weight.defined() ? weight.dim() : 0, " dims");
  const auto s = expand_param("conv1d", "stride", stride, 1),
             p = expand_param("conv1d", "padding", padding, 1),
             d = expand_param("conv1d", "dilation", dilation, 1);
  const int64_t h = input.dim() - 1;
  return conv2d_impl("conv1d", input.unsqueeze(h), weight.unsqueeze(2), bias,
                     {{1, s[0]}, {0, p[0]}, {1, d[0]}}, groups)
      .squeeze(h);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation, int64_t groups) {
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3) && weight.defined() &&
                  weight.dim() == 3,
              "conv1d: expected 2-d or 3-d input and a 3-d weight");
  const auto s = expand_param("conv1d", "stride", stride, 1),
             d = expand_param("conv1d", "dilation", dilation, 1);
  const int64_t h = input.dim() - 1;
  return conv_string_padding("conv1d", input.unsqueeze(h), weight.unsqueeze(2), bias, {1, s[0]},
                             padding, {1, d[0]}, groups)
      .squeeze(h);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  const char* op = "conv_transpose2d";
  NABLA_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4), op,
              ": expected 3-d (unbatched) or 4-d (batched) input, got ",
              input.defined() ? input.dim() : 0, " dims");
  const bool batched = input.dim() == 4;
  Tensor x = batched ? input : input.unsqueeze(0);
  ConvArgs a{expand_param(op, "stride", stride, 2), expand_param(op, "padding", padding, 2),
             expand_param(op, "dilation", dilation, 2)};
  const auto op_pad = expand_param(op, "output_padding", output_padding, 2);
  check_conv(op, x, weight, bias, groups, true, a);
  const int64_t n = x.size(0), in_channels = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t kh = weight.size(2), kw = weight.size(3), out_per_group = weight.size(1);
  const int64_t out_channels = out_per_group * groups;
  std::vector<int64_t> out_size(2);
  for (size_t d = 0; d < 2; ++d) {
    NABLA_CHECK(
        op_pad[d] >= 0 && (op_pad[d] < a.stride[d] || op_pad[d] < a.dilation[d]), op,
        ": output padding must be smaller than either stride or dilation, but got output_padding ",
        output_padding, ", stride ", stride, ", dilation ", dilation);
    out_size[d] = (x.size(static_cast<int64_t>(d) + 2) - 1) * a.stride[d] - 2 * a.padding[d] +
                  a.dilation[d] * (weight.size(static_cast<int64_t>(d) + 2) - 1) + op_pad[d] + 1;
    NABLA_CHECK(out_size[d] > 0, op, ": the output size ", out_size, " is not positive");
  }
  const int64_t k = out_per_group * kh * kw;
  Tensor cols;
  if (groups == 1) {
    cols = matmul(weight.reshape({in_channels, k}).t(), x.reshape({n, in_channels, h * w}));
  } else {
    cols = matmul(weight.reshape({groups, in_channels / groups, k}).transpose(1, 2),
                  x.reshape({n, groups, in_channels / groups, h * w}))
               .reshape({n, groups * k, h * w});
  }
  // col2im over the full output: output_padding extends the image at the bottom/right,
  // where windows reaching into the (top-left aligned) padding still land.
  Tensor out = col2im(cols, out_size, {kh, kw}, a.dilation, a.padding, a.stride);
  if (bias.defined()) out = out + bias.view({1, out_channels, 1, 1});
  return batched ? out : out.squeeze(0);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  const char* op = "conv_transpose1d";
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3), op,
              ": expected 2-d or 3-d input, got ", input.defined() ? input.dim() : 0, " dims");
  NABLA_CHECK(weight.defined() && weight.dim() == 3, op, ": expected a 3-d weight");
  const auto s = expand_param(op, "stride", stride, 1), p = expand_param(op, "padding", padding, 1),
             o = expand_param(op, "output_padding", output_padding, 1),
             d = expand_param(op, "dilation", dilation, 1);
  const int64_t h = input.dim() - 1;
  return conv_transpose2d(input.unsqueeze(h), weight.unsqueeze(2), bias, {1, s[0]}, {0, p[0]},
                          {0, o[0]}, groups, {1, d[0]})
      .squeeze(h);
}

}  // namespace nabla
