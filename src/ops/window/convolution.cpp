// conv1d, conv2d, conv_transpose1d and conv_transpose2d: one op, convolution, with
// LibTorch's node ConvolutionBackward0. The value comes from the backend's direct kernel
// (float32, oneDNN) when it has one, else from weight @ im2col(input) (col2im(weight^T @
// input) for the transposed form) as gemms; the backward is the backend's kernel without
// create_graph, else formulas written with convolution itself and the window ops, so
// higher derivatives follow. The 1-d forms are the 2-d ones over a height of 1.
#include <array>
#include <string>
#include <tuple>

#include "nabla/autograd/record.h"
#include "nabla/ops/convolution.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/nn/nn_registry.h"
#include "ops/op_utils.h"
#include "ops/window/window.h"

namespace nabla {

namespace {

using Pair = std::array<int64_t, 2>;

/// stride, padding and dilation per spatial dim, as the 2-d form sees them (the 1-d
/// forms: height 1, stride 1, padding 0, dilation 1).
struct ConvArgs {
  Pair stride, padding, dilation;
};
ConvArgs conv_args(const char* op, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                   size_t dims) {
  Pair s = ops::window_pair(op, "stride", stride, dims),
       p = ops::window_pair(op, "padding", padding, dims),
       d = ops::window_pair(op, "dilation", dilation, dims);
  if (dims == 1) return {{1, s[0]}, {0, p[0]}, {1, d[0]}};
  return {s, p, d};
}

/// What convolution needs besides its tensors: the window geometry of im2col over the
/// input (for the transposed form: of col2im onto the output), the groups, the form.
struct ConvParams {
  WindowGeometry window{};
  int64_t groups = 1;
  bool transposed = false;
};

// x and weight are 4-d here (the 1-d forms unsqueezed).
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

// ---- Values (4-d, without history) -----------------------------------------------------------

// From this many output positions per sample on, one product per sample (batched, in
// NCHW order) beats one product for the whole batch plus the transpose to NCHW.
constexpr int64_t kLargeImage = 1024;

// conv(x [N, C, h, w], weight [O, C / groups, kh, kw]) + bias -> [N, O, oh, ow].
Tensor conv_value(const Tensor& x, const Tensor& weight, const Tensor& bias,
                  const WindowGeometry& g, int64_t groups) {
  const int64_t n = x.size(0), out_channels = weight.size(0);
  if (const ConvAlgorithm algo = choose_conv_algorithm(x, weight, g, groups);
      algo != ConvAlgorithm::Im2col && (!bias.defined() || bias.scalar_type() == kFloat)) {
    Tensor out = empty({n, out_channels, g.oh, g.ow}, x.options());
    if (backend_for(x).conv2d(algo, out, x.contiguous(), weight.contiguous(),
                              bias.defined() ? bias.contiguous() : Tensor(), g, groups))
      return out;
  }
  const int64_t k = weight.size(1) * g.kh * g.kw, positions = g.oh * g.ow;
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  Tensor out;
  if (groups == 1 && pointwise) {
    // A 1x1 convolution is a product per sample, [O, C] @ [C, H W], written in NCHW order.
    out = matmul(weight.reshape({out_channels, k}), x.reshape({n, k, positions}));
  } else if (groups == 1 && positions < kLargeImage) {
    // One gemm for the whole batch: [O, K] @ [K, N L], then [O, N, L] -> [N, O, L].
    out = weight.reshape({out_channels, k})
              .mm(ops::im2col_batch_inner(x, g))
              .view({out_channels, n, positions})
              .transpose(0, 1);
    if (!bias.defined()) out = out.contiguous();
  } else {
    Tensor cols = ops::im2col(x, g);  // [N, C kh kw, L]
    out = matmul(weight.reshape({groups, out_channels / groups, k}),
                 cols.view({n, groups, k, positions}))
              .reshape({n, out_channels, positions});
  }
  if (bias.defined()) out = out + bias.view({1, out_channels, 1});  // also makes it contiguous
  return out.view({n, out_channels, g.oh, g.ow});
}

// The transposed form: x [N, Ci, oh, ow], weight [Ci, O / groups, kh, kw] ->
// col2im(weight^T @ x) + bias, [N, O, h, w].
Tensor conv_transpose_value(const Tensor& x, const Tensor& weight, const Tensor& bias,
                            const WindowGeometry& g, int64_t groups) {
  const int64_t n = x.size(0), in_channels = x.size(1), positions = g.oh * g.ow;
  const int64_t out_channels = weight.size(1) * groups, k = weight.size(1) * g.kh * g.kw;
  Tensor cols;
  if (groups == 1) {
    cols = matmul(weight.reshape({in_channels, k}).t(), x.reshape({n, in_channels, positions}));
  } else {
    cols = matmul(weight.reshape({groups, in_channels / groups, k}).transpose(1, 2),
                  x.reshape({n, groups, in_channels / groups, positions}))
               .reshape({n, groups * k, positions});
  }
  Tensor out = ops::col2im(cols, g);
  if (bias.defined()) out = out + bias.view({1, out_channels, 1, 1});
  return out;
}

// ---- The op and its node ------------------------------------------------------------------------

struct ConvolutionState {
  SavedVariable input, weight;  // as the op got them (3-d for the 1-d forms)
  ConvParams params;
  bool has_bias = false;
  auto saved() { return std::tie(input, weight); }
};

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const ConvParams& p);

// The weight gradient: per group, sum over the batch of a [N, A, L] @ im2col(image)^T
// [N, L, K] (a = grad_out and image = input for a convolution, a = input and image =
// grad_out for the transposed form), shaped as `weight`.
Tensor weight_grad(const Tensor& a, const Tensor& image, const Tensor& weight,
                   const ConvParams& p) {
  const int64_t n = a.size(0), channels = a.size(1), positions = p.window.oh * p.window.ow;
  if (p.groups == 1) {                                       // one gemm: [A, N L] @ [N L, K]
    Tensor cols = ops::im2col_batch_inner(image, p.window);  // [K, N L]
    Tensor rows =
        a.reshape({n, channels, positions}).transpose(0, 1).reshape({channels, n * positions});
    return rows.mm(cols.t()).view(weight.sizes());
  }
  Tensor cols = ops::im2col(image, p.window);  // [N, K, L]
  const int64_t k = cols.size(1);
  return matmul(a.reshape({n, p.groups, channels / p.groups, positions}),
                cols.view({n, p.groups, k / p.groups, positions}).transpose(2, 3))
      .sum(0)
      .reshape(weight.sizes());
}

// ConvolutionBackward0. The input gradient is the adjoint convolution of the output
// gradient (the transposed form of the same geometry, or for the transposed form the
// convolution), the weight gradient weight_grad, the bias gradient a sum. Without
// create_graph, a float32 convolution takes the backend's backward kernel.
variable_list convolution_backward(OpNode<ConvolutionState>& n, const variable_list& grads) {
  const ConvolutionState& s = n.state;
  const ConvParams& p = s.params;
  Tensor x = n.get(s.input), w = n.get(s.weight), gy = grads[0];
  const bool one_d = x.dim() == 3;
  if (one_d) {
    x = x.unsqueeze(2);
    w = w.unsqueeze(2);
    gy = gy.unsqueeze(2);
  }
  const bool need_x = n.needs_input_grad(0), need_w = n.needs_input_grad(1),
             need_b = s.has_bias && n.needs_input_grad(2);
  Tensor gx, gw, gb;
  bool done = false;
  const ConvAlgorithm algo = GradMode::is_enabled() || p.transposed
                                 ? ConvAlgorithm::Im2col
                                 : choose_conv_algorithm(x, w, p.window, p.groups);
  if (algo != ConvAlgorithm::Im2col) {
    Tensor xc = x.contiguous(), wc = w.contiguous();
    gx = need_x ? empty(xc.sizes(), xc.options()) : Tensor();
    gw = need_w ? empty(wc.sizes(), wc.options()) : Tensor();
    gb = need_b ? empty({wc.size(0)}, wc.options()) : Tensor();
    done = backend_for(x).conv2d_backward(algo, gx, gw, gb, gy.contiguous(), xc, wc, p.window,
                                          p.groups);
  }
  if (!done) {
    if (need_x) gx = convolution(gy, w, Tensor(), {p.window, p.groups, !p.transposed});
    if (need_w) gw = p.transposed ? weight_grad(x, gy, w, p) : weight_grad(gy, x, w, p);
    if (need_b) gb = gy.sum({0, 2, 3});
  }
  if (one_d) {
    if (gx.defined()) gx = gx.squeeze(2);
    if (gw.defined()) gw = gw.squeeze(2);
  }
  return {gx, gw, gb};
}
constexpr NodeType<ConvolutionState> kConvolution{"ConvolutionBackward0", convolution_backward};

/// input [N, C, *] and weight (3-d for the 1-d forms, 4-d for the 2-d ones), checked by
/// the caller; records ConvolutionBackward0 with edges to (input, weight, bias).
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const ConvParams& p) {
  const bool one_d = input.dim() == 3;
  Tensor out;
  {
    NoGradGuard no_grad;
    Tensor x = one_d ? input.unsqueeze(2) : input, w = one_d ? weight.unsqueeze(2) : weight;
    out = p.transposed ? conv_transpose_value(x, w, bias, p.window, p.groups)
                       : conv_value(x, w, bias, p.window, p.groups);
    if (one_d) out = out.squeeze(2);
  }
  if (auto node = autograd::record_node(kConvolution, {&input, &weight, &bias})) {
    node->state.input = autograd::save(input);
    node->state.weight = autograd::save(weight);
    NABLA_ASSIGN_NODE_STATE(node->state.params, p);
    node->state.has_bias = bias.defined();
    autograd::set_history(out, node);
  }
  return out;
}

