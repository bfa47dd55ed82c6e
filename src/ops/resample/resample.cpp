// Padding (reflect, replicate; circular by slice copies) and upsampling (nearest,
// nearest-exact, linear): index_select along each spatial dim with indices (and weights)
// computed here, using PyTorch's source-index formulas (aten/src/ATen/native/UpSample.h).
// The values are computed without history and recorded as LibTorch's node of each op
// (ReflectionPad2DBackward0, UpsampleBilinear2DBackward0, ...), whose backward sums the
// gradient back with index_add along the same indices (differentiable: its backward
// selects again).
#include <array>
#include <cmath>
#include <vector>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/padding.h"
#include "nabla/ops/trace.h"
#include "nabla/ops/upsample.h"
#include "ops/nn/nn_registry.h"

namespace nabla {

namespace {

// The indices (made on the host) on `device`, where the tensor they select from lives.
Tensor index_tensor(const std::vector<int64_t>& v, Device device) {
  return tensor(v, kLong).view({static_cast<int64_t>(v.size())}).to(device);
}

/// The gradient of out = x.index_select(dim, index): zeros of x's size along dim with the
/// gradient's slices added at their indices.
Tensor unselect(const Tensor& grad, int64_t dim, int64_t size, const Tensor& index) {
  std::vector<int64_t> shape = grad.sizes().vec();
  shape[static_cast<size_t>(dim)] = size;
  return zeros(shape, grad.options()).index_add(dim, index, grad);
}

// ---- Padding --------------------------------------------------------------------------------

enum class PadMode : uint8_t { Reflect, Replicate };

/// ReflectionPad{1,2,3}DBackward0, ReplicationPad{1,2,3}DBackward0: the pads of the last
/// `dims` dims, (left, right) per dim from the last dim on.
struct PadState {
  DimVector input_sizes;
  std::array<int64_t, 6> pad{};
  int64_t dims = 0;
  PadMode mode = PadMode::Reflect;
};

// The source position of each of the n + left + right output positions.
std::vector<int64_t> pad_index(int64_t n, int64_t left, int64_t right, PadMode mode) {
  std::vector<int64_t> idx(static_cast<size_t>(n + left + right));
  for (int64_t o = 0; o < n + left + right; ++o) {
    int64_t i = o - left;
    switch (mode) {
      case PadMode::Reflect:
        if (i < 0) i = -i;
        if (i >= n) i = 2 * (n - 1) - i;
        break;
      case PadMode::Replicate:
        i = std::min(std::max<int64_t>(i, 0), n - 1);
        break;
    }
    idx[static_cast<size_t>(o)] = i;
  }
  return idx;
}

variable_list pad_backward(OpNode<PadState>& n, const variable_list& grads) {
  const PadState& s = n.state;
  const auto rank = static_cast<int64_t>(s.input_sizes.size());
  Tensor g = grads[0];
  for (int64_t k = s.dims - 1; k >= 0; --k) {
    const int64_t dim = rank - 1 - k, size = s.input_sizes[static_cast<size_t>(dim)];
    const auto left = s.pad[static_cast<size_t>(2 * k)],
               right = s.pad[static_cast<size_t>(2 * k + 1)];
    g = unselect(g, dim, size, index_tensor(pad_index(size, left, right, s.mode), g.device()));
  }
  return {g};
}
constexpr NodeType<PadState> kReflectionPad1d{"ReflectionPad1DBackward0", pad_backward};
constexpr NodeType<PadState> kReflectionPad2d{"ReflectionPad2DBackward0", pad_backward};
constexpr NodeType<PadState> kReflectionPad3d{"ReflectionPad3DBackward0", pad_backward};
constexpr NodeType<PadState> kReplicationPad1d{"ReplicationPad1DBackward0", pad_backward};
constexpr NodeType<PadState> kReplicationPad2d{"ReplicationPad2DBackward0", pad_backward};
constexpr NodeType<PadState> kReplicationPad3d{"ReplicationPad3DBackward0", pad_backward};

Tensor pad_last_dims(const char* op, const NodeType<PadState>& type, const Tensor& input,
                     IntArrayRef pad, PadMode mode, int64_t dims) {
  NABLA_CHECK(input.defined(), op, ": input is undefined");
  NABLA_CHECK(static_cast<int64_t>(pad.size()) == 2 * dims, op, ": expected ", 2 * dims,
              " padding values, got ", pad.size());
  NABLA_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, op, ": expected a ", dims + 1,
              "-d or ", dims + 2, "-d input, got ", input.dim(), " dims (sizes ", input.sizes(),
              ")");
  PadState state{DimVector(input.sizes().begin(), input.sizes().end()), {}, dims, mode};
  Tensor out = input.detach();
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t dim = input.dim() - 1 - k;
    const int64_t n = input.size(dim);
    const int64_t left = pad[static_cast<size_t>(2 * k)],
                  right = pad[static_cast<size_t>(2 * k + 1)];
    if (mode == PadMode::Reflect)
      NABLA_CHECK(left < n && right < n, op, ": padding (", left, ", ", right,
                  ") must be smaller than the size ", n, " of dim ", dim, " (sizes ", input.sizes(),
                  ")");
    NABLA_CHECK(n > 0 || (left <= 0 && right <= 0), op, ": cannot pad dim ", dim,
                " of size 0 (sizes ", input.sizes(), ")");
    NABLA_CHECK(n + left + right >= 0, op, ": padding (", left, ", ", right,
                ") leaves a negative size for dim ", dim);
    state.pad[static_cast<size_t>(2 * k)] = left;
    state.pad[static_cast<size_t>(2 * k + 1)] = right;
    out = out.index_select(dim, index_tensor(pad_index(n, left, right, mode), input.device()));
  }
  if (auto node = autograd::record_node(type, {&input})) {
    node->state = std::move(state);
    autograd::set_history(out, node);
  }
  return out;
}

