// Type promotion against LibTorch, table-driven over every pair of dtypes and every
// mix of 0-d / n-d operands and Scalars; and error behaviour: misuse that LibTorch
// rejects must raise nabla::Error naming the op.
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <map>

#include "table.h"

namespace conform {
namespace {

// ---- Promotion ------------------------------------------------------------------------
// Needs LibTorch as the reference: left out of a build without it.
#if NABLA_CONFORMANCE_LIBTORCH

using nabla::ScalarType;

struct BinaryCase {
  const char* name;
  std::function<NTensor(const NTensor&, const NTensor&)> n;
  std::function<TTensor(const TTensor&, const TTensor&)> t;
};

template <class F>
BinaryCase both(const char* name, F f) {
  return {name, [f](const NTensor& a, const NTensor& b) -> NTensor { return f(a, b); },
          [f](const TTensor& a, const TTensor& b) -> TTensor { return f(a, b); }};
}

const std::vector<BinaryCase>& tensor_tensor_ops() {
  static const std::vector<BinaryCase> ops = {
      both("add", [](const auto& a, const auto& b) { return a.add(b); }),
      both("sub", [](const auto& a, const auto& b) { return a.sub(b); }),
      both("mul", [](const auto& a, const auto& b) { return a.mul(b); }),
      both("div", [](const auto& a, const auto& b) { return a.div(b); }),
      both("remainder", [](const auto& a, const auto& b) { return a.remainder(b); }),
      both("pow", [](const auto& a, const auto& b) { return a.pow(b); }),
      both("atan2", [](const auto& a, const auto& b) { return a.atan2(b); }),
      both("maximum", [](const auto& a, const auto& b) { return a.maximum(b); }),
      both("minimum", [](const auto& a, const auto& b) { return a.minimum(b); }),
      both("eq", [](const auto& a, const auto& b) { return a.eq(b); }),
      both("lt", [](const auto& a, const auto& b) { return a.lt(b); }),
      both("logical_and", [](const auto& a, const auto& b) { return a.logical_and(b); }),
      both("bitwise_or", [](const auto& a, const auto& b) { return a.bitwise_or(b); }),
      both("where", [](const auto& a, const auto& b) { return a.where(a.ne(b), b); }),
      both("add_",
           [](const auto& a, const auto& b) {
             auto c = a.clone();
             c.add_(b);
             return c;
           }),
      both("mul_",
           [](const auto& a, const auto& b) {
             auto c = a.clone();
             c.mul_(b);
             return c;
           }),
  };
  return ops;
}

// Scalar operands of each kind; `b` is ignored.
const std::vector<BinaryCase>& tensor_scalar_ops() {
  static const std::vector<BinaryCase> ops = {
      both("add_bool", [](const auto& a, const auto&) { return a.add(true); }),
      both("add_int", [](const auto& a, const auto&) { return a.add(2); }),
      both("add_float", [](const auto& a, const auto&) { return a.add(2.5); }),
      both("mul_int", [](const auto& a, const auto&) { return a.mul(3); }),
      both("mul_float", [](const auto& a, const auto&) { return a.mul(0.5); }),
      both("div_int", [](const auto& a, const auto&) { return a.div(2); }),
      both("sub_float", [](const auto& a, const auto&) { return a.sub(1.5); }),
      both("pow_int", [](const auto& a, const auto&) { return a.pow(2); }),
      both("pow_float", [](const auto& a, const auto&) { return a.pow(0.5); }),
      both("remainder_int", [](const auto& a, const auto&) { return a.remainder(2); }),
      both("remainder_float", [](const auto& a, const auto&) { return a.remainder(1.5); }),
      both("eq_float", [](const auto& a, const auto&) { return a.eq(1.0); }),
      both("gt_int", [](const auto& a, const auto&) { return a.gt(1); }),
      both("clamp_float", [](const auto& a, const auto&) { return a.clamp(0.5, 2.5); }),
      both("add_scalar_",
           [](const auto& a, const auto&) {
             auto c = a.clone();
             c.add_(2);
             return c;
           }),
      both("mul_float_",
           [](const auto& a, const auto&) {
             auto c = a.clone();
             c.mul_(1.5);
             return c;
           }),
  };
  return ops;
}

// Reported differences (see docs/testing.md): counted and printed, not failed.
std::string known_difference(const std::string& op, const NTensor& a, const NTensor& b) {
  bool has_bool = a.scalar_type() == nabla::kBool || b.scalar_type() == nabla::kBool;
  if ((op == "sub" || op == "sub_float") && has_bool)
    return "LibTorch rejects subtraction with any bool operand; nabla only when both are bool";
  if (op == "clamp_float" && a.scalar_type() == nabla::kBool)
    return "LibTorch clamps a bool tensor after promotion; nabla rejects it";
  return "";
}

struct Mismatches {
  std::vector<std::string> list;
  std::map<std::string, int> known;
  void add(const std::string& s) { list.push_back(s); }
  void report(const char* what) {
    for (const auto& [why, n] : known)
      std::cout << "[conformance] known " << what << " difference, " << n << " cases: " << why
                << "\n";
    if (list.empty()) return;
    std::string msg;
    for (size_t i = 0; i < list.size() && i < 40; ++i) msg += "\n  " + list[i];
    ADD_FAILURE() << list.size() << " " << what << " cases differ from LibTorch:" << msg;
  }
};

void check_pair(const BinaryCase& c, const NTensor& a, const NTensor& b, Mismatches& bad) {
  ++coverage().promotion_cases;
  std::string where = std::string(c.name) + "(" + describe(a) + ", " + describe(b) + ")";
  std::string known = known_difference(c.name, a, b);
  if (!known.empty()) {
    ++bad.known[known];
    return;
  }
  TTensor want;
  bool torch_threw = false;
  try {
    want = c.t(to_torch(a), to_torch(b));
  } catch (const std::exception&) {  // c10::Error, or std::runtime_error from a few checks
    torch_threw = true;
  }
  try {
    NTensor got = c.n(a, b);
    if (torch_threw)
      return bad.add(where + ": LibTorch throws, nabla gives " +
                     std::string(nabla::dtype_name(got.scalar_type())));
    std::string diff = compare(want, got, 1e-5, 1e-6);
    if (!diff.empty()) bad.add(where + ": " + diff);
  } catch (const nabla::Error& e) {
    if (!torch_threw)
      bad.add(where + ": nabla throws (" + std::string(e.what()).substr(0, 80) +
              "), LibTorch gives " + c10::toString(want.scalar_type()));
  }
}

// The computing dtypes: kAllTypes and the narrow integers, whose promotions (uint8 with
// int8 gives int16) are the ones an order of dtypes gets wrong.
const std::vector<ScalarType> kPromotionTypes = [] {
  std::vector<ScalarType> v = kAllTypes;
  v.push_back(nabla::kChar);
  v.push_back(nabla::kShort);
  return v;
}();

// promoteTypes over all ten dtypes (16-bit floats included).
TEST(promotion, promote_types_table) {
  const std::vector<ScalarType> all = {nabla::kBool,   nabla::kByte,    nabla::kChar, nabla::kShort,
                                       nabla::kInt,    nabla::kLong,    nabla::kHalf, nabla::kFloat,
                                       nabla::kDouble, nabla::kBFloat16};
  for (ScalarType a : all)
    for (ScalarType b : all)
      EXPECT_EQ(to_torch(nabla::promoteTypes(a, b)), at::promoteTypes(to_torch(a), to_torch(b)))
          << nabla::toString(a) << " with " << nabla::toString(b);
}

// Positive values (1..3, or 0/1 for bool) keep every op defined in every dtype.
NTensor operand(Rng& rng, ScalarType t, bool zero_dim) {
  return make(rng, zero_dim ? Shape{} : Shape{3}, t, {1, 3});
}

TEST(promotion, tensor_tensor_all_dtype_pairs) {
  Rng rng(42);
  Mismatches bad;
  for (const auto& c : tensor_tensor_ops())
    for (ScalarType ta : kPromotionTypes)
      for (ScalarType tb : kPromotionTypes)
        for (int dims = 0; dims < 4; ++dims)  // (n-d, n-d), (0-d, n-d), (n-d, 0-d), (0-d, 0-d)
          check_pair(c, operand(rng, ta, dims & 1), operand(rng, tb, dims & 2), bad);
  bad.report("tensor-tensor promotion");
}

TEST(promotion, tensor_scalar_all_dtypes) {
  Rng rng(43);
  Mismatches bad;
  for (const auto& c : tensor_scalar_ops())
    for (ScalarType ta : kPromotionTypes)
      for (bool zero_dim : {false, true}) {
        NTensor a = operand(rng, ta, zero_dim);
        check_pair(c, a, a, bad);
      }
  bad.report("tensor-scalar promotion");
}

#endif  // NABLA_CONFORMANCE_LIBTORCH

// ---- Error behaviour --------------------------------------------------------------------

std::vector<OpEntry> error_entries() {
  const std::string g = "errors";
  auto e = [](const char* fragment) { return Opt().dtypes(kFloatsAndLong).throws(fragment); };
  return {
      op(
          g, "add_shape_mismatch", fixed({{{3}, {4}}, {{2, 3}, {3, 2}}}),
          [](const auto& x) { return x[0].add(x[1]); }, Opt(e("add")).call("add")),
      op(
          g, "mul_shape_mismatch", fixed({{{2, 3}, {2, 4}}}),
          [](const auto& x) { return x[0].mul(x[1]); }, Opt(e("mul")).call("mul")),
      op(
          g, "add_inplace_would_grow", fixed({{{3}, {2, 3}}}),
          [](const auto& x) {
            auto y = x[0].clone();
            y.add_(x[1]);
            return y;
          },
          e("add")),
      op(
          g, "exp_inplace_on_int", fixed({{{3}}}),
          [](const auto& x) {
            auto y = x[0].to(dtype_for(x[0], nabla::kLong));
            y.exp_();
            return y;
          },
          e("exp")),
      op(
          g, "sub_bools", fixed({{{3}}}),
          [](const auto& x) {
            auto b = x[0].gt(0);
            return b.sub(b);
          },
          e("sub")),
      op(
          g, "bitwise_and_floats", fixed({{{3}, {3}}}),
          [](const auto& x) { return x[0].to(dtype_for(x[0], nabla::kFloat)).bitwise_and(x[1]); },
          e("bitwise_and")),
      op(
          g, "pow_int_negative_scalar", fixed({{{3}}}),
          [](const auto& x) { return x[0].to(dtype_for(x[0], nabla::kLong)).pow(-1); }, e("pow")),
      op(
          g, "remainder_int_by_zero", fixed({{{3}}}),
          [](const auto& x) {
            auto i = x[0].to(dtype_for(x[0], nabla::kLong));
            return i.remainder(i.mul(0));
          },
          e("remainder")),
      op(
          g, "where_float_condition", fixed({{{3}, {3}}}),
          [](const auto& x) { return x[1].where(x[0].to(dtype_for(x[0], nabla::kFloat)), x[1]); },
          e("where")),
      op(
          g, "clamp_without_bounds", fixed({{{3}}}), [](const auto& x) { return x[0].clamp(); },
          e("clamp")),
      op(
          g, "transpose_bad_dim", fixed({{{2, 3}}}),
          [](const auto& x) { return x[0].transpose(0, 2); }, e("transpose")),
      op(
          g, "select_out_of_range", fixed({{{2, 3}}}),
          [](const auto& x) { return x[0].select(1, 3); }, e("select")),
      op(
          g, "expand_incompatible", fixed({{{3}}}), [](const auto& x) { return x[0].expand({4}); },
          e("expand")),
      op(
          g, "expand_fewer_dims", fixed({{{2, 3}}}), [](const auto& x) { return x[0].expand({3}); },
          e("expand")),
      op(
          g, "permute_wrong_length", fixed({{{2, 3}}}),
          [](const auto& x) { return x[0].permute({0}); }, e("permute")),
      op(
          g, "view_wrong_numel", fixed({{{2, 3}}}),
          [](const auto& x) {
            return x[0].view({4, 2});
          },
          e("view")),
      op(
          g, "view_non_contiguous", fixed({{{2, 3}}}),
          [](const auto& x) { return x[0].t().view({6}); }, e("view")),
      op(
          g, "narrow_out_of_range", fixed({{{4}}}),
          [](const auto& x) { return x[0].narrow(0, 3, 2); }, e("narrow")),
      op(
          g, "squeeze_bad_dim", fixed({{{2, 3}}}), [](const auto& x) { return x[0].squeeze(2); },
          e("squeeze")),
      op(
          g, "isclose_dtype_mismatch", fixed({{{3}}}),
          [](const auto& x) { return x[0].isclose(x[0].to(dtype_for(x[0], nabla::kDouble))); },
          Opt().dtypes({nabla::kFloat, nabla::kLong}).throws("isclose")),
  };
}

const bool registered = add_entries(error_entries());

}  // namespace
}  // namespace conform
