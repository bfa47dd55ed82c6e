// Resize (opsets 10-17) and Upsample (7-9): interpolation along each axis in turn.
//
// Note [Separable resize]
// Every mode ONNX defines (nearest, linear, cubic) weighs the neighbours of one axis
// independently of the others, so an N-d resize is N 1-d ones applied in turn, as ONNX's
// reference computes it. Along one axis, output position j reads n taps (1 for nearest, 2
// for linear, 4 for cubic) at indices idx_k[j] with weights w_k[j]: the result is
// sum_k index_select(x, axis, idx_k) * w_k, eager ops whose gradients reach x. The taps
// come from the position x_ori that j maps to in the input (the coordinate transformation
// mode); an x_ori that is a whole number counts as the right end of its interval (ONNX's
// rule), and indices past the ends read the edge values. tf_crop_and_resize marks the
// positions outside the input, which take `extrapolation_value`; since the weights of every
// mode sum to 1, a later axis mixes those marked values into themselves and the result is
// the same as marking them once in N dimensions.
#include "graph/onnx/importer.h"

#include <cmath>

#include "nabla/ops/factories.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

namespace {

struct ResizeSettings {
  std::string mode = "nearest";          // nearest, linear, cubic
  std::string transform = "half_pixel";  // coordinate_transformation_mode
  std::string nearest = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
};

// One axis: the taps of each output position (index, weight), and the positions outside
// the input (tf_crop_and_resize).
struct AxisPlan {
  std::vector<std::vector<int64_t>> index;  // [tap][output position]
  std::vector<std::vector<double>> weight;  // [tap][output position]
  std::vector<bool> outside;
  bool identity = true;
};

std::vector<double> tap_weights(const ResizeSettings& s, double ratio) {
  if (s.mode == "linear") return {1 - ratio, ratio};
  if (s.mode == "cubic") {
    const double a = s.cubic_a, r = ratio, q = 1 - ratio;
    return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
            ((a + 2) * r - (a + 3)) * r * r + 1, ((a + 2) * q - (a + 3)) * q * q + 1,
            ((a * (q + 1) - 5 * a) * (q + 1) + 8 * a) * (q + 1) - 4 * a};
  }
  // nearest: one of the two neighbours; a whole-number position is the right one
  bool right = true;
  if (ratio != 1.0) {
    if (s.nearest == "round_prefer_floor")
      right = ratio > 0.5;
    else if (s.nearest == "round_prefer_ceil")
      right = ratio >= 0.5;
    else
      right = s.nearest == "ceil";
  }
  return {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
}

// Where output position j of an axis of `in` inputs lies in the input.
double source_position(const ResizeSettings& s, int64_t j, int64_t in, double scale,
                       double roi_start, double roi_end) {
  const double out = scale * static_cast<double>(in), x = static_cast<double>(j);
  const double last = static_cast<double>(in - 1);
  if (s.transform == "align_corners") return out == 1 ? 0.0 : x * last / (out - 1);
  if (s.transform == "asymmetric") return x / scale;
  if (s.transform == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (s.transform == "pytorch_half_pixel") return out == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (s.transform == "tf_crop_and_resize")
    return roi_start * last + (out == 1 ? (roi_end - roi_start) * last / 2
                                        : x * (roi_end - roi_start) * last / (out - 1));
  return (x + 0.5) / scale - 0.5;  // half_pixel
}

AxisPlan plan_axis(const ResizeSettings& s, int64_t in, int64_t out, double scale, double roi_start,
                   double roi_end) {
  AxisPlan p;
  const size_t taps = s.mode == "cubic" ? 4 : 2;
  p.index.assign(taps, std::vector<int64_t>(static_cast<size_t>(out)));
  p.weight.assign(taps, std::vector<double>(static_cast<size_t>(out)));
  p.outside.assign(static_cast<size_t>(out), false);
  p.identity = in == out;
  for (int64_t j = 0; j < out; ++j) {
    const double x = source_position(s, j, in, scale, roi_start, roi_end);
    const auto at = static_cast<size_t>(j);
    if (s.transform == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(in - 1))) {
      p.outside[at] = true;
      p.identity = false;
    }
    const double ratio = x == std::floor(x) ? 1.0 : x - std::floor(x);
    const auto base = static_cast<int64_t>(std::ceil(x)) - 1;  // the left neighbour
    auto w = tap_weights(s, ratio);
    const int64_t first = base - static_cast<int64_t>(taps / 2 - 1);
    if (s.exclude_outside) {
      double sum = 0;
      for (size_t k = 0; k < taps; ++k) {
        const int64_t i = first + static_cast<int64_t>(k);
        if (i < 0 || i >= in) w[k] = 0;
        sum += w[k];
      }
      for (double& v : w) v /= sum;
    }
    for (size_t k = 0; k < taps; ++k) {
      const int64_t i = std::clamp(first + static_cast<int64_t>(k), int64_t{0}, in - 1);
      p.index[k][at] = i;
      p.weight[k][at] = w[k];
      if (w[k] != 0 && (i != j || w[k] != 1)) p.identity = false;
    }
  }
  return p;
}

Tensor resize_axis(const Tensor& x, int64_t axis, const AxisPlan& p, const ResizeSettings& s) {
  const auto out = static_cast<int64_t>(p.outside.size());
  std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
  shape[static_cast<size_t>(axis)] = out;  // a weight per position, broadcast along the rest
  auto on_device = [&](const Tensor& t) { return t.to(x.device()); };
  Tensor y;
  if (s.mode == "nearest") {  // the chosen neighbour only: any dtype, integers included
    std::vector<int64_t> chosen(static_cast<size_t>(out));
    for (size_t j = 0; j < chosen.size(); ++j)
      chosen[j] = p.weight[1][j] != 0 ? p.index[1][j] : p.index[0][j];
    y = x.index_select(axis, on_device(tensor(chosen, TensorOptions(kLong))));
  } else {
    for (size_t k = 0; k < p.index.size(); ++k) {
      const Tensor idx = on_device(tensor(p.index[k], TensorOptions(kLong)));
      const Tensor w = on_device(tensor(p.weight[k], TensorOptions(kDouble)).to(x.scalar_type()));
      const Tensor term = x.index_select(axis, idx) * w.view(shape);
      y = k == 0 ? term : y + term;
    }
  }
  if (std::find(p.outside.begin(), p.outside.end(), true) == p.outside.end()) return y;
  std::vector<int64_t> mask(p.outside.begin(), p.outside.end());
  const Tensor m = on_device(tensor(mask, TensorOptions(kLong)).to(kBool).view(shape));
  return y.masked_fill(m, s.extrapolation);
}

}  // namespace