// ---- The public forms: batching, checks, geometry -------------------------------------------

// The operands of a convolution of `dims` spatial dims (1 or 2) as the 2-d kernels take
// them: x batched, x4 / w4 with a size-1 height for the 1-d forms.
struct ConvOperands {
  bool batched;
  Tensor x, x4, w4;
};
ConvOperands conv_operands(const char* op, const Tensor& input, const Tensor& weight, int64_t dims,
                           const char* weight_layout) {
  NABLA_CHECK(input.defined() && (input.dim() == dims + 1 || input.dim() == dims + 2), op,
              ": expected ", dims + 1, "-d (unbatched) or ", dims + 2, "-d (batched) input, got ",
              input.defined() ? input.dim() : 0, " dims (sizes ",
              input.defined() ? input.sizes().vec() : std::vector<int64_t>{}, ")");
  NABLA_CHECK(weight.defined() && weight.dim() == dims + 2, op, ": expected a ", dims + 2,
              "-d weight (", weight_layout, "), got ", weight.defined() ? weight.dim() : 0,
              " dims");
  const bool batched = input.dim() == dims + 2;
  Tensor x = batched ? input : input.unsqueeze(0);
  return {batched, x, dims == 1 ? x.unsqueeze(2) : x, dims == 1 ? weight.unsqueeze(2) : weight};
}

