// F::pad, F::interpolate, F::pixel_shuffle, F::affine_grid, F::grid_sample.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "nabla/core/warning.h"
#include "nabla/nn/functional/padding.h"
#include "nabla/nn/functional/vision.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/pooling.h"

namespace nabla::nn::functional {

Tensor pad(const Tensor& input, const PadFuncOptions& o) {
  const auto& p = o.pad();
  NABLA_CHECK(p.size() % 2 == 0, "pad: padding length must be divisible by 2, got ", p.size());
  NABLA_CHECK(input.defined() && static_cast<int64_t>(p.size() / 2) <= input.dim(),
              "pad: padding length ", p.size(), " is too large for an input of ",
              input.defined() ? input.dim() : 0, " dims");
  if (std::holds_alternative<enumtype::kConstant>(o.mode()))
    return constant_pad_nd(input, p, o.value());
  if (std::holds_alternative<enumtype::kCircular>(o.mode())) return circular_pad(input, p);
  const size_t dims = p.size() / 2;
  const bool reflect = std::holds_alternative<enumtype::kReflect>(o.mode());
  NABLA_CHECK(dims >= 1 && dims <= 3u, "pad: ", reflect ? "reflect" : "replicate",
              " padding supports 1 to 3 padded dims, got ", dims);
  if (reflect)
    return dims == 1   ? reflection_pad1d(input, p)
           : dims == 2 ? reflection_pad2d(input, p)
                       : reflection_pad3d(input, p);
  return dims == 1   ? replication_pad1d(input, p)
         : dims == 2 ? replication_pad2d(input, p)
                     : replication_pad3d(input, p);
}

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& o) {
  const char* mode_name = std::visit([](const auto& m) { return m.name(); }, o.mode());
  NABLA_CHECK(input.defined() && input.dim() >= 3 && input.dim() <= 5,
              "Input Error: Only 3D, 4D and 5D input Tensors supported (got ",
              input.defined() ? input.dim() : 0,
              "D) for the modes: nearest | linear | bilinear | bicubic | trilinear (got ",
              mode_name, ")");
  const int64_t spatial = input.dim() - 2;
  // LibTorch 1.13 lets kNearestExact take (and ignore) align_corners.
  const bool nearest_mode = std::holds_alternative<enumtype::kNearest>(o.mode()) ||
                            std::holds_alternative<enumtype::kArea>(o.mode());
  NABLA_CHECK(!(nearest_mode && o.align_corners().has_value()),
              "interpolate: align_corners option can only be set with the interpolating modes: "
              "linear | bilinear | "
              "bicubic | trilinear");
  const bool aa_mode = std::holds_alternative<enumtype::kBilinear>(o.mode()) ||
                       std::holds_alternative<enumtype::kBicubic>(o.mode());
  NABLA_CHECK(!o.antialias() || (spatial == 2 && aa_mode),
              "interpolate: Anti-alias option is only supported for bilinear and bicubic modes");
  NABLA_CHECK(o.size().has_value() != o.scale_factor().has_value(),
              o.size() ? "interpolate: only one of size or scale_factor should be defined"
                       : "interpolate: either size or scale_factor should be defined");
  std::vector<int64_t> out_size;
  std::vector<optional<double>> scales(static_cast<size_t>(spatial));
  if (o.size()) {
    NABLA_CHECK(static_cast<int64_t>(o.size()->size()) == spatial,
                "interpolate: size shape must match input shape. ", "Input is ", spatial,
                "D, size is ", IntArrayRef(*o.size()));
    out_size = *o.size();
  } else {
    const auto& sf = *o.scale_factor();
    std::ostringstream listed;
    for (size_t i = 0; i < sf.size(); ++i) listed << (i ? ", " : "[") << sf[i];
    listed << "]";
    NABLA_CHECK(static_cast<int64_t>(sf.size()) == spatial,
                "interpolate: scale_factor shape must match input shape. ", "Input is ", spatial,
                "D, scale_factor size is ", listed.str());
    for (int64_t d = 0; d < spatial; ++d) {
      out_size.push_back(static_cast<int64_t>(
          std::floor(static_cast<double>(input.size(d + 2)) * sf[static_cast<size_t>(d)])));
      if (!o.recompute_scale_factor().value_or(false))
        scales[static_cast<size_t>(d)] = sf[static_cast<size_t>(d)];
    }
  }
  const bool align = o.align_corners().value_or(false);
  auto needs = [&](int64_t dims, const char* mode) {
    NABLA_CHECK(spatial == dims, "interpolate: got ", input.dim(), "D input, but ", mode,
                " mode needs ", dims + 2, "D input");
  };
  return std::visit(
      [&](const auto& mode) -> Tensor {
        using M = std::decay_t<decltype(mode)>;
        if constexpr (std::is_same_v<M, enumtype::kNearest> ||
                      std::is_same_v<M, enumtype::kNearestExact>) {
          constexpr bool exact = std::is_same_v<M, enumtype::kNearestExact>;
          if (spatial == 1)
            return exact ? _upsample_nearest_exact1d(input, out_size, scales[0])
                         : upsample_nearest1d(input, out_size, scales[0]);
          if (spatial == 2)
            return exact ? _upsample_nearest_exact2d(input, out_size, scales[0], scales[1])
                         : upsample_nearest2d(input, out_size, scales[0], scales[1]);
          NABLA_CHECK(!exact, "interpolate: nearest-exact supports 1 or 2 spatial dims, got ",
                      spatial);
          return upsample_nearest3d(input, out_size, scales[0], scales[1], scales[2]);
        } else if constexpr (std::is_same_v<M, enumtype::kLinear>) {
          needs(1, "linear");
          return upsample_linear1d(input, out_size, align, scales[0]);
        } else if constexpr (std::is_same_v<M, enumtype::kBilinear>) {
          needs(2, "bilinear");
          return o.antialias()
                     ? _upsample_bilinear2d_aa(input, out_size, align, scales[0], scales[1])
                     : upsample_bilinear2d(input, out_size, align, scales[0], scales[1]);
        } else if constexpr (std::is_same_v<M, enumtype::kBicubic>) {
          needs(2, "bicubic");
          return o.antialias()
                     ? _upsample_bicubic2d_aa(input, out_size, align, scales[0], scales[1])
                     : upsample_bicubic2d(input, out_size, align, scales[0], scales[1]);
        } else if constexpr (std::is_same_v<M, enumtype::kTrilinear>) {
          needs(3, "trilinear");
          return upsample_trilinear3d(input, out_size, align, scales[0], scales[1], scales[2]);
        } else {
          static_assert(std::is_same_v<M, enumtype::kArea>);
          return spatial == 1   ? adaptive_avg_pool1d(input, out_size)
                 : spatial == 2 ? adaptive_avg_pool2d(input, out_size)
                                : adaptive_avg_pool3d(input, out_size);
        }
      },
      o.mode());
}

