// conv3d and conv_transpose3d: one op with LibTorch's node ConvolutionBackward0, as the
// 1-d and 2-d forms (window/convolution.cpp). The backend has no volumetric kernel, so the value
// is a sum over the kernel's depth of 2-d convolutions: kernel slice kd of the weight
// meets the input planes kd * dilation + od * stride (od: output depth), which are moved
// into the batch, so each term is one 2-d call over N * out_depth images and runs on the
// backend's 2-d kernels (oneDNN where built). The transposed form scatters its 2-d terms
// into the output planes the same way. The backward is written with the 3-d ops
// themselves and im2col, so higher derivatives follow.
#include <array>
#include <string>
#include <tuple>

#include "nabla/autograd/record.h"
#include "nabla/ops/convolution.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/op_utils.h"
#include "ops/window/window.h"

namespace nabla {

namespace {

using Triple = std::array<int64_t, 3>;

/// A window parameter given as one value or one per spatial dim.
Triple triple(const char* op, const char* what, IntArrayRef v) {
  NABLA_CHECK(v.size() == 1 || v.size() == 3, op, ": ", what,
              " must have 1 or 3 values (one per spatial dim), got ", v.size(), " (", v, ")");
  return v.size() == 1 ? Triple{v[0], v[0], v[0]} : Triple{v[0], v[1], v[2]};
}

IntArrayRef as_ref(const Triple& t) { return {t.data(), t.size()}; }

/// The geometry of a 3-d convolution: windows of `kernel` over the image (the input of a
/// convolution, the output of the transposed form), at `grid` positions (the other side).
struct Conv3dGeometry {
  Triple kernel{}, stride{}, padding{}, dilation{}, image{}, grid{};
  int64_t groups = 1;
  bool transposed = false;

