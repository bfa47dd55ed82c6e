// Op-table entries for convolutions (1-d to 3-d), the window ops and pooling: strides, padding
// (numbers, "same", "valid"), dilation, groups, bias or none, unbatched and empty
// batches, non-contiguous inputs, ceil_mode, count_include_pad, divisor_override; values
// and float64 gradients; errors for channel mismatches and kernels larger than inputs.
#include "table.h"

namespace conform {
namespace {

using L = Layout;
using V = std::vector<int64_t>;
constexpr L C = L::Contiguous;

template <class T>
T none() {
  return T();
}

std::vector<OpEntry> conv_entries() {
  const std::string g = "nn_conv";
  const Opt o = Opt().tol32(1e-4, 1e-5);
  // (input, weight, bias) layouts.
  const Gen basic = layouts({{{{2, 3, 7, 6}, C}, {{4, 3, 3, 3}, C}, {{4}, C}},
                             {{{2, 3, 7, 6}, L::Transposed}, {{4, 3, 3, 3}, C}, {{4}, C}},
                             {{{1, 3, 5, 5}, C}, {{2, 3, 1, 1}, L::Strided}, {{2}, C}},
                             {{{0, 3, 5, 5}, C}, {{4, 3, 3, 3}, C}, {{4}, C}},
                             // Over 1024 output positions: the per-sample product path.
                             {{{2, 2, 36, 34}, C}, {{3, 2, 3, 3}, C}, {{3}, C}}});
  const Gen basic_nobias = layouts({{{{2, 3, 7, 6}, C}, {{4, 3, 3, 3}, C}},
                                    {{{2, 3, 7, 6}, L::Transposed}, {{4, 3, 3, 3}, C}},
                                    {{{0, 3, 5, 5}, C}, {{4, 3, 3, 3}, C}}});
  const Gen grouped = layouts({{{{2, 4, 6, 5}, C}, {{6, 2, 3, 2}, C}, {{6}, C}}});
  const Gen unbatched = layouts({{{{3, 6, 6}, C}, {{2, 3, 3, 3}, C}, {{2}, C}}});
  const Gen seq = layouts(
      {{{{2, 3, 9}, C}, {{4, 3, 3}, C}, {{4}, C}}, {{{3, 8}, C}, {{2, 3, 2}, C}, {{2}, C}}});
  const Gen transposed = layouts({{{{2, 4, 4, 3}, C}, {{4, 3, 3, 3}, C}, {{3}, C}},
                                  {{{1, 4, 3, 3}, L::Transposed}, {{4, 3, 2, 2}, C}, {{3}, C}}});
  const Gen transposed_groups = layouts({{{{2, 4, 3, 3}, C}, {{4, 2, 3, 3}, C}, {{4}, C}}});
  // (input, weight, bias) of 3-d convolutions: batched, unbatched, transposed, empty batch.
  const Gen conv3d_samples =
      layouts({{{{2, 3, 5, 4, 4}, C}, {{2, 3, 3, 2, 3}, C}, {{2}, C}},
               {{{2, 4, 5, 3}, C}, {{3, 2, 2, 2, 2}, C}, {{3}, C}},
               {{{2, 2, 4, 3, 4}, L::Transposed}, {{3, 2, 2, 2, 1}, C}, {{3}, C}},
               {{{0, 2, 4, 3, 3}, C}, {{3, 2, 2, 2, 2}, C}, {{3}, C}}});
  const Gen conv_transpose3d_samples =
      layouts({{{{2, 3, 3, 2, 3}, C}, {{3, 2, 3, 2, 2}, C}, {{2}, C}},
               {{{3, 2, 3, 2}, C}, {{3, 2, 2, 2, 2}, C}, {{2}, C}},
               {{{1, 3, 2, 3, 2}, L::Transposed}, {{3, 1, 2, 2, 3}, C}, {{1}, C}}});
  return {
      op(
          g, "conv2d", basic, [](const auto& x) { return conv2d(x[0], x[1], x[2]); },
          Opt(o).call("conv2d").bench(
              fixed({{{64, 32, 14, 14}, {64, 32, 3, 3}, {64}}}))),  // W3's second conv
      op(
          g, "conv2d_stride_padding", basic,
          [](const auto& x) {
            return conv2d(x[0], x[1], x[2], V{2, 1}, V{1, 2});
          },
          Opt(o)
              .call("conv2d", {{"stride", V{2, 1}}, {"padding", V{1, 2}}})
              .bench(fixed({{{64, 1, 28, 28}, {32, 1, 3, 3}, {32}}}))),
      op(
          g, "conv2d_dilation_nobias", basic_nobias,
          [](const auto& x) {
            using T = std::decay_t<decltype(x[0])>;
            return conv2d(x[0], x[1], none<T>(), V{1}, V{2}, V{2, 1});
          },
          Opt(o).call("conv2d", {{"padding", V{2}}, {"dilation", V{2, 1}}})),
      op(
          g, "conv2d_groups", grouped,
          [](const auto& x) { return conv2d(x[0], x[1], x[2], V{1}, V{1}, V{1}, 2); },
          Opt(o).call("conv2d", {{"padding", V{1}}, {"groups", 2}})),
      op(
          g, "conv2d_unbatched", unbatched,
          [](const auto& x) { return conv2d(x[0], x[1], x[2], V{2}, V{1}); },
          Opt(o).call("conv2d", {{"stride", V{2}}, {"padding", V{1}}})),
      op(
          g, "conv2d_same", layouts({{{{2, 3, 6, 5}, C}, {{4, 3, 3, 2}, C}, {{4}, C}}}),
          [](const auto& x) {
            return conv2d(x[0], x[1], x[2], V{1}, "same", V{1, 2});
          },
          Opt(o).call("conv2d", {{"padding", std::string("same")}, {"dilation", V{1, 2}}})),
      op(
          g, "conv2d_valid", basic,
          [](const auto& x) { return conv2d(x[0], x[1], x[2], V{1}, "valid"); },
          Opt(o).call("conv2d", {{"padding", std::string("valid")}})),
      op(
          g, "conv1d", seq,
          [](const auto& x) { return conv1d(x[0], x[1], x[2], V{2}, V{1}, V{1}); },
          Opt(o)
              .call("conv1d", {{"stride", V{2}}, {"padding", V{1}}, {"dilation", V{1}}})
              .bench(fixed({{{64, 32, 128}, {64, 32, 3}, {64}}}))),
      op(
          g, "conv1d_same", seq,
          [](const auto& x) { return conv1d(x[0], x[1], x[2], V{1}, "same", V{2}); },
          Opt(o).call("conv1d", {{"padding", std::string("same")}, {"dilation", V{2}}})),
      op(
          g, "conv_tbc",
          layouts({{{{7, 2, 3}, C}, {{3, 3, 4}, C}, {{4}, C}},
                   {{{5, 1, 2}, L::Transposed}, {{2, 2, 3}, L::Strided}, {{3}, C}}}),
          [](const auto& x) { return conv_tbc(x[0], x[1], x[2], 1); },
          Opt(o).call("conv_tbc", {{"pad", 1}})),
      op(
          g, "conv_tbc_channel_mismatch", fixed({{{4, 2, 3}, {2, 5, 4}, {4}}}),
          [](const auto& x) { return conv_tbc(x[0], x[1], x[2]); },
          Opt().throws("conv_tbc").call("conv_tbc")),
      op(
          g, "conv_transpose2d", transposed,
          [](const auto& x) {
            return conv_transpose2d(x[0], x[1], x[2], V{2}, V{1}, V{1, 0});
          },
          Opt(o)
              .call("conv_transpose2d",
                    {{"stride", V{2}}, {"padding", V{1}}, {"output_padding", V{1, 0}}})
              .bench(fixed(
                  {{{64, 64, 7, 7}, {64, 32, 4, 4}, {32}}}))),  // a GAN generator's upsampling
      op(
          g, "conv_transpose2d_groups_dilation", transposed_groups,
          [](const auto& x) {
            return conv_transpose2d(x[0], x[1], x[2], V{1, 2}, V{0, 1}, V{0, 1}, 2, V{2, 1});
          },
          Opt(o).call("conv_transpose2d", {{"stride", V{1, 2}},
                                           {"padding", V{0, 1}},
                                           {"output_padding", V{0, 1}},
                                           {"groups", 2},
                                           {"dilation", V{2, 1}}})),
      op(
          g, "conv_transpose1d", layouts({{{{2, 4, 5}, C}, {{4, 3, 3}, C}, {{3}, C}}}),
          [](const auto& x) { return conv_transpose1d(x[0], x[1], x[2], V{3}, V{1}, V{2}); },
          Opt(o).call("conv_transpose1d",
                      {{"stride", V{3}}, {"padding", V{1}}, {"output_padding", V{2}}})),
      op(
          g, "im2col", fixed({{{2, 3, 5, 6}}}),
          [](const auto& x) {
            return im2col(x[0], V{2, 3}, V{1, 2}, V{1, 0}, V{2, 1});
          },
          Opt(o).call("im2col", {{"kernel_size", V{2, 3}},
                                 {"dilation", V{1, 2}},
                                 {"padding", V{1, 0}},
                                 {"stride", V{2, 1}}})),
      op(
          g, "im2col_unbatched", fixed({{{3, 5, 6}}}),
          [](const auto& x) {
            return im2col(x[0], V{2, 2}, V{1, 1}, V{0, 1}, V{1, 2});
          },
          Opt(o).call("im2col",
                      {{"kernel_size", V{2, 2}}, {"padding", V{0, 1}}, {"stride", V{1, 2}}})),
      op(
          g, "col2im", fixed({{{2, 12, 12}}}),
          [](const auto& x) {
            return col2im(x[0], V{5, 6}, V{2, 2}, V{1, 1}, V{1, 1}, V{2, 2});
          },
          Opt(o).call("col2im", {{"output_size", V{5, 6}},
                                 {"kernel_size", V{2, 2}},
                                 {"padding", V{1, 1}},
                                 {"stride", V{2, 2}}})),
      op(
          g, "col2im_unbatched", fixed({{{12, 12}}}),
          [](const auto& x) {
            return col2im(x[0], V{5, 6}, V{2, 2}, V{1, 1}, V{1, 1}, V{2, 2});
          },
          Opt(o).call("col2im", {{"output_size", V{5, 6}},
                                 {"kernel_size", V{2, 2}},
                                 {"padding", V{1, 1}},
                                 {"stride", V{2, 2}}})),
      // 3-d: the sum over the kernel depth of 2-d convolutions (window/convolution3d.cpp).
      op(
          g, "conv3d", conv3d_samples,
          [](const auto& x) {
            return conv3d(x[0], x[1], x[2], V{2, 1, 1}, V{1, 0, 1});
          },
          Opt(o).gradgrad().call("conv3d", {{"stride", V{2, 1, 1}}, {"padding", V{1, 0, 1}}})),
      op(
          g, "conv3d_groups_dilation",
          layouts({{{{2, 4, 5, 4, 5}, C}, {{6, 2, 2, 1, 2}, C}, {{6}, C}}}),
          [](const auto& x) {
            return conv3d(x[0], x[1], x[2], V{1}, V{0, 1, 1}, V{2, 1, 2}, 2);
          },
          Opt(o).call("conv3d",
                      {{"padding", V{0, 1, 1}}, {"dilation", V{2, 1, 2}}, {"groups", 2}})),
      op(
          g, "conv3d_same", layouts({{{{1, 2, 4, 5, 3}, C}, {{3, 2, 2, 3, 2}, C}, {{3}, C}}}),
          [](const auto& x) {
            return conv3d(x[0], x[1], x[2], V{1}, "same", V{1, 1, 2});
          },
          Opt(o).call("conv3d", {{"padding", std::string("same")}, {"dilation", V{1, 1, 2}}})),
      op(
          g, "conv_transpose3d", conv_transpose3d_samples,
          [](const auto& x) {
            return conv_transpose3d(x[0], x[1], x[2], V{2, 1, 2}, V{1, 0, 0}, V{1, 0, 0});
          },
          Opt(o).gradgrad().call(
              "conv_transpose3d",
              {{"stride", V{2, 1, 2}}, {"padding", V{1, 0, 0}}, {"output_padding", V{1, 0, 0}}})),
      op(
          g, "conv_transpose3d_groups_dilation",
          layouts({{{{2, 4, 3, 2, 3}, C}, {{4, 1, 2, 2, 2}, C}, {{2}, C}}}),
          [](const auto& x) {
            return conv_transpose3d(x[0], x[1], x[2], V{1, 2, 1}, V{0}, V{0, 1, 0}, 2, V{2, 1, 1});
          },
          Opt(o).call("conv_transpose3d", {{"stride", V{1, 2, 1}},
                                           {"output_padding", V{0, 1, 0}},
                                           {"groups", 2},
                                           {"dilation", V{2, 1, 1}}})),
      op(
          g, "conv3d_kernel_too_large", fixed({{{1, 2, 2, 4, 4}, {3, 2, 3, 3, 3}}}),
          [](const auto& x) { return conv3d(x[0], x[1]); },
          Opt().throws("Kernel size can't be greater").call("conv3d")),
      op(
          g, "conv3d_channel_mismatch", fixed({{{1, 3, 4, 4, 4}, {3, 2, 3, 3, 3}}}),
          [](const auto& x) { return conv3d(x[0], x[1]); },
          Opt().throws("channels").call("conv3d")),
      // Errors: channel mismatch, kernel larger than input, bad weight rank.
      op(
          g, "conv2d_channel_mismatch", fixed({{{1, 2, 5, 5}, {4, 3, 3, 3}}}),
          [](const auto& x) { return conv2d(x[0], x[1]); },
          Opt().throws("channels").call("conv2d")),
      op(
          g, "conv2d_kernel_too_large", fixed({{{1, 3, 2, 2}, {4, 3, 3, 3}}}),
          [](const auto& x) { return conv2d(x[0], x[1]); },
          Opt().throws("Kernel size can't be greater").call("conv2d")),
      op(
          g, "conv2d_bad_rank", fixed({{{3, 5, 5}, {4, 3, 3}}}),
          [](const auto& x) { return conv2d(x[0], x[1]); }, Opt().throws("conv2d").call("conv2d")),
  };
}

std::vector<OpEntry> pool_entries() {
  const std::string g = "nn_pool";
  const Opt o = Opt().tol32(1e-5, 1e-6);
  const Gen img = layouts({{{{2, 3, 7, 6}, C}},
                           {{{2, 3, 8, 8}, L::Transposed}},
                           {{{3, 5, 5}, C}},
                           {{{0, 2, 4, 4}, C}}});
  const Gen w3_maps = fixed({{{64, 32, 28, 28}}});  // W3's first feature maps, for bench_ops
  return {
      op(
          g, "max_pool2d", img, [](const auto& x) { return max_pool2d(x[0], V{2}); },
          Opt(o).call("max_pool2d", {{"kernel_size", V{2}}}).bench(w3_maps)),
      op(
          g, "max_pool2d_stride_padding", img,
          [](const auto& x) {
            return max_pool2d(x[0], V{3, 2}, V{2, 1}, V{1, 1});
          },
          Opt(o).call("max_pool2d",
                      {{"kernel_size", V{3, 2}}, {"stride", V{2, 1}}, {"padding", V{1, 1}}})),
      op(
          g, "max_pool2d_ceil_dilation", img,
          [](const auto& x) {
            return max_pool2d(x[0], V{2, 3}, V{2}, V{1, 0}, V{2, 1}, true);
          },
          Opt(o).call("max_pool2d", {{"kernel_size", V{2, 3}},
                                     {"stride", V{2}},
                                     {"padding", V{1, 0}},
                                     {"dilation", V{2, 1}},
                                     {"ceil_mode", true}})),
      op(
          g, "max_pool2d_with_indices", img,
          [](const auto& x) { return max_pool2d_with_indices(x[0], V{3}, V{2}, V{1}, V{1}, true); },
          Opt(o)
              .call(
                  "max_pool2d_with_indices",
                  {{"kernel_size", V{3}}, {"stride", V{2}}, {"padding", V{1}}, {"ceil_mode", true}})
              .bench(w3_maps)),
      op(
          g, "max_pool1d", layouts({{{{2, 3, 9}, C}}, {{{3, 7}, C}}}),
          [](const auto& x) { return max_pool1d(x[0], V{3}, V{2}, V{1}); },
          Opt(o).call("max_pool1d", {{"kernel_size", V{3}}, {"stride", V{2}}, {"padding", V{1}}})),
      op(
          g, "avg_pool2d", img, [](const auto& x) { return avg_pool2d(x[0], V{2}); },
          Opt(o).call("avg_pool2d", {{"kernel_size", V{2}}}).bench(w3_maps)),
      op(
          g, "avg_pool2d_padding_ceil", img,
          [](const auto& x) { return avg_pool2d(x[0], V{3}, V{2}, V{1}, true, true); },
          Opt(o).call("avg_pool2d", {{"kernel_size", V{3}},
                                     {"stride", V{2}},
                                     {"padding", V{1}},
                                     {"ceil_mode", true},
                                     {"count_include_pad", true}})),
      op(
          g, "avg_pool2d_exclude_pad", img,
          [](const auto& x) {
            return avg_pool2d(x[0], V{3, 2}, V{2, 2}, V{1, 1}, true, false);
          },
          Opt(o).call("avg_pool2d", {{"kernel_size", V{3, 2}},
                                     {"stride", V{2, 2}},
                                     {"padding", V{1, 1}},
                                     {"ceil_mode", true},
                                     {"count_include_pad", false}})),
      op(
          g, "avg_pool2d_divisor", img,
          [](const auto& x) { return avg_pool2d(x[0], V{2}, V{1}, V{0}, false, true, 3); },
          Opt(o).call("avg_pool2d",
                      {{"kernel_size", V{2}}, {"stride", V{1}}, {"divisor_override", 3}})),
      op(
          g, "avg_pool1d", layouts({{{{2, 3, 9}, C}}}),
          [](const auto& x) { return avg_pool1d(x[0], V{3}, V{2}, V{1}); },
          Opt(o).call("avg_pool1d", {{"kernel_size", V{3}}, {"stride", V{2}}, {"padding", V{1}}})),
      op(
          g, "adaptive_avg_pool2d",
          layouts({{{{2, 3, 7, 7}, C}}, {{{2, 2, 5, 6}, L::Transposed}}, {{{3, 4, 4}, C}}}),
          [](const auto& x) {
            return adaptive_avg_pool2d(x[0], V{3, 4});
          },
          Opt(o)
              .call("adaptive_avg_pool2d", {{"output_size", V{3, 4}}})
              .bench(fixed({{{64, 64, 7, 7}}}))),
      op(
          g, "adaptive_avg_pool2d_to_one", fixed({{{2, 3, 5, 4}}}),
          [](const auto& x) {
            return adaptive_avg_pool2d(x[0], V{1, 1});
          },
          Opt(o).call("adaptive_avg_pool2d", {{"output_size", V{1, 1}}})),
      op(
          g, "adaptive_avg_pool1d", fixed({{{2, 3, 10}}}),
          [](const auto& x) { return adaptive_avg_pool1d(x[0], V{4}); },
          Opt(o).call("adaptive_avg_pool1d", {{"output_size", V{4}}})),
      op(
          g, "adaptive_max_pool2d", layouts({{{{2, 3, 7, 5}, C}}, {{{3, 6, 6}, C}}}),
          [](const auto& x) {
            return adaptive_max_pool2d(x[0], V{3, 2});
          },
          Opt(o).call("adaptive_max_pool2d", {{"output_size", V{3, 2}}})),
      op(
          g, "max_pool2d_pad_too_large", fixed({{{1, 1, 5, 5}}}),
          [](const auto& x) { return max_pool2d(x[0], V{2}, V{2}, V{2}); },
          Opt()
              .throws("pad should be at most half")
              .call("max_pool2d", {{"kernel_size", V{2}}, {"stride", V{2}}, {"padding", V{2}}})),
      op(
          g, "max_pool2d_output_too_small", fixed({{{1, 1, 2, 2}}}),
          [](const auto& x) { return max_pool2d(x[0], V{3}); },
          Opt().throws("max_pool2d").call("max_pool2d", {{"kernel_size", V{3}}})),
  };
}

const bool registered = add_entries(conv_entries()) && add_entries(pool_entries());

// Second derivatives of max pooling (the entries above check first ones).
std::vector<OpEntry> more_pool_entries() {
  return {
      op(
          "nn_pool", "max_pool2d_gradgrad", fixed({{{1, 2, 5, 5}}, {{2, 4, 4}}}),
          [](const auto& x) { return max_pool2d(x[0] * x[0], V{2}, V{1}); },
          Opt().tol32(1e-5, 1e-6).gradgrad().fd_distinct()),
  };
}

const bool registered_more = add_entries(more_pool_entries());

}  // namespace
}  // namespace conform