// ---- Upsampling -----------------------------------------------------------------------------

enum class Interp : uint8_t { Nearest, NearestExact, Linear };

/// UpsampleNearest{1,2,3}DBackward0, UpsampleNearestExact{1,2}DBackward0,
/// UpsampleLinear1DBackward0, UpsampleBilinear2DBackward0, UpsampleTrilinear3DBackward0.
struct UpsampleState {
  DimVector input_sizes;
  std::array<int64_t, 3> output_size{};
  std::array<double, 3> scales{};  // per spatial dim; 0: none given
  int64_t dims = 0;
  Interp mode = Interp::Nearest;
  bool align_corners = false;
};

// The source coordinate scale of a dim (PyTorch's area_pixel_compute_scale).
double source_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners)
    return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  if (scale > 0) return 1.0 / scale;
  return static_cast<double>(in) / static_cast<double>(out);
}

std::vector<int64_t> nearest_index(int64_t in, int64_t out, double scales, bool exact) {
  // PyTorch computes nearest indices in float; the same rounding picks the same pixels.
  const auto scale = static_cast<float>(source_scale(in, out, false, scales));
  std::vector<int64_t> idx(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const float src =
        exact ? (static_cast<float>(o) + 0.5f) * scale : static_cast<float>(o) * scale;
    idx[static_cast<size_t>(o)] = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
  }
  return idx;
}

/// Linear interpolation along one dim: out[o] = in[i0[o]] (1 - w1[o]) + in[i1[o]] w1[o].
struct LinearTaps {
  Tensor i0, i1, w1;  // w1 shaped to broadcast along the dim, in the data's dtype
};
LinearTaps linear_taps(int64_t in, int64_t out, bool align_corners, double scales, int64_t dim,
                       int64_t rank, ScalarType dtype, Device device) {
  const double scale = source_scale(in, out, align_corners, scales);
  std::vector<int64_t> i0(static_cast<size_t>(out)), i1(static_cast<size_t>(out));
  std::vector<double> w1(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    double src = align_corners ? scale * static_cast<double>(o)
                               : scale * (static_cast<double>(o) + 0.5) - 0.5;
    if (src < 0) src = 0;
    const auto lo = std::min(static_cast<int64_t>(src), in - 1);
    i0[static_cast<size_t>(o)] = lo;
    i1[static_cast<size_t>(o)] = lo + (lo < in - 1 ? 1 : 0);
    w1[static_cast<size_t>(o)] = src - static_cast<double>(lo);
  }
  std::vector<int64_t> wshape(static_cast<size_t>(rank), 1);
  wshape[static_cast<size_t>(dim)] = out;
  return {index_tensor(i0, device), index_tensor(i1, device),
          tensor(w1, kDouble).to(dtype).view(wshape).to(device)};
}

variable_list upsample_backward(OpNode<UpsampleState>& n, const variable_list& grads) {
  const UpsampleState& s = n.state;
  const auto rank = static_cast<int64_t>(s.input_sizes.size());
  Tensor g = grads[0];
  for (int64_t d = s.dims - 1; d >= 0; --d) {
    const auto k = static_cast<size_t>(d);
    const int64_t dim = d + 2, in = s.input_sizes[static_cast<size_t>(dim)];
    if (s.mode == Interp::Linear) {
      LinearTaps t = linear_taps(in, s.output_size[k], s.align_corners, s.scales[k], dim, rank,
                                 g.scalar_type(), g.device());
      g = unselect(g * (1 - t.w1), dim, in, t.i0).index_add(dim, t.i1, g * t.w1);
    } else {
      g = unselect(g, dim, in,
                   index_tensor(nearest_index(in, s.output_size[k], s.scales[k],
                                              s.mode == Interp::NearestExact),
                                g.device()));
    }
  }
  return {g};
}
constexpr NodeType<UpsampleState> kNearest1d{"UpsampleNearest1DBackward0", upsample_backward};
constexpr NodeType<UpsampleState> kNearest2d{"UpsampleNearest2DBackward0", upsample_backward};
constexpr NodeType<UpsampleState> kNearest3d{"UpsampleNearest3DBackward0", upsample_backward};
constexpr NodeType<UpsampleState> kNearestExact1d{"UpsampleNearestExact1DBackward0",
                                                  upsample_backward};
