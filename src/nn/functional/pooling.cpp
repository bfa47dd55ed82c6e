// F:: adaptive, 3-d, unpooling, fractional and power-average pooling: options unpacked
// onto the free functions (nabla/ops/pooling.h), with LibTorch's defaults resolved here:
// an absent adaptive output entry keeps the input's size, unpooling's default output
// size, fractional pooling's output ratio and random samples.
#include <cmath>

#include "nabla/nn/functional/pooling.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

namespace nabla::nn::functional {

namespace {

// LibTorch's _list_with_default: each absent entry is the input's size in that dim (the
// last D dims).
template <size_t D>
std::vector<int64_t> with_default(const char* op, const ExpandingArrayWithOptionalElem<D>& size,
                                  const Tensor& input) {
  NABLA_CHECK(input.defined() && input.dim() >= static_cast<int64_t>(D), op,
              ": input dimension should be at least ", D + 1, ", got ",
              input.defined() ? input.dim() : 0);
  std::vector<int64_t> out;
  for (size_t i = 0; i < D; ++i)
    out.push_back(size[i].has_value() ? *size[i]
                                      : input.size(input.dim() - static_cast<int64_t>(D - i)));
  return out;
}

// LibTorch's _unpool_output_size over input's last D dims: by default
// (in - 1) * stride + kernel - 2 * padding per dim; a given size (D values, or D + 2 with
// the batch and channel dims first) must lie within default +- stride.
template <size_t D>
std::vector<int64_t> unpool_size(const char* op, const Tensor& input,
                                 const MaxUnpoolFuncOptions<D>& o) {
  const int64_t dims = static_cast<int64_t>(D);
  NABLA_CHECK(input.defined() && input.dim() >= dims + 1, op, ": expected a ", dims + 1, "-d or ",
              dims + 2, "-d input, got ", input.defined() ? input.dim() : 0, " dims");
  std::vector<int64_t> dflt;
  for (size_t d = 0; d < D; ++d)
    dflt.push_back((input.size(input.dim() - dims + static_cast<int64_t>(d)) - 1) * o.stride()[d] +
                   o.kernel_size()[d] - 2 * o.padding()[d]);
  if (!o.output_size()) return dflt;
  std::vector<int64_t> size = *o.output_size();
  if (size.size() == D + 2) size.erase(size.begin(), size.begin() + 2);
  NABLA_CHECK(size.size() == D, op, ": output_size should be a sequence containing ", D, " or ",
              D + 2, " elements, but it has a length of '", o.output_size()->size(), "'");
  for (size_t d = 0; d < D; ++d) {
    const int64_t lo = dflt[d] - o.stride()[d], hi = dflt[d] + o.stride()[d];
    NABLA_CHECK(lo <= size[d] && size[d] <= hi, op, ": invalid output_size ", IntArrayRef(size),
                " (dim ", d, " must be between ", lo, " and ", hi, ")");
  }
  return size;
}

// The output size (given, or output_ratio times the input's last D sizes) and the random
// samples (given, or drawn as LibTorch: rand [N, C, D] of the input's dtype and device).
template <size_t D>
std::tuple<std::vector<int64_t>, Tensor> fractional_args(const char* op, const Tensor& input,
                                                         const FractionalMaxPoolOptions<D>& o) {
  const int64_t dims = static_cast<int64_t>(D);
  NABLA_CHECK(input.defined() && (input.dim() == dims + 1 || input.dim() == dims + 2), op,
              ": expected a ", dims + 1, "-d or ", dims + 2, "-d (batch mode) input, got ",
              input.defined() ? input.dim() : 0, " dims");
  NABLA_CHECK(o.output_size() || o.output_ratio(), op,
              " requires specifying either an output_size or an output_ratio");
  std::vector<int64_t> size;
  if (o.output_size()) {
    size = o.output_size()->vec();
  } else {
    for (size_t d = 0; d < D; ++d) {
      const double ratio = (*o.output_ratio())[d];
      NABLA_CHECK(ratio > 0 && ratio < 1, op, ": output_ratio must be between 0 and 1, got ",
                  ratio);
      size.push_back(static_cast<int64_t>(
          static_cast<double>(input.size(input.dim() - dims + static_cast<int64_t>(d))) * ratio));
    }
  }
  Tensor samples = o._random_samples();
  if (!samples.defined()) {
    const int64_t batch = input.dim() == dims + 1 ? 1 : input.size(0);
    samples = nabla::rand({batch, input.size(-dims - 1), dims},
                          TensorOptions().dtype(input.scalar_type()).device(input.device()));
  }
  return {size, samples};
}

// (sign(s) relu(|s|) * window)^(1/p): s is the window averages of x^p, negative only by
// rounding or for odd p; relu keeps the root real.
Tensor lp_finish(const Tensor& averages, int64_t window, double norm_type) {
  return (nabla::sign(averages) * nabla::relu(nabla::abs(averages)))
      .mul(window)
      .pow(1.0 / norm_type);
}

}  // namespace

Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return nabla::max_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                           o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& o) {
  return nabla::max_pool1d_with_indices(input, o.kernel_size(), o.stride(), o.padding(),
                                        o.dilation(), o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                   const MaxPool3dFuncOptions& o) {
  return nabla::max_pool3d_with_indices(input, o.kernel_size(), o.stride(), o.padding(),
                                        o.dilation(), o.ceil_mode());
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) {
  return nabla::avg_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(),
                           o.count_include_pad(), o.divisor_override());
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& o) {
  return nabla::adaptive_avg_pool1d(input, o.output_size());
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& o) {
  return nabla::adaptive_avg_pool2d(input,
                                    with_default("adaptive_avg_pool2d", o.output_size(), input));
}

Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& o) {
  return nabla::adaptive_avg_pool3d(input,
                                    with_default("adaptive_avg_pool3d", o.output_size(), input));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& o) {
  return nabla::adaptive_max_pool1d(input, o.output_size());
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& o) {
  return nabla::adaptive_max_pool2d(input,
                                    with_default("adaptive_max_pool2d", o.output_size(), input));
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& o) {
  return nabla::adaptive_max_pool3d(input,
                                    with_default("adaptive_max_pool3d", o.output_size(), input));
}

Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, o));
}

Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, o));
}

Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool3d_with_indices(input, o));
}

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& o) {
  const auto size = unpool_size("max_unpool1d", input, o);
  NABLA_CHECK(indices.defined(), "max_unpool1d: expected defined indices");
  // A 1-d plane is an L x 1 plane: its flat positions are the same.
  return nabla::max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), {size[0], 1}).squeeze(-1);
}

Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& o) {
  return nabla::max_unpool2d(input, indices, unpool_size("max_unpool2d", input, o));
}

Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& o) {
  return nabla::max_unpool3d(input, indices, unpool_size("max_unpool3d", input, o), o.stride(),
                             o.padding());
}

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const FractionalMaxPool2dFuncOptions& o) {
  auto [size, samples] = fractional_args("fractional_max_pool2d", input, o);
  return nabla::fractional_max_pool2d(input, o.kernel_size(), size, samples);
}

std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const FractionalMaxPool3dFuncOptions& o) {
  auto [size, samples] = fractional_args("fractional_max_pool3d", input, o);
  return nabla::fractional_max_pool3d(input, o.kernel_size(), size, samples);
}

Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& o) {
  return std::get<0>(fractional_max_pool2d_with_indices(input, o));
}

Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& o) {
  return std::get<0>(fractional_max_pool3d_with_indices(input, o));
}

Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& o) {
  NABLA_CHECK(input.defined(), "lp_pool1d: expected a defined input");
  Tensor averages = nabla::avg_pool1d(input.pow(o.norm_type()), o.kernel_size(), o.stride(), 0,
                                      o.ceil_mode(), true);
  return lp_finish(averages, o.kernel_size()[0], o.norm_type());
}

Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& o) {
  NABLA_CHECK(input.defined(), "lp_pool2d: expected a defined input");
  Tensor averages = nabla::avg_pool2d(input.pow(o.norm_type()), o.kernel_size(), o.stride(), 0,
                                      o.ceil_mode(), true, nullopt);
  return lp_finish(averages, o.kernel_size()[0] * o.kernel_size()[1], o.norm_type());
}

}  // namespace nabla::nn::functional
