// Op-table entries for padding (reflect, replicate, constant) and upsampling (nearest,
// nearest-exact, linear, bilinear, trilinear; align_corners both ways; sizes and scales),
// with non-contiguous inputs and float64 gradients.
#include "conformance.h"

namespace conform {
namespace {

using L = Layout;
using V = std::vector<int64_t>;

Gen images(std::vector<Shape> shapes) {
  return [shapes](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    for (const Shape& s : shapes) out.push_back(sample_of({make(rng, s, dtype)}));
    out.push_back(sample_of({make_layout(rng, shapes[0], dtype, kAny, L::Transposed)}));
    return out;
  };
}

std::vector<OpEntry> resample_entries() {
  const std::string g = "nn_resample";
  const Opt o = Opt().tol32(1e-5, 1e-5);
  const Gen img1 = images({{2, 3, 6}, {1, 1, 4}});
  const Gen img2 = images({{2, 2, 5, 4}, {1, 3, 3, 3}});
  const Gen img3 = images({{1, 2, 3, 4, 2}});
  const Gen maps = fixed({{{16, 32, 28, 28}}});  // bench_ops' size
  return {
      op(
          g, "reflection_pad1d", img1,
          [](const auto& x) {
            return reflection_pad1d(x[0], V{2, 1});
          },
          o),
      op(
          g, "reflection_pad2d", img2,
          [](const auto& x) {
            return reflection_pad2d(x[0], V{1, 2, 2, 0});
          },
          Opt(o).bench(maps)),
      op(
          g, "reflection_pad2d_unbatched", fixed({{{2, 4, 5}}}),
          [](const auto& x) {
            return reflection_pad2d(x[0], V{3, 1, 1, 1});
          },
          o),
      op(
          g, "replication_pad1d", img1,
          [](const auto& x) {
            return replication_pad1d(x[0], V{3, 0});
          },
          o),
      op(
          g, "replication_pad2d", img2,
          [](const auto& x) {
            return replication_pad2d(x[0], V{2, 2, 0, 3});
          },
          o),
      op(
          g, "replication_pad3d", img3,
          [](const auto& x) {
            return replication_pad3d(x[0], V{1, 1, 2, 0, 1, 1});
          },
          o),
      op(
          g, "reflection_pad2d_too_large", img2,
          [](const auto& x) {
            return reflection_pad2d(x[0], V{6, 6, 1, 1});
          },
          Opt().throws("reflection_pad2d")),
      op(
          g, "upsample_nearest1d", img1,
          [](const auto& x) { return upsample_nearest1d(x[0], V{13}); }, o),
      op(
          g, "upsample_nearest2d", img2,
          [](const auto& x) {
            return upsample_nearest2d(x[0], V{9, 7});
          },
          o),
      op(
          g, "upsample_nearest2d_down", img2,
          [](const auto& x) {
            return upsample_nearest2d(x[0], V{2, 3});
          },
          o),
      op(
          g, "upsample_nearest2d_scales", img2,
          [](const auto& x) {
            return upsample_nearest2d(x[0], V{x[0].size(2) * 3 / 2, x[0].size(3) * 2}, 1.5, 2.0);
          },
          Opt(o).bench(maps)),
      op(
          g, "upsample_nearest3d", img3,
          [](const auto& x) {
            return upsample_nearest3d(x[0], V{5, 6, 3});
          },
          o),
      op(
          g, "_upsample_nearest_exact2d", img2,
          [](const auto& x) {
            return _upsample_nearest_exact2d(x[0], V{7, 10});
          },
          o),
      op(
          g, "upsample_linear1d", img1,
          [](const auto& x) { return upsample_linear1d(x[0], V{11}, false); }, o),
      op(
          g, "upsample_linear1d_align", img1,
          [](const auto& x) { return upsample_linear1d(x[0], V{11}, true); }, o),
      op(
          g, "upsample_bilinear2d", img2,
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{8, 9}, false);
          },
          o),
      op(
          g, "upsample_bilinear2d_align", img2,
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{8, 9}, true);
          },
          o),
      op(
          g, "upsample_bilinear2d_down", img2,
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{2, 3}, false);
          },
          o),
      op(
          g, "upsample_bilinear2d_scales", img2,
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{x[0].size(2) * 2, x[0].size(3) * 5 / 2}, false, 2.0,
                                       2.5);
          },
          Opt(o).bench(maps)),
      op(
          g, "upsample_bilinear2d_to_one", img2,
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{1, 1}, true);
          },
          o),
      op(
          g, "upsample_trilinear3d", img3,
          [](const auto& x) {
            return upsample_trilinear3d(x[0], V{4, 5, 3}, false);
          },
          o),
      op(
          g, "upsample_bilinear2d_bad_rank", img1,
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{4, 4}, false);
          },
          Opt().throws("upsample_bilinear2d")),
  };
}

const bool registered = add_entries(resample_entries());

}  // namespace
}  // namespace conform