namespace {
// A dtype as LibTorch prints theta.dtype() (a caffe2::TypeMeta: the C++ type's name).
const char* type_meta_name(ScalarType t) {
  switch (t) {
    case kBool:
      return "bool";
    case kByte:
      return "unsigned char";
    case kChar:
      return "signed char";
    case kShort:
      return "short int";
    case kInt:
      return "int";
    case kLong:
      return "long int";
    case kHalf:
      return "c10::Half";
    case kBFloat16:
      return "c10::BFloat16";
    case kFloat:
      return "float";
    case kDouble:
      return "double";
    default:
      return "unknown";
  }
}
}  // namespace

Tensor affine_grid(const Tensor& theta, const IntArrayRef& size, bool align_corners) {
  NABLA_CHECK(theta.defined(), "affine_grid: theta is undefined");
  NABLA_CHECK(theta.is_floating_point(), "Expected theta to have floating point type, but got ",
              type_meta_name(theta.scalar_type()));
  if (size.size() == 4) {
    NABLA_CHECK(theta.dim() == 3 && theta.size(-2) == 2 && theta.size(-1) == 3,
                "Expected a batch of 2D affine matrices of shape Nx2x3 for size ", size, ". Got ",
                theta.sizes(), ".");
  } else if (size.size() == 5) {
    NABLA_CHECK(theta.dim() == 3 && theta.size(-2) == 3 && theta.size(-1) == 4,
                "Expected a batch of 3D affine matrices of shape Nx3x4 for size ", size, ". Got ",
                theta.sizes(), ".");
  } else {
    NABLA_CHECK(false,
                "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                "respectively. Got size ",
                size);
  }
  NABLA_CHECK(*std::min_element(size.begin(), size.end()) > 0,
              "Expected non-zero, positive output size. Got ", size);
  return affine_grid_generator(theta, size, align_corners);
}

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& o) {
  const int64_t mode = std::holds_alternative<enumtype::kBilinear>(o.mode())  ? 0
                       : std::holds_alternative<enumtype::kNearest>(o.mode()) ? 1
                                                                              : 2;
  const int64_t padding = std::holds_alternative<enumtype::kZeros>(o.padding_mode())    ? 0
                          : std::holds_alternative<enumtype::kBorder>(o.padding_mode()) ? 1
                                                                                        : 2;
  if (!o.align_corners())
    NABLA_WARN(
        "Default grid_sample and affine_grid behavior has changed to align_corners=False "
        "since 1.3.0. Please specify align_corners=True if the old behavior is desired.");
  return grid_sampler(input, grid, mode, padding, o.align_corners().value_or(false));
}

