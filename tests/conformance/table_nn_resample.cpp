// Op-table entries for padding (reflect, replicate, constant) and upsampling (nearest,
// nearest-exact, linear, bilinear, bicubic, trilinear, antialiased; align_corners both
// ways; sizes and scales), with non-contiguous inputs and float64 gradients.
#include "table.h"

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
          Opt(o).call("reflection_pad1d", {{"padding", V{2, 1}}})),
      op(
          g, "reflection_pad2d", img2,
          [](const auto& x) {
            return reflection_pad2d(x[0], V{1, 2, 2, 0});
          },
          Opt(o).call("reflection_pad2d", {{"padding", V{1, 2, 2, 0}}}).bench(maps)),
      op(
          g, "reflection_pad2d_unbatched", fixed({{{2, 4, 5}}}),
          [](const auto& x) {
            return reflection_pad2d(x[0], V{3, 1, 1, 1});
          },
          Opt(o).call("reflection_pad2d", {{"padding", V{3, 1, 1, 1}}})),
      op(
          g, "reflection_pad3d", img3,
          [](const auto& x) {
            return reflection_pad3d(x[0], V{1, 0, 2, 1, 1, 2});
          },
          Opt(o).gradgrad().call("reflection_pad3d", {{"padding", V{1, 0, 2, 1, 1, 2}}})),
      op(
          g, "reflection_pad3d_unbatched", fixed({{{2, 3, 4, 2}}}),
          [](const auto& x) {
            return reflection_pad3d(x[0], V{1, 1, 0, 3, 2, 0});
          },
          Opt(o).call("reflection_pad3d", {{"padding", V{1, 1, 0, 3, 2, 0}}})),
      op(
          g, "reflection_pad3d_too_large", img3,
          [](const auto& x) {
            return reflection_pad3d(x[0], V{1, 1, 1, 1, 3, 0});
          },
          Opt()
              .throws("reflection_pad3d")
              .call("reflection_pad3d", {{"padding", V{1, 1, 1, 1, 3, 0}}})),
      op(
          g, "replication_pad1d", img1,
          [](const auto& x) {
            return replication_pad1d(x[0], V{3, 0});
          },
          Opt(o).call("replication_pad1d", {{"padding", V{3, 0}}})),
      op(
          g, "replication_pad2d", img2,
          [](const auto& x) {
            return replication_pad2d(x[0], V{2, 2, 0, 3});
          },
          Opt(o).call("replication_pad2d", {{"padding", V{2, 2, 0, 3}}})),
      op(
          g, "replication_pad3d", img3,
          [](const auto& x) {
            return replication_pad3d(x[0], V{1, 1, 2, 0, 1, 1});
          },
          Opt(o).call("replication_pad3d", {{"padding", V{1, 1, 2, 0, 1, 1}}})),
      op(
          g, "reflection_pad2d_too_large", img2,
          [](const auto& x) {
            return reflection_pad2d(x[0], V{6, 6, 1, 1});
          },
          Opt().throws("reflection_pad2d").call("reflection_pad2d", {{"padding", V{6, 6, 1, 1}}})),
      op2(
          g, "circular_pad", img2,
          [](const auto& x) {
            return nabla::circular_pad(x[0], V{1, 2, 2, 0});
          },
          LIBTORCH([](const auto& x) {
            return at::_pad_circular(x[0], V{1, 2, 2, 0});
          }),
          Opt(o).gradgrad().call("circular_pad", {{"padding", V{1, 2, 2, 0}}})),
      op2(
          g, "circular_pad_negative", img2,
          [](const auto& x) {
            return nabla::circular_pad(x[0], V{-1, 1, 0, 2});
          },
          LIBTORCH([](const auto& x) {
            return at::_pad_circular(x[0], V{-1, 1, 0, 2});
          }),
          Opt(o).call("circular_pad", {{"padding", V{-1, 1, 0, 2}}})),
      op(
          g, "upsample_nearest1d", img1,
          [](const auto& x) { return upsample_nearest1d(x[0], V{13}); },
          Opt(o).call("upsample_nearest1d", {{"output_size", V{13}}})),
      op(
          g, "upsample_nearest2d", img2,
          [](const auto& x) {
            return upsample_nearest2d(x[0], V{9, 7});
          },
          Opt(o).call("upsample_nearest2d", {{"output_size", V{9, 7}}})),
      op(
          g, "upsample_nearest2d_down", img2,
          [](const auto& x) {
            return upsample_nearest2d(x[0], V{2, 3});
          },
          Opt(o).call("upsample_nearest2d", {{"output_size", V{2, 3}}})),
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
          Opt(o).call("upsample_nearest3d", {{"output_size", V{5, 6, 3}}})),
      op(
          g, "_upsample_nearest_exact2d", img2,
          [](const auto& x) {
            return _upsample_nearest_exact2d(x[0], V{7, 10});
          },
          Opt(o).call("_upsample_nearest_exact2d", {{"output_size", V{7, 10}}})),
      op(
          g, "upsample_linear1d", img1,
          [](const auto& x) { return upsample_linear1d(x[0], V{11}, false); },
          Opt(o).call("upsample_linear1d", {{"output_size", V{11}}, {"align_corners", false}})),
      op(
          g, "upsample_linear1d_align", img1,
          [](const auto& x) { return upsample_linear1d(x[0], V{11}, true); },
          Opt(o).call("upsample_linear1d", {{"output_size", V{11}}, {"align_corners", true}})),
      op(
          g, "upsample_bilinear2d", img2,
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{8, 9}, false);
          },
          Opt(o).call("upsample_bilinear2d", {{"output_size", V{8, 9}}, {"align_corners", false}})),
      op(
          g, "upsample_bilinear2d_align", img2,
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{8, 9}, true);
          },
          Opt(o).call("upsample_bilinear2d", {{"output_size", V{8, 9}}, {"align_corners", true}})),
      op(
          g, "upsample_bilinear2d_down", img2,
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{2, 3}, false);
          },
          Opt(o).call("upsample_bilinear2d", {{"output_size", V{2, 3}}, {"align_corners", false}})),
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
          Opt(o).call("upsample_bilinear2d", {{"output_size", V{1, 1}}, {"align_corners", true}})),
      op(
          g, "upsample_trilinear3d", img3,
          [](const auto& x) {
            return upsample_trilinear3d(x[0], V{4, 5, 3}, false);
          },
          Opt(o).call("upsample_trilinear3d",
                      {{"output_size", V{4, 5, 3}}, {"align_corners", false}})),
      op(
          g, "_upsample_nearest_exact1d", img1,
          [](const auto& x) { return _upsample_nearest_exact1d(x[0], V{9}); },
          Opt(o).call("_upsample_nearest_exact1d", {{"output_size", V{9}}})),
      // Scales given with the sizes (as F::interpolate's scale_factor passes them).
      op2(
          g, "upsample_nearest1d_scale", fixed({{{2, 3, 4}}}),
          [](const auto& x) { return nabla::upsample_nearest1d(x[0], V{10}, 2.5); },
          LIBTORCH([](const auto& x) {
            return at::upsample_nearest1d(x[0], V{10}, c10::optional<double>(2.5));
          }),
          Opt(o).call("upsample_nearest1d", {{"output_size", V{10}}, {"scales", 2.5}})),
      op(
          g, "upsample_nearest2d_fixed_scales", fixed({{{1, 2, 4, 4}}}),
          [](const auto& x) {
            return upsample_nearest2d(x[0], V{6, 8}, 1.5, 2.0);
          },
          Opt(o).call("upsample_nearest2d",
                      {{"output_size", V{6, 8}}, {"scales_h", 1.5}, {"scales_w", 2.0}})),
      op(
          g, "upsample_nearest3d_scales", fixed({{{1, 2, 2, 3, 2}}}),
          [](const auto& x) {
            return upsample_nearest3d(x[0], V{5, 6, 4}, 2.5, 2.0, 2.0);
          },
          Opt(o).call("upsample_nearest3d", {{"output_size", V{5, 6, 4}},
                                             {"scales_d", 2.5},
                                             {"scales_h", 2.0},
                                             {"scales_w", 2.0}})),
      op(
          g, "upsample_bilinear2d_fixed_scales", fixed({{{1, 2, 4, 4}}}),
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{8, 10}, false, 2.0, 2.5);
          },
          Opt(o).call("upsample_bilinear2d", {{"output_size", V{8, 10}},
                                              {"align_corners", false},
                                              {"scales_h", 2.0},
                                              {"scales_w", 2.5}})),
      // Bicubic and antialiased resampling (weight-matrix passes), up and down.
      op(
          g, "upsample_bicubic2d", img2,
          [](const auto& x) {
            return upsample_bicubic2d(x[0], V{8, 7}, false);
          },
          Opt(o).gradgrad().call("upsample_bicubic2d",
                                 {{"output_size", V{8, 7}}, {"align_corners", false}})),
      op(
          g, "upsample_bicubic2d_align_down", img2,
          [](const auto& x) {
            return upsample_bicubic2d(x[0], V{2, 3}, true);
          },
          Opt(o).call("upsample_bicubic2d", {{"output_size", V{2, 3}}, {"align_corners", true}})),
      op(
          g, "upsample_bicubic2d_fixed_scales", fixed({{{1, 2, 4, 4}}}),
          [](const auto& x) {
            return upsample_bicubic2d(x[0], V{6, 10}, false, 1.5, 2.5);
          },
          Opt(o).call("upsample_bicubic2d", {{"output_size", V{6, 10}},
                                             {"align_corners", false},
                                             {"scales_h", 1.5},
                                             {"scales_w", 2.5}})),
      op(
          g, "_upsample_bilinear2d_aa_down", fixed({{{2, 3, 9, 11}}}),
          [](const auto& x) {
            return _upsample_bilinear2d_aa(x[0], V{4, 3}, false);
          },
          Opt(o).call("_upsample_bilinear2d_aa",
                      {{"output_size", V{4, 3}}, {"align_corners", false}})),
      op(
          g, "_upsample_bilinear2d_aa_up_align", img2,
          [](const auto& x) {
            return _upsample_bilinear2d_aa(x[0], V{7, 9}, true);
          },
          Opt(o).call("_upsample_bilinear2d_aa",
                      {{"output_size", V{7, 9}}, {"align_corners", true}})),
      op(
          g, "_upsample_bicubic2d_aa_down", fixed({{{2, 3, 9, 11}}}),
          [](const auto& x) {
            return _upsample_bicubic2d_aa(x[0], V{4, 3}, false);
          },
          Opt(o).call("_upsample_bicubic2d_aa",
                      {{"output_size", V{4, 3}}, {"align_corners", false}})),
      op(
          g, "_upsample_bicubic2d_aa_mixed_align", fixed({{{1, 2, 5, 12}}}),
          [](const auto& x) {
            return _upsample_bicubic2d_aa(x[0], V{8, 5}, true);
          },
          Opt(o).call("_upsample_bicubic2d_aa",
                      {{"output_size", V{8, 5}}, {"align_corners", true}})),
      op(
          g, "upsample_bilinear2d_bad_rank", img1,
          [](const auto& x) {
            return upsample_bilinear2d(x[0], V{4, 4}, false);
          },
          Opt()
              .throws("upsample_bilinear2d")
              .call("upsample_bilinear2d", {{"output_size", V{4, 4}}, {"align_corners", false}})),
  };
}

const bool registered = add_entries(resample_entries());

}  // namespace
}  // namespace conform