// Resize(X, roi, scales, sizes) from opset 11, Resize(X, scales) in opset 10 and
// Upsample(X, scales) before it (scales an attribute in opset 7): Note [Separable resize].
void Importer::resize(const Node& n) {
  ResizeSettings s;
  auto str_attr = [&](const char* name, std::string& into) {
    if (const auto* a = attr(n, name)) into = a->s();
  };
  str_attr("mode", s.mode);
  if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic" && s.mode != "bilinear")
    fail(n, "mode '" + s.mode + "'");
  if (s.mode == "bilinear") s.mode = "linear";  // Upsample's name for it in opset 7
  const bool resize11 = n.op_type() == "Resize" && opset_ >= 11;
  if (resize11) {
    str_attr("coordinate_transformation_mode", s.transform);
    str_attr("nearest_mode", s.nearest);
    s.cubic_a = attr_float(n, "cubic_coeff_a", -0.75);
    s.exclude_outside = attr_int(n, "exclude_outside", 0) != 0;
    s.extrapolation = attr_float(n, "extrapolation_value", 0.0);
  } else {  // Upsample and Resize-10: input index = floor(output index / scale)
    s.transform = "asymmetric";
    s.nearest = "floor";
  }
  static const char* transforms[] = {"half_pixel",           "asymmetric",    "pytorch_half_pixel",
                                     "tf_half_pixel_for_nn", "align_corners", "tf_crop_and_resize"};
  if (std::find_if(std::begin(transforms), std::end(transforms),
                   [&](const char* t) { return s.transform == t; }) == std::end(transforms))
    fail(n, "coordinate_transformation_mode '" + s.transform + "'");
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  auto read_scales = [&](int i) {
    if (!has_input(n, i) || constant(n, i).numel() == 0) return;
    const Tensor t = constant(n, i).to(kDouble).contiguous();
    scales.assign(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
  };
  if (n.op_type() == "Upsample" && opset_ < 9) {
    if (const auto* a = attr(n, "scales")) scales.assign(a->floats().begin(), a->floats().end());
  } else {
    read_scales(resize11 ? 2 : 1);
  }
  if (resize11 && has_input(n, 3) && constant(n, 3).numel() > 0) sizes = constant_ints(n, 3);
  if (scales.empty() == sizes.empty()) fail(n, "it needs exactly one of scales and sizes");
  const size_t rank = scales.empty() ? sizes.size() : scales.size();
  std::vector<double> roi(2 * rank, 0.0);
  for (size_t d = 0; d < rank; ++d) roi[rank + d] = 1.0;
  if (s.transform == "tf_crop_and_resize" && has_input(n, 1) && constant(n, 1).numel() > 0) {
    const Tensor t = constant(n, 1).to(kDouble).contiguous();
    if (static_cast<size_t>(t.numel()) != 2 * rank) fail(n, "roi must hold 2 values per dim");
    roi.assign(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
  }
  // planned when the graph runs, for the input's shape then
  define(n, function_node(n, n.op_type(), {input(n, 0)}, [=](const std::vector<Tensor>& x) {
           NABLA_CHECK(static_cast<size_t>(x[0].dim()) == rank, "Resize: the input has ",
                       x[0].dim(), " dims, its scales or sizes ", rank);
           Tensor y = x[0];
           for (size_t d = 0; d < rank; ++d) {
             const int64_t in = x[0].size(static_cast<int64_t>(d));
             const int64_t out = sizes.empty()
                                     ? static_cast<int64_t>(scales[d] * static_cast<double>(in))
                                     : sizes[d];
             const double scale =
                 sizes.empty() ? scales[d] : static_cast<double>(out) / static_cast<double>(in);
             NABLA_CHECK(out >= 0 && scale > 0 && (in > 0 || out == 0) && out < (int64_t{1} << 31),
                         "Resize: dim ", d, " of ", in, " to ", out, " (scale ", scale, ")");
             const AxisPlan p = plan_axis(s, in, out, scale, roi[d], roi[rank + d]);
             if (!p.identity) y = resize_axis(y, static_cast<int64_t>(d), p, s);
           }
           return y;
         }));
}

}  // namespace nabla::graph::onnx_import

#endif
