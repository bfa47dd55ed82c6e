// Pooling (see nabla/ops/pooling.h), each op with LibTorch's node: max pooling by the
// backend's kernel, its backward a scatter of the gradient to the arg-max positions (the
// backend's kernel, or under create_graph scatter_add, whose backward gathers); average
// pooling as the sum of im2col windows over the divisor, its backward col2im of the
// gradient over the divisor; adaptive average pooling as two averaging matrices.
#include <array>
#include <cmath>
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

using ops::pooled_size;

// The windows over x's last two dims ([..., h, w]); positions outside the image (padding,
// ceil_mode's last windows) are skipped by max pooling and count as zeros in averages.
WindowGeometry pool_geometry(const char* op, const Tensor& x, IntArrayRef kernel,
                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                             bool ceil_mode, bool max_pool) {
  // An empty stride is the kernel size.
  auto k = ops::window_pair(op, "kernel_size", kernel),
       s = ops::window_pair(op, "stride", stride.empty() ? kernel : stride),
       p = ops::window_pair(op, "padding", padding), d = ops::window_pair(op, "dilation", dilation);
  NABLA_CHECK(k[0] > 0 && k[1] > 0, op, ": kernel_size must be greater than zero, got ", kernel);
  NABLA_CHECK(s[0] > 0 && s[1] > 0, op, ": stride must be greater than zero, got ", stride);
  NABLA_CHECK(d[0] > 0 && d[1] > 0, op, ": dilation must be greater than zero, got ", dilation);
  for (size_t i = 0; i < 2; ++i) {
    const int64_t limit = max_pool ? ((k[i] - 1) * d[i] + 1) / 2 : k[i] / 2;
    NABLA_CHECK(p[i] >= 0 && p[i] <= limit, op, ": pad should be at most half of ",
                max_pool ? "effective " : "", "kernel size, but got pad=", p[i],
                " and kernel_size=", k[i]);
  }
  const int64_t h = x.size(-2), w = x.size(-1);
  const WindowGeometry g{h,
                         w,
                         k[0],
                         k[1],
                         s[0],
                         s[1],
                         p[0],
                         p[1],
                         d[0],
                         d[1],
                         pooled_size(h, k[0], p[0], s[0], d[0], ceil_mode),
                         pooled_size(w, k[1], p[1], s[1], d[1], ceil_mode)};
  NABLA_CHECK(g.oh > 0 && g.ow > 0, op, ": given input size ", x.sizes(),
              ", calculated output size (", g.oh, " x ", g.ow, ") is too small");
  return g;
}

void check_input(const char* op, const Tensor& input) {
  NABLA_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4), op,
              ": expected 3-d (unbatched) or 4-d (batched) input, got ",
              input.defined() ? input.dim() : 0, " dims (sizes ",
              input.defined() ? input.sizes().vec() : std::vector<int64_t>{}, ")");
  NABLA_CHECK(input.size(-1) > 0 && input.size(-2) > 0, op,
              ": expected non-empty spatial dims, got ", input.sizes());
}

std::vector<int64_t> out_shape(const Tensor& x, int64_t oh, int64_t ow) {
  std::vector<int64_t> s(x.sizes().begin(), x.sizes().end() - 2);
  s.push_back(oh);
  s.push_back(ow);
  return s;
}

// ---- Max pooling --------------------------------------------------------------------------

/// MaxPool2DWithIndicesBackward0 and the other nodes of ops::MaxPoolNode: each output's
/// gradient goes to its window's arg-max.
struct MaxPoolState {
  SavedVariable indices;  // [..., o_1..o_k], flat positions in each i_1 x .. x i_k plane
  DimVector input_sizes;  // [..., i_1..i_k]
  int64_t spatial = 2;    // k
  auto saved() { return std::tie(indices); }
};