// `dims` spatial dims (1 or 2): input [N, C, *] or unbatched [C, *], weight [O, C / groups, *].
Tensor conv_nd(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
               const ConvArgs& a, int64_t groups, int64_t dims) {
  auto [batched, x, x4, w4] = conv_operands(op, input, weight, dims, "out, in/groups, kernel...");
  check_conv(op, x4, w4, bias, groups, false, a);
  const int64_t kh = w4.size(2), kw = w4.size(3);
  const int64_t oh =
      (x4.size(2) + 2 * a.padding[0] - a.dilation[0] * (kh - 1) - 1) / a.stride[0] + 1;
  const int64_t ow =
      (x4.size(3) + 2 * a.padding[1] - a.dilation[1] * (kw - 1) - 1) / a.stride[1] + 1;
  const WindowGeometry g{x4.size(2),    x4.size(3),    kh,           kw,
                         a.stride[0],   a.stride[1],   a.padding[0], a.padding[1],
                         a.dilation[0], a.dilation[1], oh,           ow};
  Tensor out = convolution(x, weight, bias, {g, groups, false});
  return batched ? out : out.squeeze(0);
}

// "same" and "valid" padding: per-dim (left, right) amounts; asymmetric ones pad the
// input explicitly (the extra element goes right, as PyTorch).
Tensor conv_string_padding(const char* op, const Tensor& input, const Tensor& weight,
                           const Tensor& bias, IntArrayRef stride, std::string_view padding,
                           IntArrayRef dilation, int64_t groups, int64_t dims) {
  NABLA_CHECK(padding == "same" || padding == "valid", op, ": invalid padding string '",
              std::string(padding), "' (expected \"same\" or \"valid\")");
  const auto d = static_cast<size_t>(dims);
  ConvArgs a = conv_args(op, stride, {0}, dilation, d);
  if (padding == "valid") return conv_nd(op, input, weight, bias, a, groups, dims);
  NABLA_CHECK(a.stride[0] == 1 && a.stride[1] == 1, op,
              ": padding='same' is not supported for strided convolutions");
  NABLA_CHECK(weight.defined() && weight.dim() == dims + 2, op, ": expected a ", dims + 2,
              "-d weight");
  Pair extra{0, 0};
  for (size_t i = 2 - d; i < 2; ++i) {
    // Pair slot i is weight dim i + dims (the 1-d forms fill slot 1 only).
    const int64_t total = a.dilation[i] * (weight.size(static_cast<int64_t>(i + d)) - 1);
    a.padding[i] = total / 2;
    extra[i] = total - 2 * a.padding[i];
  }
  Tensor x = input;
  if (extra[0] || extra[1])
    x = dims == 1 ? constant_pad_nd(input, {0, extra[1]}, 0)
                  : constant_pad_nd(input, {0, extra[1], 0, extra[0]}, 0);
  return conv_nd(op, x, weight, bias, a, groups, dims);
}

