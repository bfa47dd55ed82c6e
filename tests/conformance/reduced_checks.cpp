// The op table in 16-bit floats (test_conformance_16bit, ctest conformance.16bit): every
// entry that takes float32 runs its samples again with each floating input rounded to
// BFloat16 and to Half, against the entry on float32 copies of those same rounded values.
// nabla computes a 16-bit op in float32 and rounds each result once (Note [16-bit
// compute]), so a result must be within a rounding of the float32 result, measured
// normwise: |got - want| <= atol + rtol (|want| + max |want|) with rtol = 2^-8 for BFloat16
// and 2^-11 for Half (half a unit in the last place), atol covering results below the
// 16-bit normal range, both scaled by the entry's Tol::scale16 where it rounds more than
// once (a composite of several ops). Factories are left out: their dtype is their own.
// Gradients are allowed kGradientRoundings times that (see there). An entry whose 16-bit
// result may legitimately differ by more (a comparison against a rounded threshold, a
// conversion to integers after arithmetic) says why with Opt::no16.
// A floating result must come back in the 16-bit dtype; integer and bool results (argmax,
// comparisons) must be equal. The gradients of every floating input, for the same random
// output gradients (rounded too), are checked the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "conformance.h"
#include "nabla/autograd/autograd.h"

namespace conform {
namespace {

constexpr int kSeeds = 2;
constexpr int kMaxReports = 3;
// A backward formula is several ops (grad * other, then a sum over a broadcast dim; a
// chain rule's factors), not all computed in float32 as one: gradients may be a few
// roundings off.
constexpr double kGradientRoundings = 4;

nabla::Tensor rounded(const nabla::Tensor& t, nabla::ScalarType low) {
  return t.defined() && t.scalar_type() == nabla::kFloat ? t.detach().to(low) : t;
}
nabla::Tensor widened(const nabla::Tensor& t) {
  return t.defined() && nabla::isReducedFloatingType(t.scalar_type()) ? t.to(nabla::kFloat) : t;
}

struct Bounds {
  double rtol, atol;
};
Bounds bounds(nabla::ScalarType low, double scale) {
  const bool bf16 = low == nabla::kBFloat16;
  // Half a unit in the last place; below the normal range the spacing is absolute.
  const double rtol = bf16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
  const double atol = bf16 ? 1e-30 : std::ldexp(1.0, -24);
  return {rtol * scale, atol * scale};
}

std::string compare(const nabla::Tensor& want, const nabla::Tensor& got, nabla::ScalarType low,
                    double scale) {
  if (want.defined() != got.defined()) return "one side undefined";
  if (!want.defined()) return "";
  std::ostringstream m;
  const nabla::ScalarType expect = want.scalar_type() == nabla::kFloat ? low : want.scalar_type();
  if (got.sizes() != want.sizes() || got.scalar_type() != expect) {
    m << "got " << got.sizes() << " " << got.scalar_type() << ", want " << want.sizes() << " "
      << expect;
    return m.str();
  }
  if (want.numel() == 0) return "";
  if (!want.is_floating_point()) return nabla::equal(got, want) ? "" : "integer values differ";
  const Bounds b = bounds(low, scale);
  const nabla::Tensor w = want.to(nabla::kDouble), g = got.to(nabla::kDouble);
  // Normwise: an op that rounds products before summing them (a broadcast operand's
  // gradient, a composite) errs by a rounding of its largest terms, not of each result.
  const nabla::Tensor finite = w.isfinite();
  const double largest =
      finite.any().item<bool>() ? w.masked_select(finite).abs().max().item<double>() : 0.0;
  // A float32 result beyond the 16-bit range rounds to an infinity of its sign.
  const double max = low == nabla::kBFloat16 ? 3.3895e38 : 65504.0;
  const nabla::Tensor overflow = w.abs().gt(max).logical_and(g.isinf());
  const nabla::Tensor both_nan = w.isnan().logical_and(g.isnan());
  const nabla::Tensor same_inf = w.isinf().logical_and(w == g);
  const nabla::Tensor close = ((g - w).abs() <= b.atol + b.rtol * (w.abs() + largest))
                                  .logical_or(both_nan)
                                  .logical_or(same_inf)
                                  .logical_or(overflow);
  if (close.all().item<bool>()) return "";
  const nabla::Tensor err = ((g - w).abs() - b.rtol * w.abs()).nan_to_num(1e300).reshape({-1});
  const int64_t at = err.argmax().item<int64_t>();
  m << "at flat index " << at << ": " << nabla::dtype_name(low) << " "
    << g.reshape({-1})[at].item<double>() << ", float32 " << w.reshape({-1})[at].item<double>();
  return m.str();
}

struct Outcome {
  std::vector<nabla::Tensor> out;
  std::string error;
};

Outcome run(const OpEntry& e, const std::vector<nabla::Tensor>& inputs) {
  Outcome r;
  nabla::manual_seed(5);  // random entries draw the same numbers in both runs
  try {
    r.out = e.nabla_fn(inputs).list;
  } catch (const nabla::Error& err) {
    r.error = err.what();
  }
  return r;
}

class ReducedEntryTest : public ::testing::Test {
 public:
  ReducedEntryTest(const OpEntry* e, nabla::ScalarType low) : e_(e), low_(low) {}