// [..., s_1..s_k] as the two trailing dims the kernel reads as a plane, [..., s_1..s_k-1, s_k].
std::vector<int64_t> as_plane(IntArrayRef shape, int64_t spatial) {
  const size_t lead = shape.size() - static_cast<size_t>(spatial);
  std::vector<int64_t> s(shape.begin(), shape.begin() + static_cast<int64_t>(lead));
  int64_t rows = 1;
  for (size_t i = lead; i + 1 < shape.size(); ++i) rows *= shape[i];
  s.push_back(rows);
  s.push_back(shape.back());
  return s;
}

// Without create_graph one kernel (KernelBackend::max_pool2d_backward, over each plane
// seen as 2-d); with it, the same scatter as differentiable ops (whose backward gathers),
// for higher derivatives.
variable_list max_pool_backward(OpNode<MaxPoolState>& n, const variable_list& g) {
  const Tensor idx = n.get(n.state.indices);
  const IntArrayRef in_shape(n.state.input_sizes.data(), n.state.input_sizes.size());
  const int64_t k = n.state.spatial;
  if (!GradMode::is_enabled()) {
    Tensor gi = empty(in_shape, g[0].options());
    const auto out_plane = as_plane(idx.sizes(), k);
    backend_for(gi.device())
        .max_pool2d_backward(gi.view(as_plane(in_shape, k)), g[0].contiguous().view(out_plane),
                             idx.contiguous().view(out_plane));
    return {gi};
  }
  std::vector<int64_t> flat(in_shape.begin(), in_shape.end() - k), flat_out = flat;
  int64_t plane = 1;
  for (size_t i = in_shape.size() - static_cast<size_t>(k); i < in_shape.size(); ++i)
    plane *= in_shape[i];
  flat.push_back(plane);
  flat_out.push_back(-1);
  const int64_t last = static_cast<int64_t>(flat.size()) - 1;
  return {zeros(flat, g[0].options())
              .scatter_add(last, idx.reshape(flat_out), g[0].reshape(flat_out))
              .view(in_shape)};
}
constexpr NodeType<MaxPoolState> kMaxPoolNodes[] = {
    {"MaxPool2DWithIndicesBackward0", max_pool_backward},
    {"AdaptiveMaxPool2DBackward0", max_pool_backward},
    {"MaxPool3DWithIndicesBackward0", max_pool_backward},
    {"AdaptiveMaxPool3DBackward0", max_pool_backward},
    {"FractionalMaxPool2DBackward0", max_pool_backward},
    {"FractionalMaxPool3DBackward0", max_pool_backward},
};

// ---- Average pooling ----------------------------------------------------------------------

/// AvgPool2DBackward0: grad_input = col2im(grad / divisor spread over each window).
struct AvgPoolState {
  SavedVariable divisor;  // [oh ow], each window's divisor
  WindowGeometry window{};
  DimVector input_sizes;  // [..., h, w]
  auto saved() { return std::tie(divisor); }
};

variable_list avg_pool_backward(OpNode<AvgPoolState>& n, const variable_list& g) {
  const AvgPoolState& s = n.state;
  const int64_t positions = s.window.oh * s.window.ow, k = s.window.kh * s.window.kw;
  // [P, 1, L] / divisor [L] -> [P, K, L] -> col2im -> [P, 1, h, w]
  Tensor spread = (g[0].reshape({-1, 1, positions}) / n.get(s.divisor));
  spread = spread.expand({spread.size(0), k, positions});
  return {
      ops::col2im(spread, s.window).view(IntArrayRef(s.input_sizes.data(), s.input_sizes.size()))};
}
constexpr NodeType<AvgPoolState> kAvgPool{"AvgPool2DBackward0", avg_pool_backward};