Tensor conv_transpose_nd(const char* op, const Tensor& input, const Tensor& weight,
                         const Tensor& bias, const ConvArgs& a, Pair output_padding,
                         IntArrayRef output_padding_given, int64_t groups, int64_t dims) {
  auto [batched, x, x4, w4] = conv_operands(op, input, weight, dims, "in, out/groups, kernel...");
  check_conv(op, x4, w4, bias, groups, true, a);
  Pair out_size{};
  for (size_t d = 0; d < 2; ++d) {
    const auto dim = static_cast<int64_t>(d) + 2;
    NABLA_CHECK(
        output_padding[d] >= 0 &&
            (output_padding[d] < a.stride[d] || output_padding[d] < a.dilation[d]),
        op,
        ": output padding must be smaller than either stride or dilation, but got output_padding ",
        output_padding_given, ", stride (", a.stride[0], ", ", a.stride[1], "), dilation (",
        a.dilation[0], ", ", a.dilation[1], ")");
    out_size[d] = (x4.size(dim) - 1) * a.stride[d] - 2 * a.padding[d] +
                  a.dilation[d] * (w4.size(dim) - 1) + output_padding[d] + 1;
    NABLA_CHECK(out_size[d] > 0, op, ": the output size ", out_size[d], " of spatial dim ", d,
                " is not positive");
  }
  // col2im over the full output: output_padding extends the image at the bottom/right,
  // where windows reaching into the (top-left aligned) padding still land.
  const WindowGeometry g{out_size[0],   out_size[1],   w4.size(2),   w4.size(3),
                         a.stride[0],   a.stride[1],   a.padding[0], a.padding[1],
                         a.dilation[0], a.dilation[1], x4.size(2),   x4.size(3)};
  Tensor out = convolution(x, weight, bias, {g, groups, true});
  return batched ? out : out.squeeze(0);
}

// conv_tbc's [T, N, C] is conv1d's [N, C, T]; its weight [k, C_in, C_out] is [C_out, C_in, k].
Tensor conv_tbc_value(const Tensor& self, const Tensor& weight, const Tensor& bias, int64_t pad) {
  return conv1d(self.permute({1, 2, 0}), weight.permute({2, 1, 0}), bias, 1, pad)
      .permute({2, 0, 1})
      .contiguous();
}

struct ConvTbcState {
  SavedVariable self, weight;
  int64_t pad = 0;
  auto saved() { return std::tie(self, weight); }
};

