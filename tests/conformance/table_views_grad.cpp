// Gradient entries of the op table: view and shape ops, in-place writes into views
// (CopySlices), and compositions of the elementwise, reduction, linear-algebra and
// indexing ops. Each runs the value check and the gradient checks (grad_checks.cpp:
// against LibTorch, and first and second derivatives against finite differences in
// float64).
#include "table.h"

namespace conform {
namespace {

using nabla::kDouble;
using L = Layout;

template <class T>
std::vector<T> list(std::initializer_list<T> ts) {
  return std::vector<T>(ts);
}

// Layout cases for one input: contiguous, transposed, strided, offset.
Gen one(const Shape& shape) {
  return layouts({{{shape, L::Contiguous}},
                  {{shape, L::Transposed}},
                  {{shape, L::Strided}},
                  {{shape, L::Offset}}});
}

std::vector<OpEntry> view_entries() {
  const std::string g = "views_grad";
  return {
      op(g, "view", fixed({{{2, 3, 4}}}),
         [](const auto& x) {
           return x[0].view({4, -1});
         }),
      op(g, "reshape", one({3, 4}),
         [](const auto& x) {
           return x[0].reshape({2, 6});
         }),
      op(g, "reshape_0d", fixed({{{}}}),
         [](const auto& x) {
           return x[0].reshape({1, 1});
         }),
      op(g, "transpose", one({3, 4}),
         [](const auto& x) { return x[0].transpose(-1, 0) * x[0].t(); }),
      op(g, "permute", fixed({{{2, 3, 4}}}),
         [](const auto& x) {
           return x[0].permute({2, 0, 1});
         }),
      op(g, "movedim", fixed({{{2, 3, 4}}}), [](const auto& x) { return x[0].movedim(-1, 0); }),
      op(g, "narrow", one({4, 5}), [](const auto& x) { return x[0].narrow(1, -3, 2); }),
      op(g, "slice_step", one({6, 3}), [](const auto& x) { return x[0].slice(0, 1, 6, 2); }),
      op(g, "select", one({3, 4}),
         [](const auto& x) { return x[0].select(-1, 2).sum() * x[0][1]; }),
      op(g, "expand", fixed({{{3, 1}}, {{}}}),
         [](const auto& x) {
           return x[0].expand({2, 3, 4});
         }),
      op(g, "squeeze", fixed({{{2, 1, 3, 1}}}),
         [](const auto& x) { return x[0].squeeze() + x[0].squeeze(1).squeeze(-1); }),
      op(g, "unsqueeze", one({2, 3}),
         [](const auto& x) { return x[0].unsqueeze(-1) * x[0].unsqueeze(1); }),
      op(g, "flatten", one({3, 4}), [](const auto& x) { return x[0].flatten(); }),
      op(g, "unflatten", fixed({{{2, 6}}}),
         [](const auto& x) {
           return x[0].unflatten(1, {3, 2});
         }),
      op(g, "as_strided", one({4, 4}),
         [](const auto& x) {
           return x[0].as_strided({2, 3}, {1, 2}, 1);
         }),
      op(g, "as_strided_overlap", fixed({{{6}}}),
         [](const auto& x) {
           return x[0].as_strided({3, 3}, {1, 1});
         }),
      op(g, "diagonal", fixed({{{3, 4, 2}}}),
         [](const auto& x) { return x[0].diagonal(1, 0, 1) + x[0].diagonal(-1, 1, 0); }),
      op(g, "unbind", one({3, 4}), [](const auto& x) { return x[0].unbind(1); }),
      op(g, "split", one({5, 4}), [](const auto& x) { return x[0].split(2, 0); }),
      op(g, "split_with_sizes", one({5, 4}),
         [](const auto& x) {
           return x[0].split_with_sizes({1, 3}, 1);
         }),
      op(g, "chunk", one({5, 4}), [](const auto& x) { return x[0].chunk(3, 0); }),
      op(g, "clone_contiguous", one({3, 4}),
         [](const auto& x) { return x[0].clone() * x[0].contiguous(); }),
      op(g, "to_float", one({3, 4}),
         [](const auto& x) {
           return x[0].to(dtype_for(x[0], nabla::kFloat)).to(dtype_for(x[0], kDouble));
         }),
  };
}

std::vector<OpEntry> shape_entries() {
  const std::string g = "shape_grad";
  return {
      op(g, "cat",
         layouts({{{{2, 3}, L::Contiguous}, {{3, 3}, L::Transposed}},
                  {{{2, 3}, L::Strided}, {{1, 3}, L::Offset}}}),
         [](const auto& x) {
           return cat(list({x[0], x[1]}), 0);
         }),
      op(g, "cat_promotes", fixed({{{2, 3}, {2, 2}}}),
         [](const auto& x) {
           return cat(list({x[0], x[1].to(dtype_for(x[1], nabla::kFloat))}), -1);
         }),
      op(g, "stack", fixed({{{2, 3}, {2, 3}}}),
         [](const auto& x) {
           return stack(list({x[0], x[1]}), 1);
         }),
      op(g, "hstack", fixed({{{2, 3}, {2, 1}}, {{3}, {2}}}),
         [](const auto& x) {
           return hstack(list({x[0], x[1]}));
         }),
      op(g, "vstack", fixed({{{3}, {3}}, {{1, 2}, {3, 2}}}),
         [](const auto& x) {
           return vstack(list({x[0], x[1]}));
         }),
      op(g, "repeat", one({2, 3}),
         [](const auto& x) {
           return x[0].repeat({2, 1, 3});
         }),
      op(g, "flip", one({3, 4}),
         [](const auto& x) {
           return x[0].flip({0, -1});
         }),
      op(g, "roll", one({3, 4}),
         [](const auto& x) {
           return x[0].roll({1, -5}, {0, 1}) + x[0].roll({7});
         }),
      op(g, "tril_triu", one({4, 4}),
         [](const auto& x) { return tril(x[0], -1) * 2 + triu(x[0], 1); }),
      op(g, "constant_pad_nd", one({3, 4}),
         [](const auto& x) {
           return constant_pad_nd(x[0], {1, -2, -1, 2}, 3);
         }),
      op(g, "broadcast_tensors", fixed({{{3, 1}, {4}}}),
         [](const auto& x) {
           return broadcast_tensors(list({x[0], x[1]}));
         }),
      op(g, "repeat_interleave", one({2, 3}),
         [](const auto& x) { return repeat_interleave(x[0], 2, 1); }),
      op(g, "meshgrid", fixed({{{3}, {2}}}),
         [](const auto& x) {
           return meshgrid(list({x[0], x[1]}), "xy");
         }),
  };
}

// In-place writes into views of a non-leaf (CopySlices in both libraries).
std::vector<OpEntry> inplace_entries() {
  const std::string g = "inplace_views_grad";
  return {
      op(g, "mul_on_select", one({3, 4}),
         [](const auto& x) {
           auto y = x[0] * 1;
           y[1].mul_(3);
           return y * y;
         }),
      op(g, "copy_into_narrow", fixed({{{3, 4}, {2, 4}}, {{3, 4}, {4}}}),
         [](const auto& x) {
           auto y = x[0].sin();
           y.narrow(0, 1, 2).copy_(x[1].exp());
           return y * x[0];
         }),
      op(g, "fill_on_column", one({3, 4}),
         [](const auto& x) {
           auto y = x[0] * x[0];
           y.select(1, 2).fill_(0.5);
           return y;
         }),
      op(g, "views_made_before", one({3, 4}),
         [](const auto& x) {
           auto y = x[0] * 2;
           auto row = y[0];
           auto col = y.select(1, 1);
           y.narrow(1, 0, 2).add_(x[0].narrow(1, 2, 2).exp());
           return std::vector<std::decay_t<decltype(y)>>{row * 1, col * 1, y};
         }),
      op(g, "copy_into_zeros_base", fixed({{{3}}}),
         [](const auto& x) {
           auto y = (x[0].unsqueeze(0) * 0).detach();  // a base without grad
           auto z = y.expand({2, 3}).contiguous();
           z[1].copy_(x[0].cos());
           return z;
         }),
  };
}

// Gradients of the elementwise, reduction, linear-algebra and indexing ops against
// LibTorch's (the values are in the other tables), and their second derivatives.
std::vector<OpEntry> math_entries() {
  const std::string g = "math_grad";
  return {
      op(g, "unary_chain", one({3, 4}),
         [](const auto& x) {
           auto p = x[0].abs() + 0.5;
           return p.log() + p.sqrt() + p.rsqrt() + x[0].exp() + x[0].tanh() + x[0].sigmoid() +
                  x[0].sin() * x[0].cos() + x[0].atan() + x[0].erf() + x[0].expm1() + p.log1p() +
                  x[0].relu() + x[0].pow(3) + p.pow(-1.5) + x[0].square() + p.reciprocal();
         }),
      op(g, "activations", one({3, 4}),
         [](const auto& x) {
           return leaky_relu(x[0], 0.2) + elu(x[0], 1.5) + gelu(x[0], "none") + gelu(x[0], "tanh") +
                  silu(x[0]) + softplus(x[0], 2, 1) + x[0].clamp(-0.3, 0.4);
         }),
      op(g, "binary_broadcast", fixed({{{2, 3}, {3}}, {{4, 1}, {1, 5}}}),
         [](const auto& x) {
           auto b = x[1].abs() + 1;
           return x[0].add(x[1], 2.5) - x[1] * x[0] + x[0] / b + (x[0].abs() + 1).pow(b) +
                  x[0].atan2(b) + x[0].maximum(x[1]) + x[0].minimum(x[1] * 0.5) +
                  x[0].where(x[0] > x[1], x[1]);
         }),
      op(g, "reductions", one({3, 4}),
         [](const auto& x) {
           return x[0].sum() + x[0].sum({1}, true).sum() * 2 + x[0].mean({0}).sum() +
                  x[0].prod(1).sum() + x[0].amax({1}).sum() + std::get<0>(x[0].max(0)).sum() +
                  x[0].var({1}, true, false).sum() + x[0].std({0}, true, false).sum() +
                  x[0].norm(2, {1}).sum() + x[0].logsumexp({1}).sum() + x[0].cumsum(1).sum() * 0.5 +
                  std::get<0>(x[0].sort(1)).select(1, 0).sum() + std::get<0>(x[0].topk(2, 1)).sum();
         }),
      op(g, "linalg", fixed({{{3, 4}, {4, 5}}}),
         [](const auto& x) {
           auto v = x[1].select(1, 0);
           return x[0].mm(x[1]).sum() + x[0].matmul(x[1]).relu().sum() + x[0].mv(v).sum() +
                  v.dot(v) + v.outer(x[0].select(1, 2)).sum() +
                  x[0].unsqueeze(0)
                      .expand({2, 3, 4})
                      .bmm(x[1].unsqueeze(0).expand({2, 4, 5}))
                      .sum() +
                  x[1].sum(1).addmm(x[0].t(), x[0], 0.5, 2).sum() +
                  linear(x[0], x[1].t(), x[1].select(0, 0)).sum();
         }),
      op(g, "indexing", fixed({{{5, 4}, {5, 4}}}),
         [](const auto& x) {
           auto idx = std::get<1>(x[1].sort(0)).select(1, 0);      // a permutation of 0..4
           auto cols = std::get<1>(x[1].sort(1)).narrow(1, 0, 2);  // [5, 2] in 0..3
           return x[0].index_select(0, idx).sum() * 2 + x[0].gather(1, cols).sum() +
                  x[0].masked_fill(x[1] > 0, 0.5).sum() + x[0].masked_select(x[1] < 0).sum() +
                  x[0].scatter_add(1, cols, x[1].narrow(1, 0, 2)).sum();
         }),
  };
}

// Every entry here checks second derivatives too; those that compute through float32
// are too coarse for finite differences.
std::vector<OpEntry> with_grad(std::vector<OpEntry> entries) {
  for (auto& e : entries) {
    e.gradgrad = true;
    if (e.name == "to_float" || e.name == "cat_promotes")
      e.no_finite_differences = "computes through float32, too coarse for finite differences";
    if (e.name == "cat_promotes")
      e.no16 = "one input is converted to float32: the result is float32 by promotion";
    // The math entries sum a dozen ops' results, each rounded to 16 bits.
    if (e.group == "math_grad") e.tol.scale16 = 8;
  }
  return entries;
}

const bool registered =
    add_entries(with_grad(view_entries())) && add_entries(with_grad(shape_entries())) &&
    add_entries(with_grad(inplace_entries())) && add_entries(with_grad(math_entries()));

// More: a few view edges, writes into views made in other ways (through an index, a
// view taken before the write, zero_, fill_ with a tensor), and the elementwise ops and
// Scalar forms the compositions above leave out.
std::vector<OpEntry> more_view_entries() {
  const std::string g = "views_grad";
  return {
      op(g, "view_as", fixed({{{2, 3}, {6}}}), [](const auto& x) { return x[0].view_as(x[1]); }),
      op(g, "narrow_empty", one({4, 5}), [](const auto& x) { return x[0].narrow(0, 1, 0); }),
      op(g, "select_of_t", one({3, 4}), [](const auto& x) { return x[0].t().select(0, 2); }),
      op(g, "split_sizes_with_zero", one({4, 5}),
         [](const auto& x) {
           return x[0].split_with_sizes({2, 0, 3}, 1);
         }),
  };
}

std::vector<OpEntry> more_inplace_entries() {
  const std::string g = "inplace_views_grad";
  return {
      op(g, "view_before_write_on_base", one({3, 4}),
         [](const auto& x) {
           auto y = x[0].sin();
           auto v = y[1];
           y.add_(x[0] * x[0]);
           return v * 1;
         }),
      op(g, "zero_on_view", one({2, 3}),
         [](const auto& x) {
           auto y = x[0] * x[0];
           y[1].narrow(0, 1, 1).zero_();
           return y;
         }),
      op(g, "fill_with_tensor", fixed({{{2, 3}, {}}}),
         [](const auto& x) {
           auto y = x[0] * 2;  // (exp would save its output, which fill_ overwrites)
           y.fill_(x[1] * 2);
           return y * x[0];
         }),
      op(g, "copy_broadcasts", fixed({{{2, 3}, {3}}}),
         [](const auto& x) {
           auto y = x[0] * x[0];
           y.copy_(x[1].exp());
           return y * x[0];
         }),
      op(g, "masked_fill_on_row", fixed({{{3, 4}, {}}}),
         [](const auto& x) {
           auto y = x[0] * 1;
           y.select(0, 1).masked_fill_(x[0].select(0, 0).detach().gt(0), x[1]);
           return y;
         }),
      op(g, "scatter_on_alias", fixed({{{3, 4}, {3, 2}}}),
         [](const auto& x) {
           auto y = x[0] * 1;
           auto index = std::get<1>(x[0].detach().sort(1)).narrow(1, 0, 2);  // distinct per row
           y.index({"..."}).scatter_(1, index, x[1]);
           return y;
         }),
      op2(
          g, "index_put_on_column", fixed({{{3, 4}, {3}}}),
          [](const auto& x) {
            auto y = x[0] * 1;
            y.select(1, 2).index_put_(std::vector<nabla::optional<NTensor>>{nabla::tensor(
                                          std::vector<int64_t>{0, 0, 2}, nabla::kLong)},
                                      x[1], true);
            return y;
          },
          LIBTORCH([](const auto& x) {
            auto y = x[0] * 1;
            c10::List<c10::optional<TTensor>> l;
            l.push_back(at::tensor(std::vector<int64_t>{0, 0, 2}, at::kLong));
            y.select(1, 2).index_put_(l, x[1], true);
            return y;
          })),
  };
}

std::vector<OpEntry> more_math_entries() {
  const std::string g = "math_grad";
  return {
      op(g, "more_unary", one({3, 4}),
         [](const auto& x) {
           auto u = x[0] * 0.45;  // in (-0.9, 0.9): asin, acos, and frac without a jump
           auto p = x[0].abs() + 0.5;
           return -x[0] + x[0].exp2() + p.log2() + p.log10() + (x[0] * 0.5).tan() + u.asin() +
                  u.acos() + x[0].sinh() + x[0].cosh() + x[0].clamp_min(0.2) + u.frac() +
                  x[0].clamp_max(0.3) + x[0].expm1() + p.pow(0.5);
         }),
      op(g, "scalar_forms", fixed({{{2, 3}, {3}}, {{4, 1}, {1, 5}}}),
         [](const auto& x) {
           return (2 - x[0]) * 3 + x[1] / 4 - 1 + x[0].sub(x[1], 0.5) + x[0].add(1.5, 2) +
                  x[0].div(-2) + x[0].mul(x[1]).pow(2);
         }),
  };
}

const bool registered_more = add_entries(with_grad(more_view_entries())) &&
                             add_entries(with_grad(more_inplace_entries())) &&
                             add_entries(with_grad(more_math_entries()));

}  // namespace
}  // namespace conform