// PyTorch's divisor of each window: its size clipped to the padded image (or without the
// padding when !count_include_pad), or divisor_override.
Tensor avg_divisor(const WindowGeometry& g, bool count_include_pad,
                   optional<int64_t> divisor_override, const Tensor& like) {
  std::vector<double> divisor;
  divisor.reserve(static_cast<size_t>(g.oh * g.ow));
  for (int64_t y = 0; y < g.oh; ++y)
    for (int64_t x = 0; x < g.ow; ++x) {
      int64_t hs = y * g.sh - g.ph, ws = x * g.sw - g.pw;
      int64_t he = std::min(hs + g.kh, g.h + g.ph), we = std::min(ws + g.kw, g.w + g.pw);
      const int64_t pool = (he - hs) * (we - ws);
      hs = std::max<int64_t>(hs, 0);
      ws = std::max<int64_t>(ws, 0);
      he = std::min(he, g.h);
      we = std::min(we, g.w);
      divisor.push_back(divisor_override    ? static_cast<double>(*divisor_override)
                        : count_include_pad ? static_cast<double>(pool)
                                            : static_cast<double>((he - hs) * (we - ws)));
    }
  return tensor(divisor, kDouble).to(like);  // like's dtype, on its device
}

// ---- Adaptive pooling ---------------------------------------------------------------------

using ops::averaging_matrix;

std::array<int64_t, 2> adaptive_size(const char* op, const Tensor& input, IntArrayRef output_size) {
  check_input(op, input);
  auto o = ops::window_pair(op, "output_size", output_size);
  NABLA_CHECK(o[0] > 0 && o[1] > 0, op, ": output_size must be positive, got ", output_size);
  return o;
}

/// AdaptiveAvgPool2DBackward0: grad_input = rows^T @ grad @ cols.
struct AdaptiveAvgPoolState {
  SavedVariable rows, cols;  // the averaging matrices [oh, h] and [ow, w]
  auto saved() { return std::tie(rows, cols); }
};
variable_list adaptive_avg_pool_backward(OpNode<AdaptiveAvgPoolState>& n, const variable_list& g) {
  return {matmul(matmul(n.get(n.state.rows).t(), g[0]), n.get(n.state.cols))};
}
constexpr NodeType<AdaptiveAvgPoolState> kAdaptiveAvgPool{"AdaptiveAvgPool2DBackward0",
                                                          adaptive_avg_pool_backward};

}  // namespace

