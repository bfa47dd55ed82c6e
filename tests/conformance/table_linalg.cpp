// Conformance entries: matrix products (every matmul rank combination, batching with
// broadcast, transposed and strided operands, empty inner and outer dims) and linear.
#include "table.h"

namespace conform {
namespace {

using L = Layout;
constexpr L C = L::Contiguous;

std::vector<OpEntry> linalg_entries() {
  const std::string g = "linalg";
  // Inner products of up to 128 terms: float32 rounding differs with the summation order.
  const Opt o = Opt().dtypes(kFloatsAndLong).tol32(1e-4, 1e-4).tol64(1e-10, 1e-10);
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

}  // namespace
}  // namespace conform