  /// How far the windows reach past the image end: the transposed form's output_padding.
  int64_t overhang(size_t d) const {
    return image[d] -
           ((grid[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) + 1);
  }
  /// The 2-d geometry of the height and width dims.
  WindowGeometry plane() const {
    return {image[1],   image[2],   kernel[1],   kernel[2],   stride[1], stride[2],
            padding[1], padding[2], dilation[1], dilation[2], grid[1],   grid[2]};
  }
};

/// Planes kd * dilation + g * stride (g < grid depth) of `image` [N, C, D, H, W] padded in
/// depth by `padding`, moved into the batch: [N * grid depth, C, H, W].
Tensor depth_tap(const Tensor& padded, const Conv3dGeometry& g, int64_t kd) {
  const int64_t start = kd * g.dilation[0];
  Tensor planes = padded.slice(2, start, start + (g.grid[0] - 1) * g.stride[0] + 1,
                               g.stride[0]);  // [N,C,G,H,W]
  return planes.transpose(1, 2).reshape(
      {padded.size(0) * g.grid[0], padded.size(1), padded.size(3), padded.size(4)});
}

Tensor pad_depth(const Tensor& x, int64_t padding) {
  return padding == 0 ? x : constant_pad_nd(x, {0, 0, 0, 0, padding, padding}, 0);
}

// conv(x [N, C, image], w [O, C / groups, kernel]) -> [N, O, grid], without bias.
Tensor conv3d_value(const Tensor& x, const Tensor& w, const Conv3dGeometry& g) {
  const int64_t n = x.size(0), out_channels = w.size(0);
  const Tensor padded = pad_depth(x, g.padding[0]);
  Tensor sum;
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    Tensor term = conv2d(depth_tap(padded, g, kd), w.select(2, kd), Tensor(),
                         {g.stride[1], g.stride[2]}, {g.padding[1], g.padding[2]},
                         {g.dilation[1], g.dilation[2]}, g.groups);  // [N G0, O, G1, G2]
    sum = kd == 0 ? term : sum.add_(term);
  }
  return sum.view({n, g.grid[0], out_channels, g.grid[1], g.grid[2]}).transpose(1, 2);
}

// The transposed form: x [N, Ci, grid], w [Ci, O / groups, kernel] -> [N, O, image].
Tensor conv_transpose3d_value(const Tensor& x, const Tensor& w, const Conv3dGeometry& g) {
  const int64_t n = x.size(0), out_channels = w.size(1) * g.groups;
  const Tensor xb = x.transpose(1, 2).reshape({n * g.grid[0], x.size(1), g.grid[1], g.grid[2]});
  // The full depth the windows cover, before the padding is cut off both ends.
  const int64_t full = g.image[0] + 2 * g.padding[0];
  Tensor out = zeros({n, out_channels, full, g.image[1], g.image[2]}, x.options());
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    Tensor term = conv_transpose2d(xb, w.select(2, kd), Tensor(), {g.stride[1], g.stride[2]},
                                   {g.padding[1], g.padding[2]}, {g.overhang(1), g.overhang(2)},
                                   g.groups, {g.dilation[1], g.dilation[2]});  // [N G0, O, H, W]
    const int64_t start = kd * g.dilation[0];
    out.slice(2, start, start + (g.grid[0] - 1) * g.stride[0] + 1, g.stride[0])
        .add_(term.view({n, g.grid[0], out_channels, g.image[1], g.image[2]}).transpose(1, 2));
  }
  return out.narrow(2, g.padding[0], g.image[0]);
}

// The weight gradient: sum over the batch and the window positions of a [N, A, grid]
// times the image's windows (a = grad_out, image = input for a convolution; a = input,
// image = grad_out for the transposed form), shaped [A, B / groups, kernel].
Tensor weight_grad3d(const Tensor& a, const Tensor& image, const Conv3dGeometry& g) {
  const int64_t n = a.size(0), a_channels = a.size(1), positions = g.grid[1] * g.grid[2];
  const int64_t a_per_group = a_channels / g.groups;
  const WindowGeometry plane = g.plane();
  // [A, N G0 L]: the rows a product with the columns reduces over.
  const Tensor rows = a.transpose(1, 2)
                          .reshape({n * g.grid[0], a_channels, positions})
                          .transpose(0, 1)
                          .reshape({a_channels, n * g.grid[0] * positions});
  const Tensor padded = pad_depth(image, g.padding[0]);
  std::vector<Tensor> taps;
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    const Tensor cols = ops::im2col_batch_inner(depth_tap(padded, g, kd), plane);  // [B kh kw, M]
    const int64_t k_per_group = cols.size(0) / g.groups;
    std::vector<Tensor> per_group;
    for (int64_t gi = 0; gi < g.groups; ++gi)
      per_group.push_back(rows.narrow(0, gi * a_per_group, a_per_group)
                              .mm(cols.narrow(0, gi * k_per_group, k_per_group).t()));
    taps.push_back((per_group.size() == 1 ? per_group[0] : cat(per_group, 0))
                       .view({a_channels, image.size(1) / g.groups, g.kernel[1], g.kernel[2]}));
  }
  return stack(taps, 2);  // [A, B / groups, kd, kh, kw]
}

struct Convolution3dState {
  SavedVariable input, weight;
  Conv3dGeometry geometry;
  bool has_bias = false;
  auto saved() { return std::tie(input, weight); }
};

Tensor convolution3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Conv3dGeometry& g);

// ConvolutionBackward0 of the 3-d forms: the input gradient is the adjoint convolution of
// the output gradient over the same geometry, the weight gradient weight_grad3d, the bias
// gradient a sum.
variable_list convolution3d_backward(OpNode<Convolution3dState>& n, const variable_list& grads) {
  const Convolution3dState& s = n.state;
  const Conv3dGeometry& g = s.geometry;
  const Tensor x = n.get(s.input), w = n.get(s.weight), gy = grads[0];
  Tensor gx, gw, gb;
  if (n.needs_input_grad(0)) {
    Conv3dGeometry adjoint = g;
    adjoint.transposed = !g.transposed;
    gx = convolution3d(gy, w, Tensor(), adjoint);
  }
  if (n.needs_input_grad(1)) gw = g.transposed ? weight_grad3d(x, gy, g) : weight_grad3d(gy, x, g);
  if (s.has_bias && n.needs_input_grad(2)) gb = gy.sum({0, 2, 3, 4});
  return {gx, gw, gb};
}
constexpr NodeType<Convolution3dState> kConvolution3d{"ConvolutionBackward0",
                                                      convolution3d_backward};