int64_t ops::pooled_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode) {
  const int64_t numerator = in + 2 * pad - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (numerator >= 0 ? numerator / s : -((-numerator + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + pad) --out;
  return out;
}

std::vector<int64_t> ops::expand_size(const char* op, const char* what, IntArrayRef v, size_t dims,
                                      IntArrayRef fallback) {
  if (v.empty() && !fallback.empty()) v = fallback;
  NABLA_CHECK(v.size() == dims || v.size() == 1, op, ": expected ", what,
              " to be a single integer or a list of ", dims, ", got ", v.size(), " values");
  return v.size() == 1 ? std::vector<int64_t>(dims, v[0]) : v.vec();
}

Tensor ops::averaging_matrix(int64_t out, int64_t n, const Tensor& like) {
  std::vector<double> m(static_cast<size_t>(out * n), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = (i * n) / out, end = ((i + 1) * n + out - 1) / out;
    for (int64_t j = start; j < end; ++j)
      m[static_cast<size_t>(i * n + j)] = 1.0 / static_cast<double>(end - start);
  }
  return tensor(m, kDouble).view({out, n}).to(like);
}

void ops::record_max_pool(MaxPoolNode kind, const Tensor& input, const Tensor& out,
                          const Tensor& indices, int64_t spatial) {
  if (auto node = autograd::record_node(kMaxPoolNodes[static_cast<int>(kind)], {&input})) {
    node->state.input_sizes = DimVector(input.sizes().begin(), input.sizes().end());
    node->state.indices = autograd::save(indices);
    node->state.spatial = spatial;
    autograd::set_history(out, node);
  }
}

std::tuple<Tensor, Tensor> ops::max_pool2d_with_indices_impl(const Tensor& input,
                                                             IntArrayRef kernel_size,
                                                             IntArrayRef stride,
                                                             IntArrayRef padding,
                                                             IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool2d";
  check_input(op, input);
  NABLA_CHECK(input.scalar_type() != kBool && input.scalar_type() != kChar &&
                  input.scalar_type() != kShort && input.scalar_type() != kInt,
              op, ": unsupported dtype ", input.scalar_type());
  const WindowGeometry g =
      pool_geometry(op, input, kernel_size, stride, padding, dilation, ceil_mode, true);
  Tensor x = no_grad([&] { return input.reshape({-1, 1, g.h, g.w}).contiguous(); });
  const auto shape = out_shape(input, g.oh, g.ow);
  // The kernel writes the maxima into [..., oh * ow] buffers viewed as [..., oh, ow].
  std::vector<int64_t> flat_out(shape.begin(), shape.end() - 2);
  flat_out.push_back(g.oh * g.ow);
  Tensor values = empty(flat_out, input.options());
  Tensor indices = empty(flat_out, input.options().dtype(kLong));
  if (values.numel() > 0) backend_for(x).max_pool2d(values.view(shape), indices.view(shape), x, g);
  Tensor out = values.view(shape), idx = indices.view(shape);
  ops::record_max_pool(ops::MaxPoolNode::MaxPool2d, input, out, idx, 2);
  return {out, idx};
}

Tensor ops::max_pool2d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                            IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(
      max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor ops::max_pool1d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                            IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
              "max_pool1d: expected 2-d or 3-d input, got ", input.defined() ? input.dim() : 0,
              " dims");
  auto one = [](IntArrayRef v, int64_t dflt) {
    return std::vector<int64_t>{1, v.empty() ? dflt : v[0]};
  };
  NABLA_CHECK(kernel_size.size() == 1, "max_pool1d: kernel_size must be a single int");
  return max_pool2d(input.unsqueeze(-2), one(kernel_size, 1), one(stride, kernel_size[0]),
                    {0, padding.empty() ? 0 : padding[0]}, one(dilation, 1), ceil_mode)
      .squeeze(-2);
}

std::tuple<Tensor, Tensor> ops::max_pool1d_with_indices_impl(const Tensor& input,
                                                             IntArrayRef kernel_size,
                                                             IntArrayRef stride,
                                                             IntArrayRef padding,
                                                             IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool1d_with_indices";
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3), op,
              ": expected 2-d or 3-d input, got ", input.defined() ? input.dim() : 0, " dims");
  const auto k = ops::expand_size(op, "kernel_size", kernel_size, 1);
  const auto s = ops::expand_size(op, "stride", stride, 1, kernel_size);
  const auto p = ops::expand_size(op, "padding", padding, 1);
  const auto d = ops::expand_size(op, "dilation", dilation, 1);
  // An index into a 1 x L plane is the position along L.
  auto [v, i] = max_pool2d_with_indices(input.unsqueeze(-2), {1, k[0]}, {1, s[0]}, {0, p[0]},
                                        {1, d[0]}, ceil_mode);
  return {v.squeeze(-2), i.squeeze(-2)};
}

Tensor ops::avg_pool2d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                            IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                            optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d";
  check_input(op, input);
  NABLA_CHECK(input.is_floating_point(), op, ": input must be floating, got ", input.scalar_type());
  NABLA_CHECK(!divisor_override || *divisor_override != 0, op, ": divisor must be not zero");
  const WindowGeometry g =
      pool_geometry(op, input, kernel_size, stride, padding, {1}, ceil_mode, false);
  Tensor divisor = avg_divisor(g, count_include_pad, divisor_override, input);
  Tensor out = no_grad([&] {
    Tensor sums = ops::im2col(input.reshape({-1, 1, g.h, g.w}), g).sum(1);  // [P, L]
    return (sums / divisor).view(out_shape(input, g.oh, g.ow));
  });
  if (auto node = autograd::record_node(kAvgPool, {&input})) {
    node->state.divisor = autograd::save(divisor);
    node->state.window = g;
    node->state.input_sizes = DimVector(input.sizes().begin(), input.sizes().end());
    autograd::set_history(out, node);
  }
  return out;
}

Tensor ops::avg_pool1d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                            IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
              "avg_pool1d: expected 2-d or 3-d input, got ", input.defined() ? input.dim() : 0,
              " dims");
  NABLA_CHECK(kernel_size.size() == 1, "avg_pool1d: kernel_size must be a single int");
  return avg_pool2d(input.unsqueeze(-2), {1, kernel_size[0]},
                    {1, stride.empty() ? kernel_size[0] : stride[0]},
                    {0, padding.empty() ? 0 : padding[0]}, ceil_mode, count_include_pad)
      .squeeze(-2);
}

