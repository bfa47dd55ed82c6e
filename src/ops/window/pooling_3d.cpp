// 3-d pooling (see nabla/ops/pooling.h), each op with LibTorch's node. A window over
// (D, H, W) is a window over (H, W) followed by one over D, so the 3-d ops run the 2-d
// machinery twice: max pooling as the backend's 2-d kernel over each H x W plane, then
// over the D column of each result (its backward the shared arg-max scatter); average
// pooling as im2col sums over (H, W) then over D, divided by PyTorch's divisor (a product
// of one factor per dim), its backward the two col2im in reverse; adaptive pooling dim by
// dim (averaging matrices, or maxima over each dim's windows).
#include <array>
#include <tuple>
#include <vector>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/pooling.h"
#include "nabla/ops/trace.h"
#include "ops/nn/nn_registry.h"
#include "ops/window/pooling_common.h"
#include "ops/window/window.h"

namespace nabla {

namespace {

using Dims3 = std::array<int64_t, 3>;

/// Windows over the last three dims (D, H, W) of an input.
struct Geometry3 {
  Dims3 in, k, s, p, d, out;
  /// The (H, W) windows of each D slice, as the 2-d window ops take them.
  WindowGeometry plane() const {
    return {in[1], in[2], k[1], k[2], s[1], s[2], p[1], p[2], d[1], d[2], out[1], out[2]};
  }
  /// The D windows over an image [D, L] whose L columns are pooled (H, W) positions.
  WindowGeometry depth() const {
    const int64_t l = out[1] * out[2];
    return {in[0], l, k[0], 1, s[0], 1, p[0], 0, d[0], 1, out[0], l};
  }
};

void check_input_3d(const char* op, const Tensor& input) {
  NABLA_CHECK(input.defined() && (input.dim() == 4 || input.dim() == 5), op,
              ": expected 4-d (unbatched) or 5-d (batched) input, got ",
              input.defined() ? input.dim() : 0, " dims (sizes ",
              input.defined() ? input.sizes().vec() : std::vector<int64_t>{}, ")");
  NABLA_CHECK(input.size(-1) > 0 && input.size(-2) > 0 && input.size(-3) > 0, op,
              ": expected non-empty spatial dims, got ", input.sizes());
}

Dims3 dims3(const std::vector<int64_t>& v) { return {v[0], v[1], v[2]}; }

Geometry3 geometry_3d(const char* op, const Tensor& input, IntArrayRef kernel, IntArrayRef stride,
                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  Geometry3 g{};
  g.in = {input.size(-3), input.size(-2), input.size(-1)};
  g.k = dims3(ops::expand_size(op, "kernel_size", kernel, 3));
  g.s = dims3(ops::expand_size(op, "stride", stride, 3, kernel));
  g.p = dims3(ops::expand_size(op, "padding", padding, 3));
  g.d = dims3(ops::expand_size(op, "dilation", dilation, 3));
  for (size_t i = 0; i < 3; ++i) {
    NABLA_CHECK(g.k[i] > 0, op, ": kernel_size must be greater than zero, got ", kernel);
    NABLA_CHECK(g.s[i] > 0, op, ": stride must be greater than zero, got ", stride);
    NABLA_CHECK(g.d[i] > 0, op, ": dilation must be greater than zero, got ", dilation);
    NABLA_CHECK(g.p[i] >= 0 && g.p[i] <= g.k[i] / 2, op,
                ": pad should be at most half of kernel size, but got pad=", g.p[i],
                " and kernel_size=", g.k[i]);
    g.out[i] = ops::pooled_size(g.in[i], g.k[i], g.p[i], g.s[i], g.d[i], ceil_mode);
  }
  NABLA_CHECK(g.out[0] > 0 && g.out[1] > 0 && g.out[2] > 0, op, ": given input size ",
              input.sizes(), ", calculated output size (", g.out[0], " x ", g.out[1], " x ",
              g.out[2], ") is too small");
  return g;
}

// input's leading dims followed by `spatial`.
std::vector<int64_t> out_shape(const Tensor& input, const Dims3& spatial) {
  std::vector<int64_t> s(input.sizes().begin(), input.sizes().end() - 3);
  s.insert(s.end(), spatial.begin(), spatial.end());
  return s;
}

// ---- Average pooling ----------------------------------------------------------------------

// PyTorch's divisor factor of each window along one dim: its length clipped to the padded
// input, or (!count_include_pad) to the input.
std::vector<double> divisor_factors(int64_t in, int64_t k, int64_t s, int64_t p, int64_t out,
                                    bool count_include_pad) {
  std::vector<double> f;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * s - p, end = std::min(start + k, in + p);
    f.push_back(static_cast<double>(
        count_include_pad ? end - start : std::min(end, in) - std::max<int64_t>(start, 0)));
  }
  return f;
}

// [od, oh, ow]: the product of the three factors, or divisor_override.
Tensor avg_divisor_3d(const Geometry3& g, bool count_include_pad,
                      optional<int64_t> divisor_override, const Tensor& like) {
  std::array<std::vector<double>, 3> f;
  for (size_t i = 0; i < 3; ++i)
    f[i] = divisor_factors(g.in[i], g.k[i], g.s[i], g.p[i], g.out[i], count_include_pad);
  std::vector<double> divisor;
  divisor.reserve(static_cast<size_t>(g.out[0] * g.out[1] * g.out[2]));
  for (double a : f[0])
    for (double b : f[1])
      for (double c : f[2])
        divisor.push_back(divisor_override ? static_cast<double>(*divisor_override) : a * b * c);
  return tensor(divisor, kDouble).view({g.out[0], g.out[1], g.out[2]}).to(like);
}

/// AvgPool3DBackward0: grad_input = the adjoint of the two window sums applied to
/// grad / divisor, D's windows first.
struct AvgPool3dState {
  SavedVariable divisor;  // [od, oh, ow]
  Geometry3 window{};
  DimVector input_sizes;  // [..., D, H, W]
  auto saved() { return std::tie(divisor); }
};

variable_list avg_pool3d_backward(OpNode<AvgPool3dState>& n, const variable_list& g) {
  const Geometry3& w = n.state.window;
  const WindowGeometry plane = w.plane(), depth = w.depth();
  const int64_t l = plane.oh * plane.ow, kd = w.k[0], khw = w.k[1] * w.k[2];
  int64_t planes = 1;
  for (size_t i = 0; i + 3 < n.state.input_sizes.size(); ++i) planes *= n.state.input_sizes[i];
  // [..., od, oh, ow] / divisor -> [P, 1, od * L] -> [P, kd, od * L] -> col2im -> [P, 1, D, L]
  Tensor spread = (g[0] / n.get(n.state.divisor)).reshape({planes, 1, w.out[0] * l});
  Tensor sums = ops::col2im(spread.expand({planes, kd, w.out[0] * l}), depth);
  // [P * D, 1, L] -> [P * D, kh * kw, L] -> col2im -> [P * D, 1, H, W]
  sums = sums.reshape({planes * w.in[0], 1, l}).expand({planes * w.in[0], khw, l});
  return {ops::col2im(sums, plane)
              .view(IntArrayRef(n.state.input_sizes.data(), n.state.input_sizes.size()))};
}
constexpr NodeType<AvgPool3dState> kAvgPool3d{"AvgPool3DBackward0", avg_pool3d_backward};

// ---- Adaptive pooling ---------------------------------------------------------------------

/// AdaptiveAvgPool3DBackward0: the three averaging matrices transposed, in reverse order.
struct AdaptiveAvgPool3dState {
  SavedVariable depth, rows, cols;  // [od, D], [oh, H], [ow, W]
  DimVector input_sizes;            // [..., D, H, W]
  auto saved() { return std::tie(depth, rows, cols); }
};

// x [..., D, H, W] -> [..., od, oh, ow] with matrices m_d [od, D], m_h [oh, H], m_w [ow, W].
Tensor apply_3d(const Tensor& x, const Tensor& m_d, const Tensor& m_h, const Tensor& m_w) {
  Tensor t = matmul(m_h, matmul(x, m_w.t()));  // [..., D, oh, ow]
  std::vector<int64_t> flat(t.sizes().begin(), t.sizes().end() - 2), out = flat;
  flat.push_back(t.size(-2) * t.size(-1));
  out.back() = m_d.size(0);
  out.push_back(t.size(-2));
  out.push_back(t.size(-1));
  // Contract D, the third dim from the end: [od, D] @ [..., D, oh * ow].
  return matmul(m_d, t.reshape(flat)).view(out);
}

variable_list adaptive_avg_pool3d_backward(OpNode<AdaptiveAvgPool3dState>& n,
                                           const variable_list& g) {
  const auto& s = n.state;
  Tensor m_d = n.get(s.depth), m_h = n.get(s.rows), m_w = n.get(s.cols);
  // The transposes map [..., od, oh, ow] back to [..., D, H, W].
  return {apply_3d(g[0], m_d.t(), m_h.t(), m_w.t())
              .view(IntArrayRef(s.input_sizes.data(), s.input_sizes.size()))};
}
constexpr NodeType<AdaptiveAvgPool3dState> kAdaptiveAvgPool3d{"AdaptiveAvgPool3DBackward0",
                                                              adaptive_avg_pool3d_backward};

Dims3 adaptive_size_3d(const char* op, const Tensor& input, IntArrayRef output_size) {
  check_input_3d(op, input);
  const auto o = ops::expand_size(op, "output_size", output_size, 3);
  NABLA_CHECK(o[0] > 0 && o[1] > 0 && o[2] > 0, op, ": output_size must be positive, got ",
              output_size);
  return dims3(o);
}

// The maxima of vals over `out` adaptive windows of dim `dim` (kept, now `out` long). Each
// tensor of `chosen` (the positions picked along the dims reduced before) is narrowed to
// the arg-max of each window; dim's own positions are appended to it.
void adaptive_max_dim(Tensor& vals, std::vector<Tensor>& chosen, int64_t dim, int64_t out) {
  const int64_t n = vals.size(dim);
  std::vector<Tensor> maxima;
  std::vector<std::vector<Tensor>> picked(chosen.size() + 1);
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = (i * n) / out, end = ((i + 1) * n + out - 1) / out;
    auto [m, arg] = vals.narrow(dim, start, end - start).max(dim, true);
    maxima.push_back(m);
    for (size_t c = 0; c < chosen.size(); ++c)
      picked[c].push_back(chosen[c].narrow(dim, start, end - start).gather(dim, arg));
    picked.back().push_back(arg + start);
  }
  vals = cat(maxima, dim);
  chosen.clear();
  for (auto& p : picked) chosen.push_back(cat(p, dim));
}

}  // namespace

