// Conformance entries: matrix products (every matmul rank combination, batching with
// broadcast, transposed and strided operands, empty inner and outer dims) and linear.
#include <cmath>

#include "table.h"

namespace conform {
namespace {

using L = Layout;
constexpr L C = L::Contiguous;

std::vector<OpEntry> linalg_entries() {
  const std::string g = "linalg";
  // Inner products of up to 128 terms: float32 rounding differs with the summation order.
  const Opt o = Opt().dtypes(kFloatsAndLong).tol32(1e-4, 1e-4).tol64(1e-10, 1e-10).gradgrad();
  const Gen mm_pairs = layouts({{{{3, 4}, C}, {{4, 5}, C}},
                                {{{3, 4}, L::Transposed}, {{4, 5}, C}},
                                {{{3, 4}, C}, {{4, 5}, L::Transposed}},
                                {{{3, 4}, L::Strided}, {{4, 5}, L::Offset}},
                                {{{3, 4}, L::Expanded}, {{4, 5}, C}},
                                {{{0, 4}, C}, {{4, 5}, C}},
                                {{{3, 0}, C}, {{0, 5}, C}},
                                {{{64, 128}, C}, {{128, 96}, L::Transposed}},
                                {{{3, 4}, C}, {{5, 6}, C}},
                                {{{3}, C}, {{3, 4}, C}}});
  const Gen matmul_pairs = layouts({{{{4}, C}, {{4}, C}},
                                    {{{3, 4}, C}, {{4}, C}},
                                    {{{4}, C}, {{4, 5}, C}},
                                    {{{3, 4}, C}, {{4, 5}, L::Transposed}},
                                    {{{2, 3, 4}, C}, {{4, 5}, C}},
                                    {{{2, 3, 4}, L::Transposed}, {{2, 4, 5}, C}},
                                    {{{2, 1, 3, 4}, C}, {{5, 4, 2}, C}},
                                    {{{4}, C}, {{2, 4, 5}, C}},
                                    {{{2, 3, 4}, C}, {{4}, C}},
                                    {{{0, 3, 4}, C}, {{4, 2}, C}},
                                    {{{}, C}, {{4}, C}},
                                    {{{3, 4}, C}, {{3, 4}, C}}});
  return {
      op(
          g, "mm", mm_pairs, [](const auto& x) { return x[0].mm(x[1]); },
          Opt(o).call("mm").bench(fixed({{{64, 784}, {784, 256}}}))),  // W2's first layer
      op(
          g, "mm_free", mm_pairs, [](const auto& x) { return mm(x[0], x[1]); }, Opt(o).call("mm")),
      op(
          g, "matmul", matmul_pairs, [](const auto& x) { return x[0].matmul(x[1]); },
          Opt(o).call("matmul").bench(fixed({{{8, 64, 128}, {128, 256}}}))),
      op(
          g, "matmul_free", matmul_pairs, [](const auto& x) { return matmul(x[0], x[1]); },
          Opt(o).call("matmul")),
      op(
          g, "bmm",
          layouts({{{{2, 3, 4}, C}, {{2, 4, 5}, C}},
                   {{{2, 3, 4}, L::Transposed}, {{2, 4, 5}, L::Strided}},
                   {{{0, 3, 4}, C}, {{0, 4, 5}, C}},
                   {{{2, 3, 4}, C}, {{3, 4, 5}, C}},
                   {{{3, 4}, C}, {{4, 5}, C}}}),
          [](const auto& x) { return x[0].bmm(x[1]); },
          Opt(o).call("bmm").bench(fixed({{{32, 64, 64}, {32, 64, 64}}}))),
      op(
          g, "mv",
          layouts({{{{3, 4}, C}, {{4}, C}},
                   {{{3, 4}, L::Transposed}, {{4}, L::Strided}},
                   {{{0, 4}, C}, {{4}, C}},
                   {{{3, 4}, C}, {{5}, C}}}),
          [](const auto& x) { return x[0].mv(x[1]); }, Opt(o).call("mv")),
      op(
          g, "dot",
          layouts({{{{5}, C}, {{5}, C}},
                   {{{5}, L::Strided}, {{5}, L::Expanded}},
                   {{{0}, C}, {{0}, C}},
                   {{{5}, C}, {{4}, C}},
                   {{{2, 2}, C}, {{2, 2}, C}}}),
          [](const auto& x) { return x[0].dot(x[1]); }, Opt(o).call("dot")),
      op(
          g, "outer",
          layouts({{{{3}, C}, {{4}, C}}, {{{0}, C}, {{4}, L::Strided}}, {{{3}, C}, {{}, C}}}),
          [](const auto& x) { return x[0].outer(x[1]); }, Opt(o).call("outer")),
      op(
          g, "addmm",
          layouts({{{{3, 5}, C}, {{3, 4}, C}, {{4, 5}, C}},
                   {{{5}, C}, {{3, 4}, L::Transposed}, {{4, 5}, C}},
                   {{{}, C}, {{3, 0}, C}, {{0, 5}, C}}}),
          [](const auto& x) { return x[0].addmm(x[1], x[2], 0.5, 2); },
          Opt(o)
              .differs("addmm of int64 tensors with float beta/alpha: LibTorch rejects it, nabla "
                       "accepts")
              .call("addmm", {{"beta", 0.5}, {"alpha", 2}})),
      op(
          g, "addmm_free", layouts({{{{3, 5}, C}, {{3, 4}, C}, {{4, 5}, C}}}),
          [](const auto& x) { return addmm(x[0], x[1], x[2]); }, Opt(o).call("addmm")),
      op(
          g, "addmm_", layouts({{{{3, 5}, C}, {{3, 4}, C}, {{4, 5}, C}}}),
          [](const auto& x) {
            auto y = x[0].clone();
            y.addmm_(x[1], x[2], 2, -1);
            return y;
          },
          o),
      op(
          g, "linear",
          layouts({{{{2, 4}, C}, {{3, 4}, C}, {{3}, C}},
                   {{{5, 2, 4}, C}, {{3, 4}, L::Transposed}, {{3}, C}},
                   {{{4}, C}, {{3, 4}, C}, {{3}, C}},
                   {{{0, 4}, C}, {{3, 4}, C}, {{3}, C}}}),
          [](const auto& x) { return linear(x[0], x[1], x[2]); },
          Opt(o).dtypes(kFloats).call("linear").bench(
              fixed({{{64, 3136}, {128, 3136}, {128}}}))),  // W3's first Linear
      op(
          g, "linear_no_bias",
          layouts({{{{2, 4}, C}, {{3, 4}, C}}, {{{6, 4}, L::Transposed}, {{3, 4}, C}}}),
          [](const auto& x) { return linear(x[0], x[1]); }, Opt(o).dtypes(kFloats).call("linear")),
      op(
          g, "mm_dtype_mismatch", fixed({{{2, 3}, {3, 2}}}),
          [](const auto& x) { return x[0].mm(x[1].to(dtype_for(x[1], nabla::kDouble))); },
          Opt().dtypes({nabla::kFloat}).throws("mm")),
  };
}

const bool registered = add_entries(linalg_entries());

// More operand kinds: integer dtypes (uint8 products wrap modulo 256 in both), ranks and
// batch layouts the samples above do not reach, addmm's beta = 0 (self ignored, NaN
// included), broadcast self and k = 0, writes into a transposed self, mixed dtypes.
std::vector<OpEntry> more_linalg_entries() {
  const std::string g = "linalg";
  const Opt o = Opt().tol32(1e-4, 1e-4).tol64(1e-10, 1e-10).gradgrad();
  const Gen mm_pairs = layouts({{{{3, 4}, C}, {{4, 5}, C}},
                                {{{3, 4}, L::Transposed}, {{4, 5}, L::Strided}},
                                {{{3, 4}, L::Expanded}, {{4, 5}, C}},
                                {{{0, 4}, C}, {{4, 5}, C}}});
  return {
      op(
          g, "mm_int_dtypes", mm_pairs, [](const auto& x) { return x[0].mm(x[1]); },
          Opt(o).dtypes({nabla::kInt, nabla::kByte})),
      op(
          g, "mm_uint8_wraps", fixed({{{3, 4}, {4, 5}}}),
          [](const auto& x) { return x[0].mul(8).mm(x[1].mul(8)); }, Opt(o).dtypes({nabla::kByte})),
      op(
          g, "matmul_more_ranks",
          layouts({{{{4, 5}, C}, {{2, 5, 6}, C}},
                   {{{1, 3, 4}, C}, {{2, 2, 4, 3}, C}},
                   {{{4, 0, 3}, C}, {{4, 3, 2}, C}},
                   {{{4, 2, 0}, C}, {{4, 0, 3}, C}},
                   {{{0}, C}, {{0, 5}, C}}}),
          [](const auto& x) { return x[0].matmul(x[1]); }, Opt(o).dtypes(kFloatsAndLong)),
      // Batch dims permuted: the batch cannot be folded into one product without a copy.
      op(
          g, "matmul_permuted_batch", fixed({{{2, 3, 4, 5}, {5, 6}}, {{3, 2, 4}, {4, 5}}}),
          [](const auto& x) { return x[0].transpose(0, 1).matmul(x[1]); }, o),
      op(
          g, "bmm_expanded_batch",
          layouts({{{{4, 2, 3}, L::Transposed}, {{4, 3, 5}, L::Expanded}}}),
          [](const auto& x) { return x[0].bmm(x[1]); }, o),
      op(
          g, "bmm_permuted_batch", fixed({{{4, 2, 3}, {3, 4, 5}}}),
          [](const auto& x) {
            return x[0].bmm(x[1].permute({1, 0, 2}));
          },
          o),
      op(
          g, "addmm_floats",
          layouts({{{{3, 5}, C}, {{3, 4}, C}, {{4, 5}, C}},
                   {{{5}, C}, {{3, 4}, L::Transposed}, {{4, 5}, C}},
                   {{{3, 1}, C}, {{3, 4}, C}, {{4, 5}, L::Transposed}},
                   {{{}, C}, {{3, 0}, C}, {{0, 5}, C}},
                   {{{3, 5}, C}, {{3, 0}, C}, {{0, 5}, C}}}),
          [](const auto& x) { return x[0].addmm(x[1], x[2], 0.5, 2); }, o),
      op(
          g, "addmm_int_scalars", layouts({{{{3, 5}, C}, {{3, 4}, C}, {{4, 5}, C}}}),
          [](const auto& x) { return x[0].addmm(x[1], x[2], 2, 3); },
          Opt(o).dtypes({nabla::kLong, nabla::kInt})),
      op(
          g, "addmm_beta0", layouts({{{{1, 5}, C}, {{3, 4}, C}, {{4, 5}, C}}}),
          [](const auto& x) { return addmm(x[0], x[1], x[2], 0, 1.5); }, o),
      // beta = 0 ignores self, NaN included, on the gemm, gemv, dot and k = 0 paths.
      op(
          g, "addmm_beta0_ignores_self",
          layouts({{{{2, 3}, C}, {{2, 2}, C}, {{2, 3}, C}},
                   {{{2, 1}, C}, {{2, 2}, C}, {{2, 1}, C}},
                   {{{1, 3}, C}, {{1, 2}, C}, {{2, 3}, C}},
                   {{{1, 1}, C}, {{1, 2}, C}, {{2, 1}, C}},
                   {{{2, 3}, C}, {{2, 0}, C}, {{0, 3}, C}}}),
          [](const auto& x) { return addmm(x[0].detach() * std::nan(""), x[1], x[2], 0, 1); }, o),
      op(
          g, "addmm_into_transposed",
          layouts(
              {{{{4, 2}, C}, {{2, 3}, C}, {{3, 4}, C}}, {{{4, 2}, C}, {{2, 0}, C}, {{0, 4}, C}}}),
          [](const auto& x) {
            auto y = x[0].clone();
            y.t().addmm_(x[1], x[2], 0.5, 1);
            return y;
          },
          o),
      op(
          g, "outer_mixed_dtypes", layouts({{{{3}, C}, {{4}, C}}}),
          [](const auto& x) { return x[0].outer(x[1].to(dtype_for(x[1], nabla::kDouble))); },
          Opt(o).dtypes(kFloatsAndLong)),
      op(
          g, "linear_vector_weight", fixed({{{3}, {3}}, {{2, 3}, {3}}}),
          [](const auto& x) { return linear(x[0], x[1]); }, o),
      op(
          g, "linear_3d_no_bias", fixed({{{2, 3, 4}, {5, 4}}}),
          [](const auto& x) { return linear(x[0], x[1]); }, Opt(o).call("linear")),
      op(
          g, "linear_permuted_input", fixed({{{4, 5, 3}, {2, 3}, {2}}, {{0, 7, 3}, {2, 3}, {2}}}),
          [](const auto& x) { return linear(x[0].transpose(0, 1), x[1], x[2]); }, o),
  };
}

const bool registered_more = add_entries(more_linalg_entries());

}  // namespace
}  // namespace conform
