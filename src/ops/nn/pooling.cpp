// Pooling over im2col windows (see nabla/ops/pooling.h): each (batch, channel) plane is
// padded (with -inf for max, 0 for average) to exactly the extent the windows cover, cut
// into windows by im2col, and reduced over the window dimension.
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/formula.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/backend/backend.h"
#include "nabla/ops/convolution.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/pooling.h"

namespace nabla {

namespace {

using autograd::FormulaNode;
using autograd::variable_list;

struct Pool2d {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
  int64_t oh, ow;
};

std::vector<int64_t> two(const char* op, const char* what, IntArrayRef v,
                         IntArrayRef fallback = {}) {
  if (v.empty()) v = fallback;
  NABLA_CHECK(v.size() == 1 || v.size() == 2, op, ": ", what,
              " must be a single int or a pair, got ", v.size(), " values");
  return v.size() == 2 ? std::vector<int64_t>{v[0], v[1]} : std::vector<int64_t>{v[0], v[0]};
}

// PyTorch's pooling_output_shape.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode) {
  const int64_t numerator = in + 2 * pad - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (numerator >= 0 ? numerator / s : -((-numerator + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + pad) --out;
  return out;
}

Pool2d pool_geometry(const char* op, const Tensor& x, IntArrayRef kernel, IntArrayRef stride,
                     IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, bool max_pool) {
  auto k = two(op, "kernel_size", kernel), s = two(op, "stride", stride, kernel),
       p = two(op, "padding", padding), d = two(op, "dilation", dilation);
  NABLA_CHECK(k[0] > 0 && k[1] > 0, op, ": kernel_size must be greater than zero, got ", kernel);
  NABLA_CHECK(s[0] > 0 && s[1] > 0, op, ": stride must be greater than zero, got ", stride);
  NABLA_CHECK(d[0] > 0 && d[1] > 0, op, ": dilation must be greater than zero, got ", dilation);
  for (int i = 0; i < 2; ++i) {
    const int64_t limit = max_pool ? ((k[i] - 1) * d[i] + 1) / 2 : k[i] / 2;
    NABLA_CHECK(p[i] >= 0 && p[i] <= limit, op, ": pad should be at most half of ",
                max_pool ? "effective " : "", "kernel size, but got pad=", p[i],
                " and kernel_size=", k[i]);
  }
  Pool2d g{k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], 0, 0};
  const int64_t h = x.size(-2), w = x.size(-1);
  g.oh = pooled_size(h, k[0], p[0], s[0], d[0], ceil_mode);
  g.ow = pooled_size(w, k[1], p[1], s[1], d[1], ceil_mode);
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

// [planes, K, L] windows of `x` ([..., H, W]) padded with `fill` to the windows' extent.
Tensor windows(const Tensor& x, const Pool2d& g, double fill) {
  const int64_t h = x.size(-2), w = x.size(-1);
  const int64_t need_h = (g.oh - 1) * g.sh + g.dh * (g.kh - 1) + 1;
  const int64_t need_w = (g.ow - 1) * g.sw + g.dw * (g.kw - 1) + 1;
  Tensor planes = x.reshape({-1, 1, h, w});
  if (g.ph || g.pw || need_h != h || need_w != w)
    planes = constant_pad_nd(planes, {g.pw, need_w - w - g.pw, g.ph, need_h - h - g.ph}, fill);
  return im2col(planes, {g.kh, g.kw}, {g.dh, g.dw}, {0, 0}, {g.sh, g.sw});
}

std::vector<int64_t> out_shape(const Tensor& x, int64_t oh, int64_t ow) {
  std::vector<int64_t> s(x.sizes().begin(), x.sizes().end() - 2);
  s.push_back(oh);
  s.push_back(ow);
  return s;
}

// MaxPool2DWithIndicesBackward0: each output's gradient goes to its window's arg-max.
// Saved: [0] the indices [..., oh, ow]; shape0 = the input's sizes [..., h, w]. Without
// create_graph one kernel (KernelBackend::max_pool2d_backward); with it, the same
// scatter as differentiable ops (whose backward gathers), for higher derivatives.
variable_list max_pool_bw(FormulaNode& n, const variable_list& g) {
  const Tensor idx = n.saved(0);
  const IntArrayRef in_shape(n.shape0.data(), n.shape0.size());
  if (!GradMode::is_enabled()) {
    Tensor gi = empty(in_shape, g[0].options());
    backend_for(gi.device()).max_pool2d_backward(gi, g[0].contiguous(), idx.contiguous());
    return {gi};
  }
  std::vector<int64_t> flat(in_shape.begin(), in_shape.end() - 2), flat_out = flat;
  flat.push_back(in_shape[in_shape.size() - 2] * in_shape.back());
  flat_out.push_back(-1);
  const int64_t last = static_cast<int64_t>(flat.size()) - 1;
  return {zeros(flat, g[0].options())
              .scatter_add(last, idx.reshape(flat_out), g[0].reshape(flat_out))
              .view(in_shape)};
}
const autograd::Formula kMaxPool{"MaxPool2DWithIndicesBackward0", max_pool_bw};

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool2d";
  check_input(op, input);
  NABLA_CHECK(input.scalar_type() != kBool && input.scalar_type() != kInt, op,
              ": unsupported dtype ", input.scalar_type());
  const Pool2d g =
      pool_geometry(op, input, kernel_size, stride, padding, dilation, ceil_mode, true);
  const int64_t h = input.size(-2), w = input.size(-1);
  Tensor x = input.reshape({-1, 1, h, w}).contiguous();
  const auto shape = out_shape(input, g.oh, g.ow);
  // The kernel writes the maxima into [..., oh * ow] buffers viewed as [..., oh, ow].
  std::vector<int64_t> flat_out(shape.begin(), shape.end() - 2);
  flat_out.push_back(g.oh * g.ow);
  Tensor values = empty(flat_out, TensorOptions(input.scalar_type()));
  Tensor indices = empty(flat_out, TensorOptions(kLong));
  if (values.numel() > 0)
    backend_for(x).max_pool2d(
        values.view(shape), indices.view(shape), x.detach(),
        WindowGeometry{h, w, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.oh, g.ow});
  Tensor out = values.view(shape), idx = indices.view(shape);
  if (autograd::any_requires_grad(input)) {
    auto node = autograd::make_node(kMaxPool, {&input});
    node->shape0 = DimVector(input.sizes().begin(), input.sizes().end());
    node->save(idx);
    autograd::set_history(out, node);
  }
  return {out, idx};
}

Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(
      max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
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

Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d";
  check_input(op, input);
  NABLA_CHECK(input.is_floating_point(), op, ": input must be floating, got ", input.scalar_type());
  NABLA_CHECK(!divisor_override || *divisor_override != 0, op, ": divisor must be not zero");
  const Pool2d g = pool_geometry(op, input, kernel_size, stride, padding, {1}, ceil_mode, false);
  Tensor sums = windows(input, g, 0).sum(1);  // [P, L]
  const int64_t h = input.size(-2), w = input.size(-1);
  std::vector<double> divisor;
  divisor.reserve(static_cast<size_t>(g.oh * g.ow));
  for (int64_t y = 0; y < g.oh; ++y)
    for (int64_t x = 0; x < g.ow; ++x) {
      int64_t hs = y * g.sh - g.ph, ws = x * g.sw - g.pw;
      int64_t he = std::min(hs + g.kh, h + g.ph), we = std::min(ws + g.kw, w + g.pw);
      const int64_t pool = (he - hs) * (we - ws);
      hs = std::max<int64_t>(hs, 0);
      ws = std::max<int64_t>(ws, 0);
      he = std::min(he, h);
      we = std::min(we, w);
      divisor.push_back(divisor_override    ? static_cast<double>(*divisor_override)
                        : count_include_pad ? static_cast<double>(pool)
                                            : static_cast<double>((he - hs) * (we - ws)));
    }
  Tensor div = tensor(divisor, kDouble).to(input.scalar_type());
  return (sums / div).view(out_shape(input, g.oh, g.ow));
}

Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
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

namespace {

// Row i averages input positions [floor(i n / out), ceil((i + 1) n / out)).
Tensor averaging_matrix(int64_t out, int64_t n, ScalarType dtype) {
  std::vector<double> m(static_cast<size_t>(out * n), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = (i * n) / out, end = ((i + 1) * n + out - 1) / out;
    for (int64_t j = start; j < end; ++j)
      m[static_cast<size_t>(i * n + j)] = 1.0 / static_cast<double>(end - start);
  }
  return tensor(m, kDouble).view({out, n}).to(dtype);
}

std::vector<int64_t> adaptive_size(const char* op, const Tensor& input, IntArrayRef output_size) {
  check_input(op, input);
  NABLA_CHECK(output_size.size() == 2 || output_size.size() == 1, op,
              ": output_size must have 2 elements, got ", output_size.size());
  auto o = output_size.size() == 2 ? std::vector<int64_t>{output_size[0], output_size[1]}
                                   : std::vector<int64_t>{output_size[0], output_size[0]};
  NABLA_CHECK(o[0] > 0 && o[1] > 0, op, ": output_size must be positive, got ", output_size);
  return o;
}

}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  const auto o = adaptive_size("adaptive_avg_pool2d", input, output_size);
  NABLA_CHECK(input.is_floating_point(), "adaptive_avg_pool2d: input must be floating, got ",
              input.scalar_type());
  Tensor rows = averaging_matrix(o[0], input.size(-2), input.scalar_type());
  Tensor cols = averaging_matrix(o[1], input.size(-1), input.scalar_type());
  return matmul(matmul(rows, input), cols.t());
}

Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size) {
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
              "adaptive_avg_pool1d: expected 2-d or 3-d ", "input, got ",
              input.defined() ? input.dim() : 0, " dims");
  NABLA_CHECK(output_size.size() == 1 && output_size[0] > 0,
              "adaptive_avg_pool1d: output_size must be one positive int");
  NABLA_CHECK(input.size(-1) > 0, "adaptive_avg_pool1d: empty input");
  return matmul(input, averaging_matrix(output_size[0], input.size(-1), input.scalar_type()).t());
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size) {
  const auto o = adaptive_size("adaptive_max_pool2d", input, output_size);
  const int64_t h = input.size(-2), w = input.size(-1);
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
  auto shape = out_shape(input, o[0], o[1]);
  return {stack(values, -1).view(shape), stack(indices, -1).view(shape)};
}

}  // namespace nabla
