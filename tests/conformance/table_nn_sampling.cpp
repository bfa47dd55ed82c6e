// Op-table entries for pdist, affine_grid_generator and grid_sampler (bilinear and nearest;
// zeros, border and reflection padding; align_corners both ways). grid_sampler's gradient
// is checked for the input and the grid (coordinates spread past [-1, 1] so that padding
// matters). The three are composites in nabla, so their grad_fn is their last op's node.
#include "table.h"

namespace conform {
namespace {

using V = std::vector<int64_t>;

// (input [N, C, H, W], grid [N, Ho, Wo, 2] in [-1.3, 1.3]).
Gen grid_samples() {
  return [](Rng& rng, nabla::ScalarType t) {
    Samples out;
    out.push_back(
        sample_of({make(rng, {2, 3, 4, 5}, t), make(rng, {2, 3, 2, 2}, t, Dom{-1.3, 1.3})}));
    out.push_back(
        sample_of({make(rng, {1, 2, 3, 3}, t), make(rng, {1, 4, 5, 2}, t, Dom{-1.3, 1.3})}));
    return out;
  };
}

OpEntry grid_entry(const std::string& g, const std::string& name, int64_t mode, int64_t padding,
                   bool align, const Opt& o) {
  return op(
      g, name, grid_samples(),
      [=](const auto& x) { return grid_sampler(x[0], x[1], mode, padding, align); },
      Opt(o).call(
          "grid_sampler",
          {{"interpolation_mode", mode}, {"padding_mode", padding}, {"align_corners", align}}));
}

std::vector<OpEntry> sampling_entries() {
  const std::string g = "nn_sampling";
  const Opt o = Opt()
                    .tol32(1e-4, 1e-5)
                    .node_name_differs(
                        "a composite of differentiable ops in nabla (LibTorch: one fused node)");
  std::vector<OpEntry> e = {
      op(
          g, "pdist", fixed({{{5, 3}}, {{2, 4}}}), [](const auto& x) { return pdist(x[0], 2.0); },
          Opt(o).call("pdist", {{"p", 2.0}})),
      op(
          g, "pdist_p1_5", fixed({{{4, 3}}}), [](const auto& x) { return pdist(x[0], 1.5); },
          Opt(o).call("pdist", {{"p", 1.5}})),
      op(
          g, "pdist_p1", fixed({{{4, 3}}}), [](const auto& x) { return pdist(x[0], 1.0); },
          Opt(o).call("pdist", {{"p", 1.0}})),
      op(
          g, "pdist_bad_rank", fixed({{{4, 3, 2}}}), [](const auto& x) { return pdist(x[0], 2.0); },
          Opt().throws("pdist").call("pdist", {{"p", 2.0}})),
      op(
          g, "affine_grid_generator", fixed({{{2, 2, 3}}}),
          [](const auto& x) {
            return affine_grid_generator(x[0], V{2, 3, 4, 5}, false);
          },
          Opt(o).call("affine_grid_generator",
                      {{"size", V{2, 3, 4, 5}}, {"align_corners", false}})),
      op(
          g, "affine_grid_generator_align", fixed({{{2, 2, 3}}}),
          [](const auto& x) {
            return affine_grid_generator(x[0], V{2, 1, 3, 1}, true);
          },
          Opt(o).call("affine_grid_generator", {{"size", V{2, 1, 3, 1}}, {"align_corners", true}})),
      op(
          g, "affine_grid_generator_3d", fixed({{{1, 3, 4}}}),
          [](const auto& x) {
            return affine_grid_generator(x[0], V{1, 2, 3, 2, 4}, false);
          },
          Opt(o).call("affine_grid_generator",
                      {{"size", V{1, 2, 3, 2, 4}}, {"align_corners", false}})),
      op(
          g, "affine_grid_generator_3d_align", fixed({{{2, 3, 4}}}),
          [](const auto& x) {
            return affine_grid_generator(x[0], V{2, 1, 2, 3, 2}, true);
          },
          Opt(o).call("affine_grid_generator",
                      {{"size", V{2, 1, 2, 3, 2}}, {"align_corners", true}})),
  };
  const char* modes[] = {"bilinear", "nearest"};
  const char* paddings[] = {"zeros", "border", "reflection"};
  for (int64_t mode = 0; mode < 2; ++mode)
    for (int64_t padding = 0; padding < 3; ++padding)
      for (bool align : {false, true})
        e.push_back(grid_entry(g,
                               std::string("grid_sampler_") + modes[mode] + "_" +
                                   paddings[padding] + (align ? "_align" : ""),
                               mode, padding, align, o));
  return e;
}

const bool registered = add_entries(sampling_entries());

}  // namespace
}  // namespace conform