/// input [N, C, *] and a 5-d weight, checked by the caller; records ConvolutionBackward0
/// with edges to (input, weight, bias).
Tensor convolution3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Conv3dGeometry& g) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = g.transposed ? conv_transpose3d_value(input, weight, g) : conv3d_value(input, weight, g);
    out = bias.defined() ? out + bias.view({1, bias.size(0), 1, 1, 1}) : out.contiguous();
  }
  if (auto node = autograd::record_node(kConvolution3d, {&input, &weight, &bias})) {
    node->state.input = autograd::save(input);
    node->state.weight = autograd::save(weight);
    NABLA_ASSIGN_NODE_STATE(node->state.geometry, g);
    node->state.has_bias = bias.defined();
    autograd::set_history(out, node);
  }
  return out;
}

// ---- The public forms: batching, checks, geometry -------------------------------------------

struct Conv3dOperands {
  bool batched;
  Tensor x;
};

// Checks shared by both forms; returns the input batched.
Conv3dOperands check_operands(const char* op, const Tensor& input, const Tensor& weight,
                              const Tensor& bias, int64_t groups, bool transposed,
                              const Conv3dGeometry& g) {
  NABLA_CHECK(input.defined() && (input.dim() == 4 || input.dim() == 5), op,
              ": expected 4-d (unbatched) or 5-d (batched) input, got ",
              input.defined() ? input.dim() : 0, " dims (sizes ",
              input.defined() ? input.sizes().vec() : std::vector<int64_t>{}, ")");
  NABLA_CHECK(weight.defined() && weight.dim() == 5, op, ": expected a 5-d weight (",
              transposed ? "in, out/groups" : "out, in/groups", ", kd, kh, kw), got ",
              weight.defined() ? weight.dim() : 0, " dims");
  NABLA_CHECK(weight.size(2) > 0 && weight.size(3) > 0 && weight.size(4) > 0, op,
              ": expected a non-empty kernel, got weight of size ", weight.sizes());
  NABLA_CHECK(groups > 0, op, ": non-positive groups is not supported, got ", groups);
  NABLA_CHECK(input.is_floating_point(), op, ": input must be floating, got ", input.scalar_type());
  NABLA_CHECK(input.scalar_type() == weight.scalar_type(), op, ": input (", input.scalar_type(),
              ") and weight (", weight.scalar_type(), ") must have the same dtype");
  const bool batched = input.dim() == 5;
  Tensor x = batched ? input : input.unsqueeze(0);
  const int64_t channels = x.size(1);
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
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  if (bias.defined())
    NABLA_CHECK(bias.dim() == 1 && bias.size(0) == out_channels, op, ": expected bias of shape [",
                out_channels, "], got ", bias.sizes());
  for (size_t d = 0; d < 3; ++d)
    NABLA_CHECK(g.stride[d] > 0 && g.dilation[d] > 0 && g.padding[d] >= 0, op,
                ": stride and dilation must be positive and padding non-negative, got stride ",
                as_ref(g.stride), ", padding ", as_ref(g.padding), ", dilation ",
                as_ref(g.dilation));
  return {batched, x};
}

Conv3dGeometry geometry(const char* op, IntArrayRef stride, IntArrayRef padding,
                        IntArrayRef dilation, const Tensor& weight, int64_t groups,
                        bool transposed) {
  Conv3dGeometry g;
  g.stride = triple(op, "stride", stride);
  g.padding = triple(op, "padding", padding);
  g.dilation = triple(op, "dilation", dilation);
  if (weight.defined() && weight.dim() == 5)
    g.kernel = {weight.size(2), weight.size(3), weight.size(4)};
  g.groups = groups;
  g.transposed = transposed;
  return g;
}