constexpr NodeType<UpsampleState> kNearestExact2d{"UpsampleNearestExact2DBackward0",
                                                  upsample_backward};
constexpr NodeType<UpsampleState> kLinear1d{"UpsampleLinear1DBackward0", upsample_backward};
constexpr NodeType<UpsampleState> kBilinear2d{"UpsampleBilinear2DBackward0", upsample_backward};
constexpr NodeType<UpsampleState> kTrilinear3d{"UpsampleTrilinear3DBackward0", upsample_backward};

void check_upsample(const char* op, const Tensor& input, IntArrayRef output_size, int64_t dims) {
  NABLA_CHECK(input.defined(), op, ": input is undefined");
  NABLA_CHECK(input.dim() == dims + 2, op, ": expected a ", dims + 2,
              "-d input (N, C, spatial...), got ", input.dim(), " dims (sizes ", input.sizes(),
              ")");
  NABLA_CHECK(static_cast<int64_t>(output_size.size()) == dims, op, ": output_size must have ",
              dims, " elements, got ", output_size.size());
  for (int64_t d = 0; d < dims; ++d) {
    NABLA_CHECK(input.size(d + 2) > 0 && output_size[static_cast<size_t>(d)] > 0, op,
                ": input and output sizes should be greater than 0, got input ", input.sizes(),
                " and output ", output_size);
  }
}

Tensor upsample(const char* op, const NodeType<UpsampleState>& type, const Tensor& input,
                IntArrayRef output_size, Interp mode, bool align_corners,
                std::initializer_list<optional<double>> scales) {
  const auto dims = static_cast<int64_t>(scales.size());
  check_upsample(op, input, output_size, dims);
  if (mode == Interp::Linear)
    NABLA_CHECK(input.is_floating_point(), op, ": input must be floating, got ",
                input.scalar_type());
  UpsampleState state{
      DimVector(input.sizes().begin(), input.sizes().end()), {}, {}, dims, mode, align_corners};
  Tensor out = input.detach();
  for (int64_t d = 0; d < dims; ++d) {
    const auto k = static_cast<size_t>(d);
    const int64_t dim = d + 2, in = input.size(dim), o_n = output_size[k];
    const optional<double>& given = *(scales.begin() + d);
    state.output_size[k] = o_n;
    state.scales[k] = given ? *given : 0.0;
    if (mode == Interp::Linear) {
      LinearTaps t = linear_taps(in, o_n, align_corners, state.scales[k], dim, input.dim(),
                                 input.scalar_type(), input.device());
      out = out.index_select(dim, t.i0) * (1 - t.w1) + out.index_select(dim, t.i1) * t.w1;
    } else {
      out = out.index_select(
          dim, index_tensor(nearest_index(in, o_n, state.scales[k], mode == Interp::NearestExact),
                            input.device()));
    }
  }
  if (auto node = autograd::record_node(type, {&input})) {
    node->state = std::move(state);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

Tensor ops::reflection_pad1d_impl(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("reflection_pad1d", kReflectionPad1d, input, pad, PadMode::Reflect, 1);
}
Tensor ops::reflection_pad2d_impl(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("reflection_pad2d", kReflectionPad2d, input, pad, PadMode::Reflect, 2);
}
Tensor ops::reflection_pad3d_impl(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("reflection_pad3d", kReflectionPad3d, input, pad, PadMode::Reflect, 3);
}
Tensor ops::replication_pad1d_impl(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("replication_pad1d", kReplicationPad1d, input, pad, PadMode::Replicate, 1);
}
Tensor ops::replication_pad2d_impl(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("replication_pad2d", kReplicationPad2d, input, pad, PadMode::Replicate, 2);
}
Tensor ops::replication_pad3d_impl(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("replication_pad3d", kReplicationPad3d, input, pad, PadMode::Replicate, 3);
}
// As LibTorch's _pad_circular: the input (cropped where a pad is negative) is copied into
// the middle of a new tensor, then each padded dim's borders are copied from the opposite
// side of that tensor, the last dim first (later dims copy whole slabs, so corners come
// right). Its history is therefore the copies' CopySlices node, as LibTorch's.
Tensor ops::circular_pad_impl(const Tensor& input, IntArrayRef pad) {
  NABLA_CHECK(pad.size() % 2 == 0 && !pad.empty(),
              "circular_pad: expected pairs of padding values, got ", pad.size());
  const auto dims = static_cast<int64_t>(pad.size() / 2);
  NABLA_CHECK(input.defined() && input.dim() >= dims, "circular_pad: ", dims,
              " padded dims need an input of at least ", dims, " dims");
  // Any leading dims; the padded ones are the last, (left, right) per dim from the last on.
  auto dim_of = [&](int64_t k) { return input.dim() - 1 - k; };
  auto left = [&](int64_t k) { return pad[static_cast<size_t>(2 * k)]; };
  auto right = [&](int64_t k) { return pad[static_cast<size_t>(2 * k + 1)]; };
  std::vector<int64_t> shape = input.sizes().vec();
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t n = input.size(dim_of(k));
    NABLA_CHECK(n > 0 && left(k) <= n && right(k) <= n && left(k) >= -n && right(k) >= -n,
                "circular_pad: padding (", left(k), ", ", right(k), ") must be at most the size ",
                n, " of dim ", dim_of(k));
    shape[static_cast<size_t>(dim_of(k))] += left(k) + right(k);
    NABLA_CHECK(shape[static_cast<size_t>(dim_of(k))] >= 1, "circular_pad: padding (", left(k),
                ", ", right(k), ") leaves no element of dim ", dim_of(k));
  }
  Tensor out = empty(shape, input.options());
  Tensor middle = out, src = input;
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t d = dim_of(k);
    middle = middle.slice(d, std::max<int64_t>(left(k), 0),
                          out.size(d) - std::max<int64_t>(right(k), 0));
    src = src.slice(d, std::max<int64_t>(-left(k), 0),
                    input.size(d) - std::max<int64_t>(-right(k), 0));
  }
  middle.copy_(src);
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t d = dim_of(k), size = out.size(d);
    const int64_t l = std::max<int64_t>(left(k), 0), r = std::max<int64_t>(right(k), 0);
    if (l > 0) out.slice(d, 0, l).copy_(out.slice(d, size - l - r, size - r));
    if (r > 0) out.slice(d, size - r, size).copy_(out.slice(d, l, l + r));
  }
  return out;
}