std::tuple<Tensor, Tensor> ops::max_pool3d_with_indices_impl(const Tensor& input,
                                                             IntArrayRef kernel_size,
                                                             IntArrayRef stride,
                                                             IntArrayRef padding,
                                                             IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool3d";
  check_input_3d(op, input);
  NABLA_CHECK(input.scalar_type() != kBool && input.scalar_type() != kChar &&
                  input.scalar_type() != kShort && input.scalar_type() != kInt,
              op, ": unsupported dtype ", input.scalar_type());
  const Geometry3 g = geometry_3d(op, input, kernel_size, stride, padding, dilation, ceil_mode);
  const WindowGeometry plane = g.plane(), depth = g.depth();
  const int64_t l = plane.oh * plane.ow;
  Tensor out, idx;
  {
    NoGradGuard no_grad;
    // Over (H, W): [P * D, 1, H, W] -> maxima and their H*W positions [P * D, 1, oh, ow].
    Tensor x = input.reshape({-1, 1, g.in[1], g.in[2]}).contiguous();
    const int64_t planes = x.size(0) / g.in[0];
    Tensor v1 = empty({x.size(0), 1, plane.oh, plane.ow}, input.options());
    Tensor i1 = empty({x.size(0), 1, plane.oh, plane.ow}, input.options().dtype(kLong));
    if (v1.numel() > 0) backend_for(x).max_pool2d(v1, i1, x, plane);
    // Over D: the image [P, 1, D, L] of those maxima, windows kd x 1 -> [P, 1, od, L]; an
    // index into that D x L image is d * L + (h, w)'s column.
    Tensor v2 = empty({planes, 1, g.out[0], l}, input.options());
    Tensor i2 = empty({planes, 1, g.out[0], l}, input.options().dtype(kLong));
    if (v2.numel() > 0) backend_for(x).max_pool2d(v2, i2, v1.view({planes, 1, g.in[0], l}), depth);
    Tensor d_star = i2.view({planes, g.out[0], l}).floor_divide(l);
    Tensor hw = i1.view({planes, g.in[0], l}).gather(1, d_star);
    const auto shape = out_shape(input, g.out);
    out = v2.view(shape);
    idx = (d_star * (g.in[1] * g.in[2]) + hw).view(shape);
  }
  ops::record_max_pool(ops::MaxPoolNode::MaxPool3d, input, out, idx, 3);
  return {out, idx};
}