Tensor ops::adaptive_avg_pool2d_impl(const Tensor& input, IntArrayRef output_size) {
  const auto o = adaptive_size("adaptive_avg_pool2d", input, output_size);
  NABLA_CHECK(input.is_floating_point(), "adaptive_avg_pool2d: input must be floating, got ",
              input.scalar_type());
  if (o[0] == 1 && o[1] == 1) return input.mean({-1, -2}, true);  // as LibTorch
  Tensor rows = averaging_matrix(o[0], input.size(-2), input);
  Tensor cols = averaging_matrix(o[1], input.size(-1), input);
  Tensor out = no_grad([&] { return matmul(matmul(rows, input), cols.t()); });
  if (auto node = autograd::record_node(kAdaptiveAvgPool, {&input})) {
    node->state.rows = autograd::save(rows);
    node->state.cols = autograd::save(cols);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor ops::adaptive_avg_pool1d_impl(const Tensor& input, IntArrayRef output_size) {
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
              "adaptive_avg_pool1d: expected 2-d or 3-d ", "input, got ",
              input.defined() ? input.dim() : 0, " dims");
  NABLA_CHECK(output_size.size() == 1 && output_size[0] > 0,
              "adaptive_avg_pool1d: output_size must be one positive int");
  NABLA_CHECK(input.size(-1) > 0, "adaptive_avg_pool1d: empty input");
  return adaptive_avg_pool2d(input.unsqueeze(-2), {1, output_size[0]}).squeeze(-2);
}

std::tuple<Tensor, Tensor> ops::adaptive_max_pool2d_impl(const Tensor& input,
                                                         IntArrayRef output_size) {
  const auto o = adaptive_size("adaptive_max_pool2d", input, output_size);
  const int64_t h = input.size(-2), w = input.size(-1);
  auto shape = out_shape(input, o[0], o[1]);
  Tensor out, idx;
  {
    NoGradGuard no_grad;
    std::vector<Tensor> values, indices;
    for (int64_t i = 0; i < o[0]; ++i) {
      const int64_t hs = (i * h) / o[0], he = ((i + 1) * h + o[0] - 1) / o[0];
      for (int64_t j = 0; j < o[1]; ++j) {
        const int64_t ws = (j * w) / o[1], we = ((j + 1) * w + o[1] - 1) / o[1];
        Tensor window = input.narrow(-2, hs, he - hs).narrow(-1, ws, we - ws);
        auto [v, a] = window.flatten(-2).max(-1);
        values.push_back(v);
        // Window-local arg-max -> flat position in the H x W plane.
        Tensor col = a.remainder(we - ws);
        Tensor row = ((a - col) / (we - ws)).to(kLong);
        indices.push_back((row + hs) * w + col + ws);
      }
    }
    out = stack(values, -1).view(shape);
    idx = stack(indices, -1).view(shape);
  }
  ops::record_max_pool(ops::MaxPoolNode::AdaptiveMaxPool2d, input, out, idx, 2);
  return {out, idx};
}

std::tuple<Tensor, Tensor> ops::adaptive_max_pool1d_impl(const Tensor& input,
                                                         IntArrayRef output_size) {
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
              "adaptive_max_pool1d: expected 2-d or 3-d input, got ",
              input.defined() ? input.dim() : 0, " dims");
  NABLA_CHECK(output_size.size() == 1, "adaptive_max_pool1d: output_size must be one int, got ",
              output_size);
  NABLA_CHECK(input.size(-1) > 0, "adaptive_max_pool1d: expected a non-empty last dim, got ",
              input.sizes());
  auto [v, i] = adaptive_max_pool2d(input.unsqueeze(-2), {1, output_size[0]});
  return {v.squeeze(-2), i.squeeze(-2)};
}

}  // namespace nabla