Tensor ops::upsample_nearest1d_impl(const Tensor& input, IntArrayRef output_size,
                                    optional<double> scales) {
  return upsample("upsample_nearest1d", kNearest1d, input, output_size, Interp::Nearest, false,
                  {scales});
}
Tensor ops::upsample_nearest2d_impl(const Tensor& input, IntArrayRef output_size,
                                    optional<double> scales_h, optional<double> scales_w) {
  return upsample("upsample_nearest2d", kNearest2d, input, output_size, Interp::Nearest, false,
                  {scales_h, scales_w});
}
Tensor ops::upsample_nearest3d_impl(const Tensor& input, IntArrayRef output_size,
                                    optional<double> scales_d, optional<double> scales_h,
                                    optional<double> scales_w) {
  return upsample("upsample_nearest3d", kNearest3d, input, output_size, Interp::Nearest, false,
                  {scales_d, scales_h, scales_w});
}
Tensor ops::_upsample_nearest_exact1d_impl(const Tensor& input, IntArrayRef output_size,
                                           optional<double> scales) {
  return upsample("_upsample_nearest_exact1d", kNearestExact1d, input, output_size,
                  Interp::NearestExact, false, {scales});
}
Tensor ops::_upsample_nearest_exact2d_impl(const Tensor& input, IntArrayRef output_size,
                                           optional<double> scales_h, optional<double> scales_w) {
  return upsample("_upsample_nearest_exact2d", kNearestExact2d, input, output_size,
                  Interp::NearestExact, false, {scales_h, scales_w});
}
Tensor ops::upsample_linear1d_impl(const Tensor& input, IntArrayRef output_size, bool align_corners,
                                   optional<double> scales) {
  return upsample("upsample_linear1d", kLinear1d, input, output_size, Interp::Linear, align_corners,
                  {scales});
}
Tensor ops::upsample_bilinear2d_impl(const Tensor& input, IntArrayRef output_size,
                                     bool align_corners, optional<double> scales_h,
                                     optional<double> scales_w) {
  return upsample("upsample_bilinear2d", kBilinear2d, input, output_size, Interp::Linear,
                  align_corners, {scales_h, scales_w});
}
Tensor ops::upsample_trilinear3d_impl(const Tensor& input, IntArrayRef output_size,
                                      bool align_corners, optional<double> scales_d,
                                      optional<double> scales_h, optional<double> scales_w) {
  return upsample("upsample_trilinear3d", kTrilinear3d, input, output_size, Interp::Linear,
                  align_corners, {scales_d, scales_h, scales_w});
}

}  // namespace nabla
