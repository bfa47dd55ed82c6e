// Conformance entries: reductions (dims, keepdim, negative dims, dtype), arg-reductions,
// statistics, scans, sort/topk. Samples cover 0-d, empty, non-contiguous and a tensor
// large enough for the parallel path; a dim that does not exist, or an empty input to
// max(), must fail in nabla as in LibTorch.
#include <cmath>
#include <limits>

#include "table.h"

namespace conform {
namespace {

using nabla::kDouble;
using L = Layout;
// A list of dims. A braced list alone is ambiguous in LibTorch (IntArrayRef or
// DimnameList), so LibTorch users spell it too.
using D = std::vector<int64_t>;

Gen reduce_samples() {
  return layouts({{{{}, L::Contiguous}},
                  {{{0}, L::Contiguous}},
                  {{{0, 3}, L::Contiguous}},
                  {{{7}, L::Contiguous}},
                  {{{3, 4}, L::Contiguous}},
                  {{{2, 3, 5}, L::Contiguous}},
                  {{{4, 5}, L::Transposed}},
                  {{{3, 6}, L::Strided}},
                  {{{4, 3}, L::Expanded}},
                  {{{2, 3, 4}, L::Transposed}},
                  {{{129, 300}, L::Contiguous}}});
}

// (values, x gathered at the indices): equal whichever of several tied indices won.
template <class T>
std::vector<T> picked(const T& x, const std::tuple<T, T>& r, int64_t dim) {
  return {std::get<0>(r), x.dim() == 0 ? std::get<1>(r) : x.gather(dim, std::get<1>(r))};
}

std::vector<OpEntry> reduction_entries() {
  const std::string g = "reductions";
  const Gen s = reduce_samples();
  // Sums of up to 38700 float32 values: accumulation order differs between libraries.
  const Opt acc = Opt().dtypes(kAllTypes).tol32(1e-4, 2e-3).tol64(1e-10, 1e-9).gradgrad();
  const Opt exact = Opt().dtypes(kAllTypes).gradgrad();
  // Max, min and orderings have no derivative at ties (expanded samples repeat values).
  const Opt ties = Opt(exact).fd_distinct();
  // Random floats: no ties, so the indices of orderings are unique.
  const Gen distinct = layouts({{{{3, 4}, L::Contiguous}},
                                {{{4, 5}, L::Transposed}},
                                {{{3, 6}, L::Strided}},
                                {{{2, 3, 5}, L::Contiguous}}});
  return {
      op(
          g, "sum", s, [](const auto& x) { return x[0].sum(); }, Opt(acc).call("sum")),
      op(
          g, "sum_dim", s, [](const auto& x) { return x[0].sum({1}); },
          Opt(acc).call("sum", {{"dim", D{1}}})),
      op(
          g, "sum_dims_keepdim", s,
          [](const auto& x) {
            return x[0].sum(D{0, -1}, true);
          },
          Opt(acc).call("sum", {{"dim", D{0, -1}}, {"keepdim", true}})),
      op(
          g, "sum_negative_dim", s, [](const auto& x) { return x[0].sum({-1}); },
          Opt(acc).call("sum", {{"dim", D{-1}}})),
      op(
          g, "sum_no_dims", s, [](const auto& x) { return x[0].sum(D{}); },
          Opt(acc).call("sum", {{"dim", D{}}})),
      op(
          g, "sum_dtype", s, [](const auto& x) { return x[0].sum(dtype_for(x[0], kDouble)); },
          Opt(acc).call("sum", {{"dtype", kDouble}})),
      op(
          g, "sum_free", s, [](const auto& x) { return sum(x[0], {0}, true); },
          Opt(acc).call("sum", {{"dim", D{0}}, {"keepdim", true}})),
      op(
          g, "mean", s, [](const auto& x) { return x[0].mean(); }, Opt(acc).call("mean")),
      op(
          g, "mean_dim", s, [](const auto& x) { return x[0].mean({1}, true); },
          Opt(acc).call("mean", {{"dim", D{1}}, {"keepdim", true}})),
      op(
          g, "mean_dtype", s, [](const auto& x) { return x[0].mean(dtype_for(x[0], kDouble)); },
          Opt(acc).call("mean", {{"dtype", kDouble}})),
      op(
          g, "prod", fixed({{{}}, {{0}}, {{6}}, {{3, 4}}, {{2, 3, 2}}}, {0.5, 1.5}),
          [](const auto& x) { return x[0].prod(); }, Opt(acc).call("prod")),
      op(
          g, "prod_dim", fixed({{{}}, {{0, 2}}, {{3, 4}}, {{2, 3, 2}}}, {0.5, 1.5}),
          [](const auto& x) { return x[0].prod(1, true); },
          Opt(acc).call("prod", {{"dim", 1}, {"keepdim", true}})),
      op(
          g, "max", s, [](const auto& x) { return x[0].max(); }, Opt(ties).call("max")),
      op(
          g, "min", s, [](const auto& x) { return x[0].min(); }, Opt(ties).call("min")),
      op(
          g, "max_specials", unary(kSpecials), [](const auto& x) { return x[0].max(); },
          Opt(ties).call("max")),
      op(
          g, "max_dim", s, [](const auto& x) { return x[0].max(1); },
          Opt(ties).call("max", {{"dim", 1}})),
      op(
          g, "min_dim_keepdim", s, [](const auto& x) { return x[0].min(-1, true); },
          Opt(ties).call("min", {{"dim", -1}, {"keepdim", true}})),
      op(
          g, "max_dim_specials", unary(kSpecials), [](const auto& x) { return x[0].max(0); },
          Opt(ties).call("max", {{"dim", 0}})),
      op(
          g, "amax", s, [](const auto& x) { return x[0].amax({1}); },
          Opt(ties).call("amax", {{"dim", D{1}}})),
      op(
          g, "amax_all", s, [](const auto& x) { return x[0].amax(); }, Opt(ties).call("amax")),
      op(
          g, "amin_keepdim", s,
          [](const auto& x) {
            return x[0].amin(D{0, -1}, true);
          },
          Opt(ties).call("amin", {{"dim", D{0, -1}}, {"keepdim", true}})),
      op(
          g, "argmax", s, [](const auto& x) { return x[0].argmax(); }, Opt(exact).call("argmax")),
      op(
          g, "argmax_dim", s, [](const auto& x) { return x[0].argmax(1); },
          Opt(exact)
              .differs("argmax(dim) of an empty bool tensor: LibTorch returns an empty "
                       "result, nabla rejects bool")
              .call("argmax", {{"dim", 1}})),
      op(
          g, "argmin_keepdim", s, [](const auto& x) { return x[0].argmin(-1, true); },
          Opt(exact)
              .differs("argmin(dim) of an empty bool tensor: LibTorch returns an empty "
                       "result, nabla rejects bool")
              .call("argmin", {{"dim", -1}, {"keepdim", true}})),
      op(
          g, "argmax_specials", unary(kSpecials), [](const auto& x) { return x[0].argmax(); },
          Opt(exact).call("argmax")),
      op(
          g, "var", s, [](const auto& x) { return x[0].var(); }, Opt(acc).call("var")),
      op(
          g, "var_dim", s, [](const auto& x) { return x[0].var({1}); },
          Opt(acc).call("var", {{"dim", D{1}}})),
      op(
          g, "var_biased_keepdim", s, [](const auto& x) { return x[0].var({-1}, false, true); },
          Opt(acc).call("var", {{"dim", D{-1}}, {"unbiased", false}, {"keepdim", true}})),
      op(
          g, "std", s, [](const auto& x) { return x[0].std(); }, Opt(acc).call("std")),
      op(
          g, "std_dims", s,
          [](const auto& x) {
            return x[0].std(D{0, 1}, true, true);
          },
          Opt(acc).call("std", {{"dim", D{0, 1}}, {"keepdim", true}})),
      op(
          g, "std_biased", s, [](const auto& x) { return x[0].std(false); },
          Opt(acc).call("std", {{"unbiased", false}})),
      op(
          g, "norm", s, [](const auto& x) { return x[0].norm(); }, Opt(acc).call("norm")),
      op(
          g, "norm_p1", s, [](const auto& x) { return x[0].norm(1); },
          Opt(acc).call("norm", {{"p", 1}})),
      op(
          g, "norm_p3", s, [](const auto& x) { return x[0].norm(3); },
          Opt(acc).call("norm", {{"p", 3}})),
      op(
          g, "norm_inf", s,
          [](const auto& x) { return x[0].norm(std::numeric_limits<double>::infinity()); },
          Opt(acc).fd_distinct().call("norm", {{"p", std::numeric_limits<double>::infinity()}})),
      op(
          g, "norm_dim", s, [](const auto& x) { return x[0].norm(2, {1}, true); },
          Opt(acc).call("norm", {{"p", 2}, {"dim", D{1}}, {"keepdim", true}})),
      op(
          g, "logsumexp", s, [](const auto& x) { return x[0].logsumexp({1}); },
          Opt(acc).call("logsumexp", {{"dim", D{1}}})),
      op(
          g, "logsumexp_keepdim", unary(kWide),
          [](const auto& x) {
            return x[0].logsumexp(D{0, -1}, true);
          },
          Opt(acc).call("logsumexp", {{"dim", D{0, -1}}, {"keepdim", true}})),
      op(
          g, "logsumexp_specials", unary(kSpecials),
          [](const auto& x) { return x[0].logsumexp({0}); },
          Opt(acc).call("logsumexp", {{"dim", D{0}}})),
      op(
          g, "all", s, [](const auto& x) { return x[0].all(); }, Opt(exact).call("all")),
      op(
          g, "any", s, [](const auto& x) { return x[0].any(); }, Opt(exact).call("any")),
      op(
          g, "all_dim", s, [](const auto& x) { return x[0].all(1); },
          Opt(exact).call("all", {{"dim", 1}})),
      op(
          g, "any_dim_keepdim", s, [](const auto& x) { return x[0].any(-1, true); },
          Opt(exact).call("any", {{"dim", -1}, {"keepdim", true}})),
      op(
          g, "all_of_bools", s, [](const auto& x) { return x[0].gt(-1.5).all(0); }, exact),
      op(
          g, "cumsum", s, [](const auto& x) { return x[0].cumsum(0); },
          Opt(acc).call("cumsum", {{"dim", 0}})),
      op(
          g, "cumsum_negative_dim", s, [](const auto& x) { return x[0].cumsum(-1); },
          Opt(acc).call("cumsum", {{"dim", -1}})),
      op(
          g, "cumsum_dtype", s,
          [](const auto& x) { return x[0].cumsum(1, dtype_for(x[0], kDouble)); },
          Opt(acc).call("cumsum", {{"dim", 1}, {"dtype", kDouble}})),
      // Ties (integer samples, expanded inputs) leave the order of equal elements
      // unspecified, so indices are checked through what they select: the values at
      // the returned indices must be the sorted values.
      op(
          g, "sort", s, [](const auto& x) { return picked(x[0], x[0].sort(), -1); }, ties),
      op(
          g, "sort_descending_dim0", s,
          [](const auto& x) { return picked(x[0], x[0].sort(0, true), 0); }, ties),
      op(
          g, "sort_specials", unary(kSpecials),
          [](const auto& x) { return picked(x[0], x[0].sort(0), 0); }, Opt().fd_distinct()),
      op(
          g, "argsort", s, [](const auto& x) { return x[0].gather(-1, x[0].argsort()); }, ties),
      op(
          g, "topk", s, [](const auto& x) { return picked(x[0], x[0].topk(2), -1); }, ties),
      op(
          g, "topk_smallest_dim0", s,
          [](const auto& x) { return picked(x[0], x[0].topk(1, 0, false), 0); },
          Opt(ties).differs("topk(largest=false) of tied values (expanded samples): LibTorch's "
                            "gradient goes to another of the tied elements (the order of ties "
                            "is unspecified)")),
      op(
          g, "topk_values", s, [](const auto& x) { return std::get<0>(x[0].topk(3, -1)); }, ties),
      // The same ops called directly (and by name) on samples without ties, where the
      // indices are unique.
      op(
          g, "sort_no_ties", distinct, [](const auto& x) { return x[0].sort(1, true); },
          Opt().fd_distinct().call("sort", {{"dim", 1}, {"descending", true}})),
      op(
          g, "argsort_no_ties", distinct, [](const auto& x) { return x[0].argsort(0, false); },
          Opt().call("argsort", {{"dim", 0}, {"descending", false}})),
      op(
          g, "topk_no_ties", distinct, [](const auto& x) { return x[0].topk(2, -1, false); },
          Opt().fd_distinct().call("topk", {{"k", 2}, {"largest", false}})),
      op(
          g, "var_mean", s, [](const auto& x) { return var_mean(x[0], D{1}); },
          Opt(acc).call("var_mean", {{"dim", D{1}}})),
      op(
          g, "var_mean_all_biased", s, [](const auto& x) { return var_mean(x[0], false); },
          Opt(acc).call("var_mean", {{"unbiased", false}})),
      op(
          g, "topk_k_too_large", fixed({{{3, 4}}}), [](const auto& x) { return x[0].topk(5); },
          Opt().dtypes(kFloatsAndLong).throws("topk").call("topk", {{"k", 5}})),
      op(
          g, "sum_bad_dim", fixed({{{3, 4}}}), [](const auto& x) { return x[0].sum({2}); },
          Opt().dtypes(kFloatsAndLong).throws("sum").call("sum", {{"dim", D{2}}})),
      op(
          g, "max_of_empty", fixed({{{0, 3}}}), [](const auto& x) { return x[0].max(); },
          Opt().dtypes(kFloatsAndLong).throws("max").call("max")),
      op(
          g, "argmax_empty_dim", fixed({{{0, 3}}}), [](const auto& x) { return x[0].argmax(0); },
          Opt().dtypes(kFloatsAndLong).throws("argmax").call("argmax", {{"dim", 0}})),
  };
}

const bool registered = add_entries(reduction_entries());

// Fixed values: each case is a list of inputs, each input (values, shape), in the
// requested dtype.
Gen values_of(std::vector<std::vector<std::pair<std::vector<double>, Shape>>> cases) {
  return [cases](Rng&, nabla::ScalarType dtype) {
    Samples out;
    for (const auto& c : cases) {
      std::vector<NTensor> inputs;
      for (const auto& [v, shape] : c)
        inputs.push_back(nabla::tensor(v, nabla::kDouble).view(shape).to(dtype));
      out.push_back(sample_of(inputs));
    }
    return out;
  };
}

// More: a dtype argument narrower than the input, argmax / argmin without the bool
// dtype (the entries above are marked differs() for it, which hides the others), more
// norm orders, products and std with zeros, infinities and large values in logsumexp,
// float32 variance of a large mean.
std::vector<OpEntry> more_reduction_entries() {
  const std::string g = "reductions";
  const Gen s = reduce_samples();
  const Opt acc = Opt().dtypes(kAllTypes).tol32(1e-4, 2e-3).tol64(1e-10, 1e-9).gradgrad();
  const Opt exact = Opt().dtypes(kAllTypes).gradgrad();
  const std::vector<nabla::ScalarType> no_bool = {nabla::kFloat, kDouble, nabla::kLong, nabla::kInt,
                                                  nabla::kByte};
  // Away from zero, where norms of order below 1 have no derivative.
  const Gen away = layouts({{{{3, 4}, L::Contiguous}},
                            {{{4, 5}, L::Transposed}},
                            {{{2, 3, 5}, L::Contiguous}},
                            {{{0, 3}, L::Contiguous}}},
                           {0.3, 2});
  const std::string kKinks = "the samples sit on kinks (zeros, ties, a constant row)";
  const auto inf = std::numeric_limits<double>::infinity();
  return {
      op(
          g, "sum_dtype_int", s,
          [](const auto& x) { return x[0].sum(dtype_for(x[0], nabla::kInt)); }, exact),
      op(
          g, "prod_dim_dtype_int", fixed({{{0, 2}}, {{3, 4}}, {{2, 3, 2}}}, {0.5, 2.5}),
          [](const auto& x) { return x[0].prod(1, false, dtype_for(x[0], nabla::kInt)); }, exact),
      op(
          g, "cumsum_dtype_int", s,
          [](const auto& x) { return x[0].cumsum(-1, dtype_for(x[0], nabla::kInt)); }, exact),
      op(
          g, "argmax_dim_numeric", s, [](const auto& x) { return x[0].argmax(1); },
          Opt(exact).dtypes(no_bool)),
      op(
          g, "argmin_keepdim_numeric", s, [](const auto& x) { return x[0].argmin(-1, true); },
          Opt(exact).dtypes(no_bool)),
      op(
          g, "argmax_all_keepdim", s, [](const auto& x) { return x[0].argmax({}, true); },
          Opt(exact).dtypes(no_bool)),
      op(
          g, "amax_no_dims_keepdim", s, [](const auto& x) { return x[0].amax(D{}, true); },
          Opt(exact).fd_distinct()),
      op(
          g, "norm_p0", away, [](const auto& x) { return x[0].norm(0); }, acc),
      op(
          g, "norm_neg1", away, [](const auto& x) { return x[0].norm(-1); },
          Opt(acc).differs("norm(-1) of an empty tensor: LibTorch 0, nabla inf")),
      op(
          g, "norm_neg_inf", away,
          [](const auto& x) { return x[0].norm(-std::numeric_limits<double>::infinity()); },
          Opt(acc).fd_distinct()),
      op(
          g, "norm_p1_5_dims_keepdim", away,
          [](const auto& x) {
            return x[0].norm(1.5, D{-1, 0}, true);
          },
          acc),
      op(
          g, "norm_p0_5_dim", away, [](const auto& x) { return x[0].norm(0.5, {1}); }, acc),
      op(
          g, "norm_inf_dims", away,
          [](const auto& x) {
            const double i = std::numeric_limits<double>::infinity();
            return std::vector<std::decay_t<decltype(x[0])>>{x[0].norm(i, {1}, true),
                                                             x[0].norm(-i, {0})};
          },
          Opt(acc).fd_distinct()),
      op(
          g, "norm_at_zero", values_of({{{{0, 0, 0, 0, 0, 0}, {2, 3}}}}),
          [](const auto& x) {
            return std::vector<std::decay_t<decltype(x[0])>>{
                x[0].norm(), x[0].norm(1), x[0].norm(3), x[0].norm(0.5), x[0].norm(2, {1})};
          },
          Opt(acc).no_fd(kKinks)),
      op(
          g, "norm_inf_ties", values_of({{{{1, -3, 3}, {3}}}}),
          [](const auto& x) { return x[0].norm(std::numeric_limits<double>::infinity()); },
          Opt(acc).no_fd(kKinks)),
      // prod is multilinear, so central differences are exact even at zeros.
      op(
          g, "prod_with_zeros",
          values_of({{{{2, 0, 3, -1}, {4}}}, {{{2, 0, 0, -1}, {4}}}, {{{0, 0, 0, 2}, {4}}}}),
          [](const auto& x) { return x[0].prod(); }, acc),
      op(
          g, "prod_dim_with_zeros", values_of({{{{2, 0, 3, 0, 0, 1, 1, 2, 3}, {3, 3}}}}),
          [](const auto& x) { return x[0].prod(1); }, acc),
      op(
          g, "std_constant_row", values_of({{{{1, 1, 1, 2}, {2, 2}}}}),
          [](const auto& x) { return x[0].std({1}); }, Opt(acc).no_fd(kKinks)),
      op(
          g, "logsumexp_infinities",
          values_of(
              {{{{-inf, -inf, inf, inf, inf, -inf, std::nan(""), 1, 1000, 1000, 0, 1}, {6, 2}}}}),
          [](const auto& x) { return x[0].logsumexp({1}); }, Opt(acc).dtypes(kFloats)),
      op(
          g, "logsumexp_large",
          layouts({{{{3, 4}, L::Contiguous}}, {{{4, 3}, L::Transposed}}}, {990, 1000}),
          [](const auto& x) { return x[0].logsumexp({1}); }, Opt(acc).dtypes(kFloats)),
      // Two passes keep float32 accurate: a one-pass variance loses it to cancellation.
      op(
          g, "var_large_mean", fixed({{{1000}}, {{40, 50}}}, {10000, 10001}),
          [](const auto& x) { return x[0].var(false); }, Opt(acc).dtypes(kFloats)),
      op(
          g, "topk_zero", s, [](const auto& x) { return x[0].topk(0); },
          Opt(exact).dtypes(kFloatsAndLong)),
  };
}

const bool registered_more = add_entries(more_reduction_entries());

}  // namespace
}  // namespace conform