// With x = self as [N, C_in, T], w = weight as [C_out, C_in, k], g = grad as [N, C_out, T']:
// grad x = conv_transpose1d(g, w, pad); grad w[co, ci, j] = sum over n, t of
// g[n, co, t] x[n, ci, t + j - pad], conv1d with the batch and channel dims swapped.
variable_list conv_tbc_backward(OpNode<ConvTbcState>& n, const variable_list& grads) {
  const Tensor self = n.get(n.state.self), weight = n.get(n.state.weight);
  const Tensor g = grads[0].permute({1, 2, 0});
  const int64_t pad = n.state.pad;
  Tensor grad_self, grad_weight, grad_bias;
  if (n.should_compute_output(0))
    grad_self = conv_transpose1d(g, weight.permute({2, 1, 0}), {}, 1, pad).permute({2, 0, 1});
  if (n.should_compute_output(1))
    grad_weight = conv1d(self.permute({2, 1, 0}), g.transpose(0, 1), {}, 1, pad).permute({2, 0, 1});
  if (n.should_compute_output(2)) grad_bias = grads[0].sum({0, 1});
  return {grad_self, grad_weight, grad_bias};
}
constexpr NodeType<ConvTbcState> kConvTbc{"ConvTbcBackward0", conv_tbc_backward};

}  // namespace

Tensor ops::conv2d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                        int64_t groups) {
  return conv_nd("conv2d", input, weight, bias, conv_args("conv2d", stride, padding, dilation, 2),
                 groups, 2);
}

Tensor ops::conv2d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, std::string_view padding, IntArrayRef dilation,
                        int64_t groups) {
  return conv_string_padding("conv2d", input, weight, bias, stride, padding, dilation, groups, 2);
}

Tensor ops::conv1d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                        int64_t groups) {
  return conv_nd("conv1d", input, weight, bias, conv_args("conv1d", stride, padding, dilation, 1),
                 groups, 1);
}

Tensor ops::conv1d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, std::string_view padding, IntArrayRef dilation,
                        int64_t groups) {
  return conv_string_padding("conv1d", input, weight, bias, stride, padding, dilation, groups, 1);
}

Tensor ops::conv_tbc_impl(const Tensor& self, const Tensor& weight, const Tensor& bias,
                          int64_t pad) {
  const char* op = "conv_tbc";
  NABLA_CHECK(self.defined() && self.dim() == 3, op,
              ": input must have 3 dims (time, batch, in_channels), got ",
              self.defined() ? self.sizes() : IntArrayRef{});
  NABLA_CHECK(weight.defined() && weight.dim() == 3, op,
              ": weight must have 3 dims (kernel_width, in_channels, out_channels), got ",
              weight.defined() ? weight.sizes() : IntArrayRef{});
  NABLA_CHECK(bias.defined() && bias.dim() == 1, op, ": bias must be 1-d, got ",
              bias.defined() ? bias.sizes() : IntArrayRef{});
  NABLA_CHECK(self.size(2) == weight.size(1), op, ": input has ", self.size(2),
              " channels (dim 2) but weight expects ", weight.size(1), " (dim 1)");
  NABLA_CHECK(bias.size(0) == weight.size(2), op, ": bias has ", bias.size(0),
              " elements but weight has ", weight.size(2), " output channels (dim 2)");
  NABLA_CHECK(pad >= 0, op, ": pad must be non-negative, got ", pad);
  Tensor out = no_grad([&] { return conv_tbc_value(self, weight, bias, pad); });
  if (auto node = autograd::record_node(kConvTbc, {&self, &weight, &bias})) {
    node->state.self = autograd::save(self);
    node->state.weight = autograd::save(weight);
    node->state.pad = pad;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor ops::conv_transpose2d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                  IntArrayRef stride, IntArrayRef padding,
                                  IntArrayRef output_padding, int64_t groups,
                                  IntArrayRef dilation) {
  const char* op = "conv_transpose2d";
  return conv_transpose_nd(op, input, weight, bias, conv_args(op, stride, padding, dilation, 2),
                           ops::window_pair(op, "output_padding", output_padding, 2),
                           output_padding, groups, 2);
}

Tensor ops::conv_transpose1d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                  IntArrayRef stride, IntArrayRef padding,
                                  IntArrayRef output_padding, int64_t groups,
                                  IntArrayRef dilation) {
  const char* op = "conv_transpose1d";
  const Pair o = ops::window_pair(op, "output_padding", output_padding, 1);
  return conv_transpose_nd(op, input, weight, bias, conv_args(op, stride, padding, dilation, 1),
                           {0, o[0]}, output_padding, groups, 1);
}

}  // namespace nabla