Tensor conv3d_forward(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                      Conv3dGeometry g) {
  auto [batched, x] = check_operands(op, input, weight, bias, g.groups, false, g);
  for (size_t d = 0; d < 3; ++d) {
    g.image[d] = x.size(static_cast<int64_t>(d) + 2);
    const int64_t padded = g.image[d] + 2 * g.padding[d];
    const int64_t span = g.dilation[d] * (g.kernel[d] - 1) + 1;
    NABLA_CHECK(padded >= span, op, ": calculated padded input size per channel: (",
                x.size(2) + 2 * g.padding[0], " x ", x.size(3) + 2 * g.padding[1], " x ",
                x.size(4) + 2 * g.padding[2], "). Kernel size: (", weight.size(2), " x ",
                weight.size(3), " x ", weight.size(4),
                "). Kernel size can't be greater than actual input size");
    g.grid[d] = (padded - span) / g.stride[d] + 1;
  }
  Tensor out = convolution3d(x, weight, bias, g);
  return batched ? out : out.squeeze(0);
}

}  // namespace

Tensor ops::conv3d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                        int64_t groups) {
  const char* op = "conv3d";
  return conv3d_forward(op, input, weight, bias,
                        geometry(op, stride, padding, dilation, weight, groups, false));
}

Tensor ops::conv3d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, std::string_view padding, IntArrayRef dilation,
                        int64_t groups) {
  const char* op = "conv3d";
  NABLA_CHECK(padding == "same" || padding == "valid", op, ": invalid padding string '",
              std::string(padding), "' (expected \"same\" or \"valid\")");
  Conv3dGeometry g = geometry(op, stride, {0}, dilation, weight, groups, false);
  if (padding == "valid") return conv3d_forward(op, input, weight, bias, g);
  for (int64_t s : g.stride)
    NABLA_CHECK(s == 1, op,
                ": padding='same' is not supported for strided convolutions, got stride ",
                as_ref(g.stride));
  NABLA_CHECK(weight.defined() && weight.dim() == 5, op, ": expected a 5-d weight, got ",
              weight.defined() ? weight.dim() : 0, " dims");
  // Symmetric padding where the window's reach is even; the odd element goes right (end).
  std::vector<int64_t> extra(6, 0);  // constant_pad_nd order: last dim first
  bool asymmetric = false;
  for (size_t d = 0; d < 3; ++d) {
    const int64_t total = g.dilation[d] * (g.kernel[d] - 1);
    g.padding[d] = total / 2;
    extra[2 * (2 - d) + 1] = total - 2 * g.padding[d];
    asymmetric = asymmetric || extra[2 * (2 - d) + 1] != 0;
  }
  return conv3d_forward(op, asymmetric ? constant_pad_nd(input, extra, 0) : input, weight, bias, g);
}

Tensor ops::conv_transpose3d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                  IntArrayRef stride, IntArrayRef padding,
                                  IntArrayRef output_padding, int64_t groups,
                                  IntArrayRef dilation) {
  const char* op = "conv_transpose3d";
  Conv3dGeometry g = geometry(op, stride, padding, dilation, weight, groups, true);
  auto [batched, x] = check_operands(op, input, weight, bias, groups, true, g);
  const Triple extra = triple(op, "output_padding", output_padding);
  for (size_t d = 0; d < 3; ++d) {
    NABLA_CHECK(
        extra[d] >= 0 && (extra[d] < g.stride[d] || extra[d] < g.dilation[d]), op,
        ": output padding must be smaller than either stride or dilation, but got output_padding ",
        output_padding, ", stride ", as_ref(g.stride), ", dilation ", as_ref(g.dilation));
    g.grid[d] = x.size(static_cast<int64_t>(d) + 2);
    g.image[d] = (g.grid[d] - 1) * g.stride[d] - 2 * g.padding[d] +
                 g.dilation[d] * (g.kernel[d] - 1) + extra[d] + 1;
    NABLA_CHECK(g.image[d] > 0, op, ": the output size ", g.image[d], " of spatial dim ", d,
                " is not positive (input ", x.sizes(), ", kernel ", as_ref(g.kernel), ", stride ",
                as_ref(g.stride), ", padding ", as_ref(g.padding), ")");
  }
  Tensor out = convolution3d(x, weight, bias, g);
  return batched ? out : out.squeeze(0);
}

}  // namespace nabla