  void TestBody() override {
    int failures = 0;
    auto fail = [&](const std::string& where, const std::string& what) {
      if (++failures <= kMaxReports) ADD_FAILURE() << e_->name << " " << where << ": " << what;
    };
    for (int seed = 1; seed <= kSeeds; ++seed) {
      Rng rng(static_cast<uint64_t>(seed) * 7919u + std::hash<std::string>{}(e_->name));
      for (const Sample& s : e_->gen(rng, nabla::kFloat)) {
        const std::string where = "[" + std::string(nabla::dtype_name(low_)) + ", seed " +
                                  std::to_string(seed) + ", inputs " + s.what + "]";
        check(s, where, seed == 1 && e_->grad, fail);
      }
    }
    if (failures > kMaxReports)
      ADD_FAILURE() << e_->name << ": " << failures - kMaxReports << " more differences";
  }

 private:
  template <class Fail>
  void check(const Sample& s, const std::string& where, bool gradients, Fail& fail) {
    std::vector<nabla::Tensor> low_in, ref_in;
    bool any_float = false;
    for (const nabla::Tensor& t : s.inputs) {
      any_float |= t.defined() && t.scalar_type() == nabla::kFloat;
      low_in.push_back(rounded(t, low_));
      ref_in.push_back(widened(low_in.back()));
    }
    if (!any_float) return;
    const Outcome want = run(*e_, ref_in);
    if (!want.error.empty()) return;  // the entry's error samples
    const Outcome got = run(*e_, low_in);
    if (!got.error.empty()) return fail(where, "raised in 16-bit: " + got.error);
    if (want.out.size() != got.out.size()) return fail(where, "different numbers of outputs");
    for (size_t i = 0; i < want.out.size(); ++i) {
      const std::string d = compare(want.out[i], got.out[i], low_, e_->tol.scale16);
      if (!d.empty()) fail(where + " output " + std::to_string(i), d);
    }
    if (gradients) check_gradients(low_in, ref_in, where, fail);
  }

  // The gradients of every floating input for the same output gradients.
  template <class Fail>
  void check_gradients(const std::vector<nabla::Tensor>& low_in,
                       const std::vector<nabla::Tensor>& ref_in, const std::string& where,
                       Fail& fail) {
    std::vector<nabla::Tensor> lows, refs;
    std::vector<size_t> which;
    for (size_t i = 0; i < low_in.size(); ++i)
      if (low_in[i].defined() && nabla::isReducedFloatingType(low_in[i].scalar_type())) {
        lows.push_back(low_in[i].detach().requires_grad_());
        refs.push_back(ref_in[i].detach().requires_grad_());
        which.push_back(i);
      }
    std::vector<nabla::Tensor> l_args = low_in, r_args = ref_in;
    for (size_t k = 0; k < which.size(); ++k) {
      l_args[which[k]] = lows[k];
      r_args[which[k]] = refs[k];
    }
    const Outcome want = run(*e_, r_args), got = run(*e_, l_args);
    if (!want.error.empty() || !got.error.empty() || want.out.size() != got.out.size()) return;
    std::vector<nabla::Tensor> w_outs, g_outs, w_grads, g_grads;
    Rng rng(104729u + std::hash<std::string>{}(e_->name));
    for (size_t i = 0; i < want.out.size(); ++i) {
      const nabla::Tensor &w = want.out[i], &g = got.out[i];
      if (!w.defined() || !w.is_floating_point() || !w.requires_grad() || !g.defined() ||
          !g.requires_grad())
        continue;
      const nabla::Tensor grad = make(rng, w.sizes().vec(), nabla::kFloat).to(low_);
      w_outs.push_back(w);
      g_outs.push_back(g);
      w_grads.push_back(grad.to(nabla::kFloat));
      g_grads.push_back(grad.to(g.scalar_type()));
    }
    if (w_outs.empty()) return;
    std::vector<nabla::Tensor> wg, gg;
    try {
      wg = nabla::autograd::grad(w_outs, refs, w_grads, false, false, true);
      gg = nabla::autograd::grad(g_outs, lows, g_grads, false, false, true);
    } catch (const nabla::Error& err) {
      return fail(where + " gradient", std::string("backward raised: ") + err.what());
    }
    for (size_t k = 0; k < wg.size(); ++k) {
      const std::string d = compare(wg[k], gg[k], low_, kGradientRoundings * e_->tol.scale16);
      if (!d.empty()) fail(where + " gradient of input " + std::to_string(which[k]), d);
    }
  }

  const OpEntry* e_;
  nabla::ScalarType low_;
};

void register_tests() {
  for (const OpEntry& e : registry()) {
    if (!e.error_fragment.empty() || e.group == "factories" || !e.no16.empty() ||
        std::find(e.dtypes.begin(), e.dtypes.end(), nabla::kFloat) == e.dtypes.end())
      continue;
    const OpEntry* p = &e;
    for (nabla::ScalarType low : {nabla::kBFloat16, nabla::kHalf}) {
      const std::string suite =
          std::string(low == nabla::kBFloat16 ? "BFloat16_" : "Half_") + e.group;
      ::testing::RegisterTest(
          suite.c_str(), e.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
          [p, low]() -> ::testing::Test* { return new ReducedEntryTest(p, low); });
    }
  }
}

}  // namespace
}  // namespace conform

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  conform::register_tests();
  return RUN_ALL_TESTS();
}