Tensor ops::max_pool3d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                            IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(
      max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor ops::avg_pool3d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                            IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                            optional<int64_t> divisor_override) {
  const char* op = "avg_pool3d";
  check_input_3d(op, input);
  NABLA_CHECK(input.is_floating_point(), op, ": input must be floating, got ", input.scalar_type());
  NABLA_CHECK(!divisor_override || *divisor_override != 0, op, ": divisor must be not zero");
  const Geometry3 g = geometry_3d(op, input, kernel_size, stride, padding, {1}, ceil_mode);
  const WindowGeometry plane = g.plane(), depth = g.depth();
  Tensor divisor = avg_divisor_3d(g, count_include_pad, divisor_override, input);
  Tensor out = no_grad([&] {
    // Sums over (H, W): [P * D, L]; then over D: [P, 1, D, L] -> [P, od * L].
    const int64_t planes = input.numel() / (g.in[0] * g.in[1] * g.in[2]);
    Tensor sums = ops::im2col(input.reshape({planes * g.in[0], 1, g.in[1], g.in[2]}), plane).sum(1);
    sums = ops::im2col(sums.view({planes, 1, g.in[0], plane.oh * plane.ow}), depth).sum(1);
    return sums.view(out_shape(input, g.out)) / divisor;
  });
  if (auto node = autograd::record_node(kAvgPool3d, {&input})) {
    node->state.divisor = autograd::save(divisor);
    node->state.window = g;
    node->state.input_sizes = DimVector(input.sizes().begin(), input.sizes().end());
    autograd::set_history(out, node);
  }
  return out;
}

