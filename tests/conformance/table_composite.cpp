// Conformance entries for the ops added for LibTorch programs: elementwise
// math and special functions, scans and order statistics, small linear algebra and
// shape ops. Most are composites of table-checked ops in nabla; the table checks their
// values and gradients against LibTorch all the same (a composite can still pick the
// wrong formula, or leak a kink, see table_nn_kinks.cpp).
#include "table.h"

namespace conform {
namespace {

using nabla::kDouble;
using nabla::kFloat;
using nabla::kLong;
using D = std::vector<int64_t>;

const Layout C = Layout::Contiguous;
const Layout T = Layout::Transposed;
const Layout S = Layout::Strided;

// Composites of transcendental functions: a few ULP of float32 per step.
const Opt kMath = Opt().tol32(5e-5, 5e-6).tol64(1e-10, 1e-12);
// Ordering ops: no derivative where values tie.
const Opt kOrder = Opt(kMath).fd_distinct().gradgrad();

// The samples of `gen` with one more input at position `pos`, made from the sample's first
// input: a constant index, a mask (so that ops::call gets them as inputs too).
Gen with_input(Gen gen, size_t pos, std::function<NTensor(const NTensor&)> make_input) {
  return [=](Rng& rng, nabla::ScalarType t) {
    Samples samples = gen(rng, t);
    for (Sample& s : samples) {
      auto inputs = s.inputs;
      inputs.insert(inputs.begin() + static_cast<std::ptrdiff_t>(pos), make_input(inputs[0]));
      s = sample_of(std::move(inputs));
    }
    return samples;
  };
}
Gen with_index(Gen gen, size_t pos, std::vector<int64_t> index) {
  return with_input(std::move(gen), pos,
                    [index](const NTensor&) { return nabla::tensor(index, nabla::kLong); });
}

std::vector<OpEntry> elementwise_entries() {
  const std::string g = "composite_elementwise";
  // Second derivatives too: most of these ops record one node with a written-out formula.
  const Opt m = Opt(kMath).gradgrad();
  const Gen b = binary(kWide, kWide);
  return {
      op(
          g, "logaddexp", b, [](const auto& x) { return logaddexp(x[0], x[1]); },
          Opt(m).call("logaddexp")),
      op(
          g, "logaddexp2", b, [](const auto& x) { return logaddexp2(x[0], x[1]); },
          Opt(m).call("logaddexp2")),
      op(
          g, "hypot", binary(kNonZero, kNonZero), [](const auto& x) { return hypot(x[0], x[1]); },
          Opt(m).call("hypot")),
      op(
          g, "xlogy", binary(kAny, kPositive), [](const auto& x) { return xlogy(x[0], x[1]); },
          Opt(m).call("xlogy")),
      op(
          g, "copysign", binary(kNonZero, kAny), [](const auto& x) { return copysign(x[0], x[1]); },
          Opt(m).call("copysign")),
      op(
          g, "fmod", binary_divisor(kWide), [](const auto& x) { return fmod(x[0], x[1]); },
          Opt(m).no_fd("a saw-tooth: random samples may sit next to its jumps")),
      op(
          g, "fmod_scalar", unary(kWide), [](const auto& x) { return x[0].fmod(1.5); },
          Opt(m)
              .no_fd("a saw-tooth: random samples may sit next to its jumps")
              .call("fmod", {{"other", 1.5}})),
      op(
          g, "fmax", b, [](const auto& x) { return fmax(x[0], x[1]); }, Opt(kOrder).call("fmax")),
      op(
          g, "fmin", b, [](const auto& x) { return fmin(x[0], x[1]); }, Opt(kOrder).call("fmin")),
      op(
          g, "float_power", binary(kPositive, kAny),
          [](const auto& x) { return float_power(x[0], x[1]); }, Opt(m).call("float_power")),
      op(
          g, "float_power_scalar", unary(kPositive),
          [](const auto& x) { return x[0].float_power(2.5); },
          Opt(m).call("float_power", {{"exponent", 2.5}})),
      op(
          g, "lerp_tensor_weight", ternary(), [](const auto& x) { return lerp(x[0], x[1], x[2]); },
          Opt(m).call("lerp")),
      op(
          g, "asinh", unary(kWide), [](const auto& x) { return asinh(x[0]); },
          Opt(m).call("asinh")),
      op(
          g, "acosh", unary({1.1, 6}), [](const auto& x) { return x[0].acosh(); },
          Opt(m).call("acosh")),
      op(
          g, "atanh", unary(kUnit), [](const auto& x) { return x[0].arctanh(); },
          Opt(m).call("atanh")),
      // LibTorch 1.13 has no derivative for asinh_: values only.
      op(
          g, "asinh_inplace", unary(kWide),
          [](const auto& x) { return x[0].detach().clone().asinh_(); }, m),
      op(
          g, "sinc", unary(kWide), [](const auto& x) { return sinc(x[0]); }, Opt(m).call("sinc")),
      op(
          g, "logit", unary({0.05, 0.95}), [](const auto& x) { return logit(x[0]); },
          Opt(m).call("logit")),
      op(
          g, "logit_eps", unary({-0.5, 1.5}), [](const auto& x) { return x[0].logit(0.1); },
          Opt(m)
              .no_fd("clamped to [eps, 1 - eps]: samples may sit next to the clamp's kinks")
              .no16("rounding moves samples across the clamp's kinks")
              .call("logit", {{"eps", 0.1}})),
      op(
          g, "lgamma", unary(kPositive), [](const auto& x) { return lgamma(x[0]); },
          Opt(m).call("lgamma")),
      op(
          g, "digamma", unary(kPositive), [](const auto& x) { return digamma(x[0]); },
          Opt(m).call("digamma")),
      op(
          g, "polygamma_1", unary(kPositive), [](const auto& x) { return polygamma(1, x[0]); },
          Opt(m)
              .tol32(2e-4, 2e-5)
              .tol64(1e-8, 1e-10)
              .call("polygamma", {{"n", 1}})),  // nabla's series: ~1e-9 relative
      op(
          g, "erfinv", unary(kUnit), [](const auto& x) { return erfinv(x[0]); },
          Opt(m).tol32(1e-4, 1e-5).call("erfinv")),
      op(
          g, "erfc", unary(kAny), [](const auto& x) { return erfc(x[0]); }, Opt(m).call("erfc")),
      op(
          g, "i0", unary(kAny), [](const auto& x) { return i0(x[0]); }, Opt(m).call("i0")),
      op(
          g, "nan_to_num_specials", unary(kSpecials),
          [](const auto& x) { return x[0].nan_to_num(0.5, 9.0, -9.0); },
          Opt(m).call("nan_to_num", {{"nan", 0.5}, {"posinf", 9.0}, {"neginf", -9.0}})),
      op(
          g, "deg2rad", unary(kWide), [](const auto& x) { return x[0].deg2rad(); },
          Opt(m).call("deg2rad")),
      op(
          g, "rad2deg", unary(kWide), [](const auto& x) { return rad2deg(x[0]); },
          Opt(m).call("rad2deg")),
      op(
          g, "copysign_scalar", unary(kNonZero), [](const auto& x) { return x[0].copysign(-1.5); },
          Opt(m).call("copysign", {{"other", -1.5}})),
      op(
          g, "xlogy_scalar", unary(kAny), [](const auto& x) { return x[0].xlogy(2.5); },
          Opt(m).call("xlogy", {{"other", 2.5}})),
      op(
          g, "isneginf", unary(kSpecials), [](const auto& x) { return x[0].isneginf(); },
          Opt(m).dtypes(kFloatsAndLong).call("isneginf")),
      op(
          g, "isposinf", unary(kSpecials), [](const auto& x) { return isposinf(x[0]); },
          Opt(m).dtypes(kFloatsAndLong).call("isposinf")),
      op(
          g, "isreal", unary(kAny), [](const auto& x) { return x[0].isreal(); },
          Opt(m).call("isreal")),
      op(
          g, "positive", unary(kAny), [](const auto& x) { return x[0].positive(); },
          Opt(m).dtypes(kFloatsAndLong).call("positive")),
      // LibTorch 1.13 has no derivative for heaviside and floor_divide: values only.
      op(
          g, "heaviside", binary(kSpecials, kAny),
          [](const auto& x) { return x[0].detach().heaviside(x[1].detach()); },
          Opt(m).call("heaviside")),
      op(
          g, "floor_divide", binary_divisor(kWide),
          [](const auto& x) { return x[0].detach().floor_divide(x[1].detach()); },
          Opt(m).dtypes(kFloatsAndLong).call("floor_divide")),
      op(
          g, "floor_divide_scalar", unary(kWide),
          [](const auto& x) { return x[0].detach().floor_divide(-1.5); },
          Opt(m).call("floor_divide", {{"other", -1.5}})),
      op(
          g, "isclose", binary({-1, 1}, {-1, 1}),
          [](const auto& x) { return x[0].isclose(x[1], 0.5, 0.2); },
          Opt(m).call("isclose", {{"rtol", 0.5}, {"atol", 0.2}}).no16(kIscloseRounded)),
      op(
          g, "signbit", unary(kSpecials), [](const auto& x) { return x[0].signbit(); },
          Opt(m).call("signbit")),
  };
}

// Non-negative int64 vectors, the input of bincount.
Gen counts() {
  return [](Rng& rng, nabla::ScalarType) {
    return Samples{sample_of({make_index(rng, {9}, 5)}), sample_of({make_index(rng, {4}, 8)}),
                   sample_of({make_index(rng, {0}, 1)})};
  };
}

std::vector<OpEntry> scan_entries() {
  const std::string g = "composite_reductions";
  const Gen s = layouts({{{{3, 4}, C}}, {{{4, 3}, T}}, {{{2, 3, 4}, C}}, {{{5, 3}, S}}});
  const Gen vec = layouts({{{{7}, C}}, {{{6}, S}}});
  // Second derivatives too: most of these ops record one node with a written-out formula.
  const Opt m = Opt(kMath).gradgrad();
  return {
      op(
          g, "cumprod", s, [](const auto& x) { return x[0].cumprod(1); },
          Opt(m).call("cumprod", {{"dim", 1}})),
      op(
          g, "cumprod_dim0_double", s,
          [](const auto& x) { return x[0].cumprod(0, dtype_for(x[0], kDouble)); },
          Opt(m).call("cumprod", {{"dim", 0}, {"dtype", kDouble}})),
      op(
          g, "logcumsumexp", s, [](const auto& x) { return x[0].logcumsumexp(1); },
          Opt(m).call("logcumsumexp", {{"dim", 1}})),
      op(
          g, "cummax", s, [](const auto& x) { return x[0].cummax(1); },
          Opt(kOrder).call("cummax", {{"dim", 1}})),
      op(
          g, "cummin", s, [](const auto& x) { return x[0].cummin(0); },
          Opt(kOrder).call("cummin", {{"dim", 0}})),
      op(
          g, "median_dim", s, [](const auto& x) { return x[0].median(1); },
          Opt(kOrder).call("median", {{"dim", 1}})),
      op(
          g, "median_all", s, [](const auto& x) { return x[0].median(); },
          Opt(kOrder).call("median")),
      op(
          g, "nanmedian_dim", s, [](const auto& x) { return x[0].nanmedian(0, true); },
          Opt(kOrder).call("nanmedian", {{"dim", 0}, {"keepdim", true}})),
      op(
          g, "kthvalue", s, [](const auto& x) { return x[0].kthvalue(2, 1); },
          Opt(kOrder).call("kthvalue", {{"k", 2}, {"dim", 1}})),
      op(
          g, "mode_of_rounded", s, [](const auto& x) { return x[0].round().mode(1); },
          Opt(m).dtypes({kFloat})),
      op(
          g, "aminmax", s,
          [](const auto& x) {
            // LibTorch has no derivative for aminmax: values only.
            auto r = x[0].aminmax(1);
            return std::make_tuple(std::get<0>(r).detach(), std::get<1>(r).detach());
          },
          Opt(kOrder).call("aminmax", {{"dim", 1}})),
      op(
          g, "nansum", s, [](const auto& x) { return x[0].nansum(1); },
          Opt(m).call("nansum", {{"dim", D{1}}})),
      op(
          g, "nanmean", s, [](const auto& x) { return x[0].nanmean(0); },
          Opt(m).call("nanmean", {{"dim", D{0}}})),
      op(
          g, "count_nonzero", s,
          [](const auto& x) { return x[0].round().count_nonzero(std::vector<int64_t>{1}); },
          Opt(m).dtypes({kFloat, kLong})),
      op(
          g, "var_dim_int", s, [](const auto& x) { return x[0].var(1); }, m),
      op(
          g, "std_mean", s, [](const auto& x) { return std_mean(x[0], {0}); },
          Opt(m).call("std_mean", {{"dim", D{0}}})),
      op(
          g, "diff", s, [](const auto& x) { return x[0].diff(1, 1); },
          Opt(m).call("diff", {{"n", 1}, {"dim", 1}})),
      op(
          g, "diff_twice_dim0", s, [](const auto& x) { return x[0].diff(2, 0); },
          Opt(m).call("diff", {{"n", 2}, {"dim", 0}})),
      op(
          g, "trace", layouts({{{{4, 4}, C}}, {{{3, 5}, T}}}),
          [](const auto& x) { return x[0].trace(); }, Opt(m).call("trace")),
      op(
          g, "dist", binary(kAny, kAny), [](const auto& x) { return dist(x[0], x[1], 3); },
          Opt(m).call("dist", {{"p", 3}})),
      op(
          g, "renorm", s, [](const auto& x) { return x[0].renorm(2, 0, 1.0); },
          Opt(m).call("renorm", {{"p", 2}, {"dim", 0}, {"maxnorm", 1.0}})),
      op(
          g, "nanmedian_all", s, [](const auto& x) { return x[0].nanmedian(); },
          Opt(kOrder).call("nanmedian")),
      op(
          g, "mode", s, [](const auto& x) { return x[0].mode(1); },
          Opt(kOrder).call("mode", {{"dim", 1}})),
      op(
          g, "nansum_all", s, [](const auto& x) { return x[0].nansum(); }, Opt(m).call("nansum")),
      op(
          g, "count_nonzero_by_name", s,
          [](const auto& x) { return x[0].count_nonzero(std::vector<int64_t>{1}); },
          Opt(m).dtypes({kFloat, kLong}).call("count_nonzero", {{"dim", D{1}}})),
      op(
          g, "count_nonzero_all", s, [](const auto& x) { return x[0].count_nonzero(); },
          Opt(m).dtypes({kFloat, kLong}).call("count_nonzero")),
      // Not differentiable in LibTorch 1.13: values only.
      op(
          g, "unique_dim", s,
          [](const auto& x) {
            auto [values, inverse, counts] = unique_dim(x[0].detach(), 0, true, true, true);
            return std::vector<std::decay_t<decltype(values)>>{values, inverse, counts};
          },
          Opt(m)
              .dtypes({kFloat, kLong})
              .call("unique_dim", {{"dim", 0}, {"return_inverse", true}, {"return_counts", true}})),
      op(
          g, "unique_consecutive", s,
          [](const auto& x) {
            auto [values, inverse, counts] = unique_consecutive(x[0].detach(), true, true);
            return std::vector<std::decay_t<decltype(values)>>{values, inverse, counts};
          },
          Opt(m)
              .dtypes({kFloat, kLong})
              .call("unique_consecutive", {{"return_inverse", true}, {"return_counts", true}})),
      op(
          g, "bincount", counts(), [](const auto& x) { return x[0].bincount({}, 6); },
          Opt().dtypes({kLong}).call("bincount", {{"minlength", 6}})),
      op(
          g, "histc", vec, [](const auto& x) { return x[0].histc(4, -2, 2); },
          Opt(m).dtypes({kFloat, kDouble}).call("histc", {{"bins", 4}, {"min", -2}, {"max", 2}})),
      op(
          g, "msort", s, [](const auto& x) { return x[0].msort(); }, Opt(kOrder).call("msort")),
  };
}

std::vector<OpEntry> linalg_entries() {
  const std::string g = "composite_linalg";
  const Opt m = Opt().tol32(1e-4, 1e-5).tol64(1e-10, 1e-12).gradgrad();
  return {
      op(
          g, "addmv",
          layouts({{{{3}, C}, {{3, 4}, C}, {{4}, C}}, {{{3}, C}, {{3, 4}, T}, {{4}, S}}}),
          [](const auto& x) { return addmv(x[0], x[1], x[2], 0.5, 2.0); },
          Opt(m).call("addmv", {{"beta", 0.5}, {"alpha", 2.0}})),
      op(
          g, "addr", layouts({{{{3, 4}, C}, {{3}, C}, {{4}, C}}}),
          [](const auto& x) { return addr(x[0], x[1], x[2], 2.0, 0.5); },
          Opt(m).call("addr", {{"beta", 2.0}, {"alpha", 0.5}})),
      op(
          g, "addbmm", layouts({{{{3, 5}, C}, {{2, 3, 4}, C}, {{2, 4, 5}, C}}}),
          [](const auto& x) { return addbmm(x[0], x[1], x[2]); }, Opt(m).call("addbmm")),
      op(
          g, "addbmm_beta_0", layouts({{{{3, 5}, C}, {{2, 3, 4}, C}, {{2, 4, 5}, C}}}),
          [](const auto& x) { return addbmm(x[0], x[1], x[2], 0, -1); },
          Opt(m).call("addbmm", {{"beta", 0}, {"alpha", -1}})),
      op(
          g, "baddbmm", layouts({{{{2, 3, 5}, C}, {{2, 3, 4}, C}, {{2, 4, 5}, C}}}),
          [](const auto& x) { return baddbmm(x[0], x[1], x[2], 0.5, 1.5); },
          Opt(m).call("baddbmm", {{"beta", 0.5}, {"alpha", 1.5}})),
      op(
          g, "inner", layouts({{{{3, 4}, C}, {{2, 4}, C}}, {{{4}, C}, {{4}, S}}}),
          [](const auto& x) { return inner(x[0], x[1]); }, Opt(m).call("inner")),
      op(
          g, "kron", layouts({{{{2, 3}, C}, {{3, 2}, C}}, {{{2}, C}, {{2, 2}, C}}}),
          [](const auto& x) { return kron(x[0], x[1]); }, Opt(m).call("kron")),
      op(
          g, "kron_transposed", layouts({{{{2}, C}, {{2, 2}, T}}}),
          [](const auto& x) { return kron(x[0], x[1]); },
          Opt(m).differs(
              "LibTorch 1.13's kron throws on a transposed operand (it views where it needs a "
              "reshape); nabla computes it")),
      op(
          g, "cross", layouts({{{{4, 3}, C}, {{4, 3}, C}}, {{{3, 5}, C}, {{3, 5}, T}}}),
          [](const auto& x) { return cross(x[0], x[1], x[0].size(0) == 3 ? 0 : 1); },
          Opt(m).call("cross")),  // by name without dim: the first dim of size 3
  };
}

std::vector<OpEntry> shape_entries() {
  const std::string g = "composite_shape";
  const Gen mat = layouts({{{{3, 4}, C}}, {{{4, 3}, T}}, {{{3, 5}, S}}});
  const Gen cube = layouts({{{{2, 3, 4}, C}}});
  const Opt exact = Opt().dtypes(kAllTypes);
  const Opt view = Opt(exact).view();
  return {
      op(
          g, "diag_vector", layouts({{{{4}, C}}, {{{3}, S}}}),
          [](const auto& x) { return x[0].diag(1); }, exact),
      op(
          g, "diag_matrix", mat, [](const auto& x) { return x[0].diag(-1); }, exact),
      op(
          g, "diag_embed", mat, [](const auto& x) { return x[0].diag_embed(1); }, exact),
      op(
          g, "diagflat", mat, [](const auto& x) { return x[0].diagflat(); }, exact),
      op(
          g, "tile", mat,
          [](const auto& x) {
            return x[0].tile({2, 1, 2});
          },
          exact),
      op(
          g, "repeat_interleave_int", mat,
          [](const auto& x) { return x[0].repeat_interleave(2, 1); }, exact),
      op(
          g, "rot90", cube,
          [](const auto& x) {
            return x[0].rot90(3, {1, 2});
          },
          exact),
      op(
          g, "fliplr", mat, [](const auto& x) { return x[0].fliplr(); }, exact),
      op(
          g, "flipud", mat, [](const auto& x) { return x[0].flipud(); }, exact),
      op(
          g, "unfold", mat, [](const auto& x) { return x[0].unfold(1, 2, 1); }, view),
      op(
          g, "unfold_step", cube, [](const auto& x) { return x[0].unfold(2, 2, 2); }, view),
      op(
          g, "movedim_list", cube,
          [](const auto& x) {
            return x[0].movedim({0, 1}, {2, 0});
          },
          view),
      op(
          g, "mT", cube, [](const auto& x) { return x[0].mT(); }, view),
      op(
          // No derivative in LibTorch 1.13: values only.
          g, "narrow_copy", mat, [](const auto& x) { return x[0].narrow_copy(1, 1, 2).detach(); },
          Opt(exact).call("narrow_copy", {{"dim", 1}, {"start", 1}, {"length", 2}})),
      op(
          g, "ravel", mat, [](const auto& x) { return x[0].ravel(); }, Opt(exact).call("ravel")),
      op(
          g, "sum_to_size", cube,
          [](const auto& x) {
            return x[0].sum_to_size({3, 1});
          },
          kMath),
      op(
          g, "take", with_index(mat, 1, {2, 0, 5, 2}),
          [](const auto& x) { return x[0].take(x[1]); }, Opt(exact).gradgrad().call("take")),
      op(
          g, "take_along_dim",
          with_input(mat, 1,
                     [](const NTensor& x) { return x.detach().argsort(1, false).narrow(1, 0, 2); }),
          [](const auto& x) { return x[0].take_along_dim(x[1], 1); },
          Opt(exact).fd_distinct().call("take_along_dim", {{"dim", 1}})),
      op(
          g, "index_add", with_index(fixed({{{4, 3}, {2, 3}}}), 1, {3, 1}),
          [](const auto& x) { return x[0].index_add(0, x[1], x[2], 2.0); },
          Opt(kMath).gradgrad().call("index_add", {{"dim", 0}, {"alpha", 2.0}})),
      op(
          g, "index_add_repeated", with_index(fixed({{{4, 3}, {3, 3}}}), 1, {1, 3, 1}),
          [](const auto& x) { return x[0].index_add(0, x[1], x[2]); },
          Opt(kMath).gradgrad().call("index_add", {{"dim", 0}})),
      op(
          g, "index_copy", with_index(fixed({{{4, 3}, {2, 3}}}), 1, {2, 0}),
          [](const auto& x) { return x[0].index_copy(0, x[1], x[2]); },
          Opt(exact).gradgrad().call("index_copy", {{"dim", 0}})),
      op(
          g, "index_fill", with_index(mat, 1, {0, 2}),
          [](const auto& x) { return x[0].index_fill(1, x[1], -1.5); },
          Opt().gradgrad().call("index_fill", {{"dim", 1}, {"value", -1.5}})),
      op(
          g, "index_fill_tensor_value", with_index(fixed({{{3, 4}, {}}}), 1, {2, 0, 2}),
          [](const auto& x) { return x[0].index_fill(1, x[1], x[2]); },
          Opt().gradgrad().call("index_fill", {{"dim", 1}})),
      op(
          g, "masked_scatter",
          with_input(fixed({{{3, 4}, {12}}}), 1, [](const NTensor& x) { return x.gt(0); }),
          [](const auto& x) { return x[0].masked_scatter(x[1], x[2]); },
          Opt(exact).gradgrad().call("masked_scatter")),
  };
}

static const bool registered = add_entries(elementwise_entries()) && add_entries(scan_entries()) &&
                               add_entries(linalg_entries()) && add_entries(shape_entries());

}  // namespace
}  // namespace conform
