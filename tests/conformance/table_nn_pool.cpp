// Op-table entries for 3-d pooling, the 1-d forms with indices, max unpooling and
// fractional max pooling (src/ops/window/pooling_3d.cpp, window/unpooling.cpp): strides, padding,
// dilation, ceil_mode, count_include_pad, divisor_override, uneven adaptive windows,
// unbatched inputs and empty batches; values and float64 gradients; errors.
#include "table.h"

namespace conform {
namespace {

using L = Layout;
using V = std::vector<int64_t>;
using nabla::ScalarType;
constexpr L C = L::Contiguous;

// (x, int64 indices) samples for max unpooling: each x of `shapes` with distinct positions
// below `bound` in each plane of its last `spatial` dims.
Gen unpool_samples(std::vector<Shape> shapes, int64_t spatial, int64_t bound) {
  return [=](Rng& rng, ScalarType t) {
    Samples out;
    for (const Shape& shape : shapes) {
      int64_t plane = 1, n = 1;
      for (size_t i = 0; i < shape.size(); ++i)
        (i + static_cast<size_t>(spatial) >= shape.size() ? plane : n) *= shape[i];
      std::vector<int64_t> at;
      for (int64_t p = 0; p < n; ++p)
        for (int64_t i = 0; i < plane; ++i) at.push_back((i * 5 + p * 3) % bound);
      out.push_back(sample_of({make(rng, shape, t), nabla::tensor(at, nabla::kLong).view(shape)}));
    }
    return out;
  };
}

// (x, random samples in [0, 1)) for fractional max pooling over x's last `dims` dims.
Gen fractional_samples(std::vector<Shape> shapes, int64_t dims) {
  return [=](Rng& rng, ScalarType t) {
    Samples out;
    for (const Shape& shape : shapes) {
      const bool batched = static_cast<int64_t>(shape.size()) == dims + 2;
      const int64_t n = batched ? shape[0] : 1, c = shape[batched ? 1 : 0];
      out.push_back(sample_of({make(rng, shape, t), make(rng, {n, c, dims}, t, Dom{0, 0.99})}));
    }
    return out;
  };
}

std::vector<OpEntry> pool_entries() {
  const std::string g = "nn_pool";
  const Opt o = Opt().tol32(1e-4, 1e-5);
  const Gen vol = layouts({{{{2, 3, 6, 5, 7}, C}},
                           {{{2, 2, 5, 6, 4}, L::Transposed}},
                           {{{3, 5, 4, 6}, C}},
                           {{{0, 2, 4, 4, 4}, C}}});
  const Gen small_vol = layouts({{{{1, 2, 4, 5, 3}, C}}, {{{2, 3, 4, 5}, C}}});
  return {
      op(
          g, "max_pool3d", vol, [](const auto& x) { return max_pool3d(x[0], V{2}); },
          Opt(o).fd_distinct().call("max_pool3d", {{"kernel_size", V{2}}})),
      op(
          g, "max_pool3d_stride_padding_dilation", vol,
          [](const auto& x) {
            return max_pool3d(x[0], V{3, 2, 3}, V{2, 1, 2}, V{1, 0, 1}, V{1, 2, 1}, true);
          },
          Opt(o).fd_distinct().call("max_pool3d", {{"kernel_size", V{3, 2, 3}},
                                                   {"stride", V{2, 1, 2}},
                                                   {"padding", V{1, 0, 1}},
                                                   {"dilation", V{1, 2, 1}},
                                                   {"ceil_mode", true}})),
      op(
          g, "max_pool3d_with_indices", vol,
          [](const auto& x) { return max_pool3d_with_indices(x[0], V{3}, V{2}, V{1}); },
          Opt(o).fd_distinct().call("max_pool3d_with_indices",
                                    {{"kernel_size", V{3}}, {"stride", V{2}}, {"padding", V{1}}})),
      op(
          g, "max_pool1d_with_indices", layouts({{{{2, 3, 9}, C}}, {{{3, 7}, C}}}),
          [](const auto& x) { return max_pool1d_with_indices(x[0], V{3}, V{2}, V{1}); },
          Opt(o).fd_distinct().call("max_pool1d_with_indices",
                                    {{"kernel_size", V{3}}, {"stride", V{2}}, {"padding", V{1}}})),
      op(
          g, "avg_pool3d", vol, [](const auto& x) { return avg_pool3d(x[0], V{2}); },
          Opt(o).call("avg_pool3d", {{"kernel_size", V{2}}})),
      op(
          g, "avg_pool3d_padding_ceil", vol,
          [](const auto& x) {
            return avg_pool3d(x[0], V{3, 2, 3}, V{2, 1, 2}, V{1, 1, 0}, true);
          },
          Opt(o).call("avg_pool3d", {{"kernel_size", V{3, 2, 3}},
                                     {"stride", V{2, 1, 2}},
                                     {"padding", V{1, 1, 0}},
                                     {"ceil_mode", true}})),
      op(
          g, "avg_pool3d_exclude_pad", vol,
          [](const auto& x) { return avg_pool3d(x[0], V{3}, V{2}, V{1}, true, false); },
          Opt(o).call("avg_pool3d", {{"kernel_size", V{3}},
                                     {"stride", V{2}},
                                     {"padding", V{1}},
                                     {"ceil_mode", true},
                                     {"count_include_pad", false}})),
      op(
          g, "avg_pool3d_divisor", vol,
          [](const auto& x) { return avg_pool3d(x[0], V{2}, V{1}, V{0}, false, true, 5); },
          Opt(o).call("avg_pool3d",
                      {{"kernel_size", V{2}}, {"stride", V{1}}, {"divisor_override", 5}})),
      op(
          g, "adaptive_avg_pool3d", vol,
          [](const auto& x) {
            return adaptive_avg_pool3d(x[0], V{3, 4, 2});
          },
          Opt(o).call("adaptive_avg_pool3d", {{"output_size", V{3, 4, 2}}})),
      op(
          g, "adaptive_avg_pool3d_to_one", small_vol,
          [](const auto& x) {
            return adaptive_avg_pool3d(x[0], V{1, 1, 1});
          },
          Opt(o).call("adaptive_avg_pool3d", {{"output_size", V{1, 1, 1}}})),
      op(
          g, "adaptive_max_pool3d", vol,
          [](const auto& x) {
            return adaptive_max_pool3d(x[0], V{3, 4, 2});
          },
          Opt(o).fd_distinct().call("adaptive_max_pool3d", {{"output_size", V{3, 4, 2}}})),
      op(
          g, "adaptive_max_pool1d", layouts({{{{2, 3, 10}, C}}, {{{3, 7}, C}}}),
          [](const auto& x) { return adaptive_max_pool1d(x[0], V{4}); },
          Opt(o).fd_distinct().call("adaptive_max_pool1d", {{"output_size", V{4}}})),
      // 5 * i + 3 * p modulo the bound: distinct within each plane (the bound is coprime to 5).
      op(
          g, "max_unpool2d", unpool_samples({{2, 3, 2, 3}, {3, 2, 2}, {0, 2, 2, 2}}, 2, 16),
          [](const auto& x) {
            return max_unpool2d(x[0], x[1], V{4, 4});
          },
          Opt(o).call("max_unpool2d", {{"output_size", V{4, 4}}})),
      op(
          g, "max_unpool3d", unpool_samples({{2, 2, 2, 2, 3}, {2, 2, 3, 2}}, 3, 48),
          [](const auto& x) {
            return max_unpool3d(x[0], x[1], V{3, 4, 4}, V{2, 2, 2}, V{0, 1, 0});
          },
          Opt(o).call(
              "max_unpool3d",
              {{"output_size", V{3, 4, 4}}, {"stride", V{2, 2, 2}}, {"padding", V{0, 1, 0}}})),
      op(
          g, "max_pool2d_then_unpool", layouts({{{{2, 3, 6, 6}, C}}}),
          [](const auto& x) {
            auto [v, i] = max_pool2d_with_indices(x[0], V{2});
            return max_unpool2d(v, i, V{6, 6});
          },
          Opt(o).fd_distinct()),
      op(
          g, "fractional_max_pool2d", fractional_samples({{2, 3, 9, 8}, {3, 7, 7}}, 2),
          [](const auto& x) {
            return fractional_max_pool2d(x[0], V{2, 3}, V{4, 3}, x[1]);
          },
          Opt(o).fd_distinct().call("fractional_max_pool2d",
                                    {{"kernel_size", V{2, 3}}, {"output_size", V{4, 3}}})),
      op(
          g, "fractional_max_pool3d", fractional_samples({{2, 2, 6, 7, 5}, {3, 5, 5, 5}}, 3),
          [](const auto& x) {
            return fractional_max_pool3d(x[0], V{2, 3, 2}, V{3, 2, 3}, x[1]);
          },
          Opt(o).fd_distinct().call("fractional_max_pool3d",
                                    {{"kernel_size", V{2, 3, 2}}, {"output_size", V{3, 2, 3}}})),
      op(
          g, "max_pool3d_needs_4d_or_5d", fixed({{{2, 4, 4}}}),
          [](const auto& x) { return max_pool3d(x[0], V{2}); },
          Opt().throws("max_pool3d").call("max_pool3d", {{"kernel_size", V{2}}})),
      op(
          g, "avg_pool3d_pad_too_large", fixed({{{1, 1, 4, 4, 4}}}),
          [](const auto& x) { return avg_pool3d(x[0], V{2}, V{2}, V{2}); },
          Opt()
              .throws("pad should be at most half")
              .call("avg_pool3d", {{"kernel_size", V{2}}, {"stride", V{2}}, {"padding", V{2}}})),
      op(
          g, "max_unpool2d_index_out_of_range", unpool_samples({{1, 2, 2, 2}}, 2, 16),
          [](const auto& x) {
            return max_unpool2d(x[0], x[1], V{3, 3});
          },
          Opt().throws("invalid max index").call("max_unpool2d", {{"output_size", V{3, 3}}})),
      op(
          g, "fractional_max_pool2d_pool_too_large", fractional_samples({{1, 2, 5, 5}}, 2),
          [](const auto& x) {
            return fractional_max_pool2d(x[0], V{3, 3}, V{4, 4}, x[1]);
          },
          Opt()
              .throws("too large")
              .call("fractional_max_pool2d", {{"kernel_size", V{3, 3}}, {"output_size", V{4, 4}}})),
  };
}

const bool registered = add_entries(pool_entries());

}  // namespace
}  // namespace conform