Tensor ops::adaptive_avg_pool3d_impl(const Tensor& input, IntArrayRef output_size) {
  const char* op = "adaptive_avg_pool3d";
  const Dims3 o = adaptive_size_3d(op, input, output_size);
  NABLA_CHECK(input.is_floating_point(), op, ": input must be floating, got ", input.scalar_type());
  if (o[0] == 1 && o[1] == 1 && o[2] == 1) return input.mean({-1, -2, -3}, true);  // as LibTorch
  Tensor m_d = ops::averaging_matrix(o[0], input.size(-3), input);
  Tensor m_h = ops::averaging_matrix(o[1], input.size(-2), input);
  Tensor m_w = ops::averaging_matrix(o[2], input.size(-1), input);
  Tensor out = no_grad([&] { return apply_3d(input, m_d, m_h, m_w); });
  if (auto node = autograd::record_node(kAdaptiveAvgPool3d, {&input})) {
    node->state.depth = autograd::save(m_d);
    node->state.rows = autograd::save(m_h);
    node->state.cols = autograd::save(m_w);
    node->state.input_sizes = DimVector(input.sizes().begin(), input.sizes().end());
    autograd::set_history(out, node);
  }
  return out;
}

std::tuple<Tensor, Tensor> ops::adaptive_max_pool3d_impl(const Tensor& input,
                                                         IntArrayRef output_size) {
  const char* op = "adaptive_max_pool3d";
  const Dims3 o = adaptive_size_3d(op, input, output_size);
  NABLA_CHECK(input.scalar_type() != kBool, op, ": unsupported dtype ", input.scalar_type());
  Tensor out, idx;
  {
    NoGradGuard no_grad;
    // W's windows, then H's, then D's: the first maximum in (d, h, w) order wins ties, as
    // in LibTorch's scan of each window.
    Tensor vals = input;
    std::vector<Tensor> chosen;  // positions along W, then H, then D
    adaptive_max_dim(vals, chosen, -1, o[2]);
    adaptive_max_dim(vals, chosen, -2, o[1]);
    adaptive_max_dim(vals, chosen, -3, o[0]);
    out = vals;
    idx = (chosen[2] * input.size(-2) + chosen[1]) * input.size(-1) + chosen[0];
  }
  ops::record_max_pool(ops::MaxPoolNode::AdaptiveMaxPool3d, input, out, idx, 3);
  return {out, idx};
}

}  // namespace nabla