Tensor pixel_shuffle(const Tensor& input, int64_t r) {
  NABLA_CHECK(input.defined() && input.dim() >= 3, "pixel_shuffle: expected at least 3 dims, got ",
              input.defined() ? input.dim() : 0);
  NABLA_CHECK(r > 0, "pixel_shuffle: upscale_factor must be positive, got ", r);
  const int64_t d = input.dim();
  const int64_t c = input.size(d - 3), h = input.size(d - 2), w = input.size(d - 1);
  NABLA_CHECK(c % (r * r) == 0, "pixel_shuffle: channels (", c,
              ") must be divisible by upscale_factor^2 (", r * r, ")");
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - 3);
  std::vector<int64_t> s = lead;
  s.insert(s.end(), {c / (r * r), r, r, h, w});
  Tensor x = input.reshape(s);
  const int64_t n = static_cast<int64_t>(lead.size());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < n; ++i) perm.push_back(i);
  perm.insert(perm.end(), {n, n + 3, n + 1, n + 4, n + 2});
  std::vector<int64_t> out = lead;
  out.insert(out.end(), {c / (r * r), h * r, w * r});
  return x.permute(perm).reshape(out);
}

Tensor pixel_unshuffle(const Tensor& input, int64_t r) {
  NABLA_CHECK(input.defined() && input.dim() >= 3, "pixel_unshuffle: expected at least 3 dims");
  NABLA_CHECK(r > 0, "pixel_unshuffle: downscale_factor must be positive, got ", r);
  const int64_t d = input.dim();
  const int64_t c = input.size(d - 3), h = input.size(d - 2), w = input.size(d - 1);
  NABLA_CHECK(h % r == 0 && w % r == 0, "pixel_unshuffle: height ", h, " and width ", w,
              " must be divisible by downscale_factor ", r);
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - 3);
  std::vector<int64_t> s = lead;
  s.insert(s.end(), {c, h / r, r, w / r, r});
  const int64_t n = static_cast<int64_t>(lead.size());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < n; ++i) perm.push_back(i);
  perm.insert(perm.end(), {n, n + 2, n + 4, n + 1, n + 3});
  std::vector<int64_t> out = lead;
  out.insert(out.end(), {c * r * r, h / r, w / r});
  return input.reshape(s).permute(perm).reshape(out);
}

}  // namespace nabla::nn::functional
