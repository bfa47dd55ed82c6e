// Conformance entries: elementwise unary, binary, comparison and logical ops, clamp,
// where, pow, in-place forms and operators. Dtypes: all six for ops on any dtype —
// where LibTorch rejects a dtype (frac of int64, bitwise ops on floats) nabla must
// reject it too, and the driver checks exactly that.
#include "table.h"

namespace conform {
namespace {

using nabla::kBool;
using nabla::kDouble;
using nabla::kFloat;
using nabla::kLong;

// Unary ops whose float results come from libm-style functions: a few ULP of float32.
const std::vector<nabla::ScalarType> kNoUint8 = {kFloat, kDouble, kLong, nabla::kInt, kBool};
const Opt kTranscendental = Opt().dtypes(kAllTypes).tol32(2e-5, 2e-6).tol64(1e-12, 1e-14);
// C++ Scalar - Tensor: nabla's node is not LibTorch's (the one marked node-name difference).
const char* const kRsubNodeName =
    "LibTorch's C++ 2.5 - x is a fill then sub_ (SubBackward0); nabla computes Python's rsub "
    "(RsubBackward1)";

std::vector<OpEntry> unary_entries() {
  const std::string g = "elementwise";
  const Opt all = Opt().dtypes(kAllTypes);
  const std::string kJumps = "a step function: the samples' zeros sit on its jumps";
  const Opt tr = kTranscendental;
  return {
      op(
          g, "neg", unary(kSpecials), [](const auto& x) { return x[0].neg(); },
          Opt(all).call("neg")),
      op(
          g, "abs", unary(kSpecials), [](const auto& x) { return x[0].abs(); },
          Opt(all).call("abs")),
      op(
          g, "sqrt", unary(kPositive), [](const auto& x) { return x[0].sqrt(); },
          Opt(tr).call("sqrt")),
      op(
          g, "sqrt_negative_is_nan", unary(kAny), [](const auto& x) { return x[0].sqrt(); },
          Opt(tr).call("sqrt")),
      op(
          g, "rsqrt", unary(kPositive), [](const auto& x) { return x[0].rsqrt(); },
          Opt(tr).call("rsqrt")),
      op(
          g, "exp", unary(kWide), [](const auto& x) { return x[0].exp(); }, Opt(tr).call("exp")),
      op(
          g, "exp_specials", unary(kSpecials), [](const auto& x) { return x[0].exp(); },
          Opt(tr).call("exp")),
      op(
          g, "exp2", unary(kWide), [](const auto& x) { return x[0].exp2(); }, Opt(tr).call("exp2")),
      op(
          g, "log", unary(kPositive), [](const auto& x) { return x[0].log(); },
          Opt(tr).call("log")),
      op(
          g, "log_specials", unary(kSpecials), [](const auto& x) { return x[0].log(); },
          Opt(tr).call("log")),
      op(
          g, "log2", unary(kPositive), [](const auto& x) { return x[0].log2(); },
          Opt(tr).call("log2")),
      op(
          g, "log10", unary(kPositive), [](const auto& x) { return x[0].log10(); },
          Opt(tr).call("log10")),
      op(
          g, "log1p", unary({-0.9, 4}), [](const auto& x) { return x[0].log1p(); },
          Opt(tr).call("log1p")),
      op(
          g, "expm1", unary(kAny), [](const auto& x) { return x[0].expm1(); },
          Opt(tr).call("expm1")),
      op(
          g, "sin", unary(kWide), [](const auto& x) { return x[0].sin(); }, Opt(tr).call("sin")),
      op(
          g, "cos", unary(kWide), [](const auto& x) { return x[0].cos(); }, Opt(tr).call("cos")),
      op(
          g, "tan", unary({-1.4, 1.4}), [](const auto& x) { return x[0].tan(); },
          Opt(tr).call("tan")),
      op(
          g, "asin", unary(kUnit), [](const auto& x) { return x[0].asin(); }, Opt(tr).call("asin")),
      op(
          g, "acos", unary(kUnit), [](const auto& x) { return x[0].acos(); }, Opt(tr).call("acos")),
      op(
          g, "atan", unary(kWide), [](const auto& x) { return x[0].atan(); }, Opt(tr).call("atan")),
      op(
          g, "sinh", unary(kAny), [](const auto& x) { return x[0].sinh(); }, Opt(tr).call("sinh")),
      op(
          g, "cosh", unary(kAny), [](const auto& x) { return x[0].cosh(); }, Opt(tr).call("cosh")),
      op(
          g, "tanh", unary(kWide), [](const auto& x) { return x[0].tanh(); }, Opt(tr).call("tanh")),
      op(
          g, "leaky_relu", unary(kWide), [](const auto& x) { return leaky_relu(x[0], 0.2); },
          Opt(tr).call("leaky_relu", {{"negative_slope", 0.2}})),
      op(
          g, "elu", unary(kWide), [](const auto& x) { return elu(x[0], 1.5); },
          Opt(tr).call("elu", {{"alpha", 1.5}})),
      op(
          g, "gelu", unary(kWide), [](const auto& x) { return gelu(x[0], "none"); },
          Opt(tr).call("gelu", {{"approximate", std::string("none")}})),
      op(
          g, "gelu_tanh", unary(kWide), [](const auto& x) { return gelu(x[0], "tanh"); },
          Opt(tr).call("gelu", {{"approximate", std::string("tanh")}})),
      op(
          g, "silu", unary(kWide), [](const auto& x) { return silu(x[0]); }, Opt(tr).call("silu")),
      op(
          g, "softplus", unary(kWide), [](const auto& x) { return softplus(x[0], 2, 5); },
          Opt(tr).call("softplus", {{"beta", 2}, {"threshold", 5}})),
      op(
          g, "free_functions", binary(kPositive, {2, 3}),
          [](const auto& x) { return add(exp(x[0]), where(x[0] > x[1], x[0], x[1]), 2); }, tr),
      op(
          g, "tanh_specials", unary(kSpecials), [](const auto& x) { return x[0].tanh(); },
          Opt(tr).call("tanh")),
      op(
          g, "sigmoid", unary(kWide), [](const auto& x) { return x[0].sigmoid(); },
          Opt(tr).call("sigmoid")),
      op(
          g, "sigmoid_specials", unary(kSpecials), [](const auto& x) { return x[0].sigmoid(); },
          Opt(tr).call("sigmoid")),
      op(
          g, "relu", unary(kSpecials), [](const auto& x) { return x[0].relu(); },
          Opt(all).call("relu")),
      op(
          g, "erf", unary(kAny), [](const auto& x) { return x[0].erf(); }, Opt(tr).call("erf")),
      op(
          g, "floor", unary(kSpecials), [](const auto& x) { return x[0].floor(); },
          Opt(all).no_fd(kJumps).call("floor")),
      op(
          g, "ceil", unary(kSpecials), [](const auto& x) { return x[0].ceil(); },
          Opt(all).no_fd(kJumps).call("ceil")),
      op(
          g, "round", unary(kWide), [](const auto& x) { return x[0].round(); },
          Opt(all).call("round")),
      op(
          g, "round_half_even", fixed({{{8}}}, {-4, 4}),
          [](const auto& x) { return x[0].mul(4).round().mul(0.5); }, all),
      op(
          g, "trunc", unary(kSpecials), [](const auto& x) { return x[0].trunc(); },
          Opt(all).no_fd(kJumps).call("trunc")),
      op(
          g, "frac", unary(kWide), [](const auto& x) { return x[0].frac(); },
          Opt(all).call("frac")),
      op(
          g, "sign", unary(kSpecials), [](const auto& x) { return x[0].sign(); },
          Opt(all).no_fd(kJumps).call("sign")),
      op(
          g, "reciprocal", unary(kSpecials), [](const auto& x) { return x[0].reciprocal(); },
          Opt(tr).call("reciprocal")),
      op(
          g, "square", unary(kAny), [](const auto& x) { return x[0].square(); },
          Opt(all)
              .differs("square of a bool tensor is int64 in LibTorch, an error in nabla")
              .call("square")),
      op(
          g, "logical_not", unary(kSpecials), [](const auto& x) { return x[0].logical_not(); },
          Opt(all).call("logical_not")),
      op(
          g, "bitwise_not", unary(kAny), [](const auto& x) { return x[0].bitwise_not(); },
          Opt(all).call("bitwise_not")),
      op(
          g, "operator_tilde", unary(kAny), [](const auto& x) { return ~x[0]; }, all),
      op(
          g, "operator_minus", unary(kAny), [](const auto& x) { return -x[0]; }, all),
      op(
          g, "isnan", unary(kSpecials), [](const auto& x) { return x[0].isnan(); },
          Opt(all).call("isnan")),
      op(
          g, "isinf", unary(kSpecials), [](const auto& x) { return x[0].isinf(); },
          Opt(all).call("isinf")),
      op(
          g, "isfinite", unary(kSpecials), [](const auto& x) { return x[0].isfinite(); },
          Opt(all).call("isfinite")),
      // pow with a Scalar exponent: integer, fractional, negative, zero.
      op(
          g, "pow_scalar_2", unary(kAny), [](const auto& x) { return x[0].pow(2); },
          Opt(all).call("pow", {{"exponent", 2}})),
      op(
          g, "pow_scalar_3", unary(kAny), [](const auto& x) { return x[0].pow(3); },
          Opt(all).call("pow", {{"exponent", 3}})),
      op(
          g, "pow_scalar_0", unary(kSpecials), [](const auto& x) { return x[0].pow(0); },
          Opt(all).call("pow", {{"exponent", 0}})),
      op(
          g, "pow_scalar_half", unary(kPositive), [](const auto& x) { return x[0].pow(0.5); },
          Opt(tr).call("pow", {{"exponent", 0.5}})),
      op(
          g, "pow_scalar_neg_half", unary(kSpecials), [](const auto& x) { return x[0].pow(-0.5); },
          Opt(tr).call("pow", {{"exponent", -0.5}})),
      op(
          g, "pow_scalar_neg1", unary(kNonZero), [](const auto& x) { return x[0].pow(-1); },
          Opt(tr).call("pow", {{"exponent", -1}})),
      op(
          g, "pow_scalar_2_5", unary(kPositive), [](const auto& x) { return x[0].pow(2.5); },
          Opt(tr).call("pow", {{"exponent", 2.5}})),
      op(
          g, "pow_scalar_float_2", unary(kAny), [](const auto& x) { return x[0].pow(2.0); },
          Opt(tr).call("pow", {{"exponent", 2.0}})),
      // clamp
      op(
          g, "clamp", unary(kSpecials), [](const auto& x) { return x[0].clamp(-0.5, 0.7); },
          Opt(all)
              .differs("clamp of a bool tensor with float bounds gives float32 in LibTorch, an "
                       "error in nabla")
              .call("clamp", {{"min", -0.5}, {"max", 0.7}})),
      // uint8 is left out where a bound is negative: LibTorch wraps -1 to 255 there.
      op(
          g, "clamp_int_bounds", unary(kWide), [](const auto& x) { return x[0].clamp(-1, 2); },
          Opt(all)
              .dtypes(kNoUint8)
              .differs("clamp of a bool tensor with int bounds gives "
                       "int64 in LibTorch, an error in nabla")
              .call("clamp", {{"min", -1}, {"max", 2}})),
      op(
          g, "clamp_min", unary(kSpecials), [](const auto& x) { return x[0].clamp_min(0.25); },
          Opt(all)
              .differs("clamp_min of a bool tensor: LibTorch promotes, nabla rejects")
              .call("clamp_min", {{"min", 0.25}})),
      op(
          g, "clamp_max", unary(kSpecials), [](const auto& x) { return x[0].clamp_max(-0.25); },
          Opt(all)
              .differs("clamp_max of a bool tensor: LibTorch promotes, nabla rejects")
              .call("clamp_max", {{"max", -0.25}})),
      op(
          g, "clamp_min_only_optional", unary(kAny), [](const auto& x) { return x[0].clamp(0.5); },
          Opt(all)
              .differs("clamp of a bool tensor: LibTorch promotes, nabla rejects")
              .call("clamp", {{"min", 0.5}})),
      op(
          g, "clamp_inverted_bounds", unary(kAny), [](const auto& x) { return x[0].clamp(1, -1); },
          Opt(all)
              .differs("clamp with min > max gives max everywhere in LibTorch (min(max(x, lo), "
                       "hi)), min in nabla")
              .call("clamp", {{"min", 1}, {"max", -1}})),
      op(
          g, "clip", unary(kAny), [](const auto& x) { return x[0].clip(-1, 1); },
          Opt(all).dtypes(kNoUint8).differs(
              "clip of a bool tensor with int bounds gives int64 in LibTorch, an error in nabla")),
  };
}

std::vector<OpEntry> binary_entries() {
  const std::string g = "elementwise";
  const Opt all = Opt().dtypes(kAllTypes);
  const Opt tr = kTranscendental;
  return {
      op(
          g, "add", binary(), [](const auto& x) { return x[0].add(x[1]); }, Opt(all).call("add")),
      op(
          g, "add_alpha", binary(), [](const auto& x) { return x[0].add(x[1], 2); },
          Opt(all).call("add", {{"alpha", 2}})),
      op(
          g, "add_float_alpha", binary(), [](const auto& x) { return x[0].add(x[1], 0.5); },
          Opt(all).call("add", {{"alpha", 0.5}})),
      op(
          g, "sub", binary(), [](const auto& x) { return x[0].sub(x[1]); }, Opt(all).call("sub")),
      op(
          g, "sub_alpha", binary(), [](const auto& x) { return x[0].sub(x[1], 3); },
          Opt(all).call("sub", {{"alpha", 3}})),
      op(
          g, "mul", binary(), [](const auto& x) { return x[0].mul(x[1]); }, Opt(all).call("mul")),
      op(
          g, "div", binary_divisor(), [](const auto& x) { return x[0].div(x[1]); },
          Opt(tr).call("div")),
      op(
          g, "div_by_zero", binary(kSpecials, {0, 0}), [](const auto& x) { return x[0].div(x[1]); },
          Opt(tr).call("div")),
      op(
          g, "remainder", binary_divisor(kWide), [](const auto& x) { return x[0].remainder(x[1]); },
          Opt(all).call("remainder")),
      op(
          g, "remainder_by_zero", binary(kAny, {0, 0}),
          [](const auto& x) { return x[0].remainder(x[1]); }, Opt(all).call("remainder")),
      op(
          g, "pow", binary(kPositive, {-2, 3}), [](const auto& x) { return x[0].pow(x[1]); },
          Opt(tr).call("pow")),
      op(
          g, "pow_int_exponent", binary(kAny, {0, 3}), [](const auto& x) { return x[0].pow(x[1]); },
          Opt(tr).call("pow")),
      op(
          g, "pow_negative_exponent", binary(kAny, {-3, -1}),
          [](const auto& x) { return x[0].pow(x[1]); }, Opt(tr).call("pow")),
      op(
          g, "atan2", binary(), [](const auto& x) { return x[0].atan2(x[1]); },
          Opt(tr).call("atan2")),
      op(
          g, "atan2_specials", binary(kSpecials, kSpecials),
          [](const auto& x) { return x[0].atan2(x[1]); }, Opt(tr).call("atan2")),
      op(
          g, "maximum", binary(kSpecials, kSpecials),
          [](const auto& x) { return x[0].maximum(x[1]); }, Opt(all).call("maximum")),
      op(
          g, "minimum", binary(kSpecials, kSpecials),
          [](const auto& x) { return x[0].minimum(x[1]); }, Opt(all).call("minimum")),
      op(
          g, "eq", binary({-1, 1}, {-1, 1}), [](const auto& x) { return x[0].eq(x[1]); },
          Opt(all).call("eq")),
      op(
          g, "ne", binary({-1, 1}, {-1, 1}), [](const auto& x) { return x[0].ne(x[1]); },
          Opt(all).call("ne")),
      op(
          g, "lt", binary(kSpecials, kSpecials), [](const auto& x) { return x[0].lt(x[1]); },
          Opt(all).call("lt")),
      op(
          g, "le", binary({-1, 1}, {-1, 1}), [](const auto& x) { return x[0].le(x[1]); },
          Opt(all).call("le")),
      op(
          g, "gt", binary(kSpecials, kSpecials), [](const auto& x) { return x[0].gt(x[1]); },
          Opt(all).call("gt")),
      op(
          g, "ge", binary({-1, 1}, {-1, 1}), [](const auto& x) { return x[0].ge(x[1]); },
          Opt(all).call("ge")),
      op(
          g, "eq_specials", binary(kSpecials, kSpecials),
          [](const auto& x) { return x[0].eq(x[1]); }, Opt(all).call("eq")),
      op(
          g, "logical_and", binary({-1, 1}, {-1, 1}),
          [](const auto& x) { return x[0].logical_and(x[1]); }, Opt(all).call("logical_and")),
      op(
          g, "logical_or", binary({-1, 1}, {-1, 1}),
          [](const auto& x) { return x[0].logical_or(x[1]); }, Opt(all).call("logical_or")),
      op(
          g, "logical_xor", binary(kSpecials, kSpecials),
          [](const auto& x) { return x[0].logical_xor(x[1]); }, Opt(all).call("logical_xor")),
      op(
          g, "bitwise_and", binary(kWide, kWide),
          [](const auto& x) { return x[0].bitwise_and(x[1]); }, Opt(all).call("bitwise_and")),
      op(
          g, "bitwise_or", binary(kWide, kWide),
          [](const auto& x) { return x[0].bitwise_or(x[1]); }, Opt(all).call("bitwise_or")),
      op(
          g, "bitwise_xor", binary(kWide, kWide),
          [](const auto& x) { return x[0].bitwise_xor(x[1]); }, Opt(all).call("bitwise_xor")),
      op(
          g, "isclose", binary({-1, 1}, {-1, 1}),
          [](const auto& x) { return x[0].isclose(x[1], 0.5, 0.2); },
          Opt(all).no16(kIscloseRounded)),
      op(
          g, "isclose_specials", binary(kSpecials, kSpecials),
          [](const auto& x) { return x[0].isclose(x[1], 0.1, 0.1, true); },
          Opt(all)
              .differs("isclose(finite, inf) is false in LibTorch (the error must be finite), "
                       "true in nabla")
              .no16(kIscloseRounded)),
      op(
          g, "allclose", binary({-1, 1}, {-1, 1}),
          [](const auto& x) { return x[0].allclose(x[0].mul(1 + 1e-7)); }, all),
      op(
          g, "equal", binary(), [](const auto& x) { return x[0].equal(x[0].clone()); }, all),
      op(
          g, "equal_differs", binary(), [](const auto& x) { return x[0].equal(x[1]); }, all),
      // Tensor-Scalar forms: the Scalar's kind (bool, int, float) steers promotion.
      op(
          g, "add_scalar_int", unary(), [](const auto& x) { return x[0].add(3); },
          Opt(all).call("add", {{"other", 3}})),
      op(
          g, "add_scalar_float", unary(), [](const auto& x) { return x[0].add(2.5); },
          Opt(all).call("add", {{"other", 2.5}})),
      op(
          g, "add_scalar_bool", unary(), [](const auto& x) { return x[0].add(true); }, all),
      op(
          g, "add_scalar_alpha", unary(), [](const auto& x) { return x[0].add(2, 3); }, all),
      op(
          g, "sub_scalar", unary(), [](const auto& x) { return x[0].sub(1.5); },
          Opt(all).call("sub", {{"other", 1.5}})),
      op(
          g, "mul_scalar_int", unary(), [](const auto& x) { return x[0].mul(-3); },
          Opt(all).call("mul", {{"other", -3}})),
      op(
          g, "mul_scalar_float", unary(), [](const auto& x) { return x[0].mul(0.25); },
          Opt(all).call("mul", {{"other", 0.25}})),
      op(
          g, "div_scalar_int", unary(), [](const auto& x) { return x[0].div(4); },
          Opt(tr).call("div", {{"other", 4}})),
      op(
          g, "div_scalar_float", unary(), [](const auto& x) { return x[0].div(-0.5); },
          Opt(tr).call("div", {{"other", -0.5}})),
      op(
          g, "remainder_scalar_int", unary(kWide), [](const auto& x) { return x[0].remainder(3); },
          Opt(all).call("remainder", {{"other", 3}})),
      op(
          g, "remainder_scalar_negative", unary(kWide),
          [](const auto& x) { return x[0].remainder(-2); },
          Opt(all).call("remainder", {{"other", -2}})),
      op(
          g, "remainder_scalar_float", unary(kWide),
          [](const auto& x) { return x[0].remainder(1.5); },
          Opt(all).call("remainder", {{"other", 1.5}})),
      op(
          g, "eq_scalar", unary(kWide), [](const auto& x) { return x[0].eq(1); },
          Opt(all).call("eq", {{"other", 1}})),
      op(
          g, "ne_scalar", unary(kWide), [](const auto& x) { return x[0].ne(0); },
          Opt(all).call("ne", {{"other", 0}})),
      op(
          g, "lt_scalar", unary(kSpecials), [](const auto& x) { return x[0].lt(0.5); },
          Opt(all).call("lt", {{"other", 0.5}})),
      op(
          g, "le_scalar", unary(kWide), [](const auto& x) { return x[0].le(1); },
          Opt(all).call("le", {{"other", 1}})),
      op(
          g, "gt_scalar", unary(kSpecials), [](const auto& x) { return x[0].gt(-0.5); },
          Opt(all).call("gt", {{"other", -0.5}})),
      op(
          g, "ge_scalar", unary(kWide), [](const auto& x) { return x[0].ge(2); },
          Opt(all).call("ge", {{"other", 2}})),
      // Operators, including a Scalar on the left.
      op(
          g, "operator_plus", binary(), [](const auto& x) { return x[0] + x[1]; }, all),
      op(
          g, "operator_minus_binary", binary(), [](const auto& x) { return x[0] - x[1]; }, all),
      op(
          g, "operator_times", binary(), [](const auto& x) { return x[0] * x[1]; }, all),
      op(
          g, "operator_divide", binary_divisor(), [](const auto& x) { return x[0] / x[1]; }, tr),
      op(
          g, "operator_mod", binary_divisor(kWide), [](const auto& x) { return x[0] % x[1]; }, all),
      op(
          g, "operator_compare", binary({-1, 1}, {-1, 1}),
          [](const auto& x) { return (x[0] < x[1]).logical_or(x[0] == x[1]); }, all),
      op(
          g, "operator_bitwise", binary(kWide, kWide),
          [](const auto& x) { return (x[0] & x[1]) ^ (x[0] | x[1]); }, all),
      op(
          g, "scalar_minus_tensor", unary(), [](const auto& x) { return 2.5 - x[0]; },
          Opt(all)
              .differs("LibTorch's C++ Scalar-op-Tensor operators compute in the tensor's "
                       "dtype (empty_like(b).fill_(a) then the in-place op): 2.5 - int64 is "
                       "int64 there; nabla promotes like Python")
              .node_name_differs(kRsubNodeName)),
      op(
          g, "scalar_div_tensor", unary(kNonZero), [](const auto& x) { return 3 / x[0]; },
          Opt(tr).differs("LibTorch's C++ Scalar / Tensor is empty_like(b).fill_(a).div_(b): an "
                          "error for integer b there; nabla promotes to float")),
      op(
          g, "scalar_times_tensor", unary(), [](const auto& x) { return 2 * x[0]; },
          Opt(all).call("mul", {{"other", 2}})),
      op(
          g, "scalar_gt_tensor", unary(), [](const auto& x) { return 0.5 > x[0]; }, all),
  };
}

std::vector<OpEntry> ternary_entries() {
  const std::string g = "elementwise";
  const Opt all = Opt().dtypes(kAllTypes);
  const Opt tr = kTranscendental;
  return {
      op(
          g, "where_method", where_samples(), [](const auto& x) { return x[1].where(x[0], x[2]); },
          Opt(all).call("where")),
      op(
          g, "where_uint8_condition", where_samples(),
          [](const auto& x) { return x[1].where(x[0].to(dtype_for(x[0], nabla::kByte)), x[2]); },
          all),
      op(
          g, "where_mixed_dtypes", where_samples(),
          [](const auto& x) { return x[1].where(x[0], x[2].to(dtype_for(x[2], kDouble))); }, all),
      op(
          g, "clamp_tensor_bounds", ternary(kSpecials),
          [](const auto& x) { return x[0].clamp(x[1], x[2]); },
          Opt(all)
              .differs("LibTorch 1.13's clamp backward throws when the bounds broadcast to more "
                       "than self and min do (an in-place logical_and_ in "
                       "clamp_backward_min_max); see clamp_tensor_bounds_gradient")
              .gradgrad()
              .call("clamp")),
      op(
          g, "clamp_tensor_bounds_gradient",
          fixed({{{3, 4}, {3, 4}, {3, 4}}, {{2, 3}, {3}, {1, 3}}, {{4, 1}, {1, 5}, {4, 5}}}),
          [](const auto& x) { return x[0].clamp(x[1], x[2]); }, Opt(all).gradgrad().call("clamp")),
      op(
          g, "clamp_tensor_min_only", binary(kSpecials, kSpecials),
          [](const auto& x) { return x[0].clamp(x[1]); }, Opt(all).gradgrad().call("clamp")),
      op2(
          g, "clamp_tensor_max_only", binary(kSpecials, kSpecials),
          [](const auto& x) { return x[0].clamp(nabla::nullopt, x[1]); },
          LIBTORCH([](const auto& x) { return x[0].clamp(c10::nullopt, x[1]); }),
          Opt(all).gradgrad()),
      op(
          g, "addcmul", ternary(), [](const auto& x) { return x[0].addcmul(x[1], x[2], 0.5); },
          Opt(all).gradgrad().call("addcmul", {{"value", 0.5}})),
      op(
          g, "addcmul_int_value", ternary(),
          [](const auto& x) { return x[0].addcmul(x[1], x[2], 2); },
          Opt(all).gradgrad().call("addcmul", {{"value", 2}})),
      op(
          g, "addcdiv", ternary(kNonZero),
          [](const auto& x) { return x[0].addcdiv(x[1], x[2], -2); },
          Opt(tr).gradgrad().call("addcdiv", {{"value", -2}})),
      op(
          g, "lerp", binary(), [](const auto& x) { return x[0].lerp(x[1], 0.3); },
          Opt(all).gradgrad().call("lerp", {{"weight", 0.3}})),
      op(
          g, "lerp_weight_2", binary(), [](const auto& x) { return x[0].lerp(x[1], 2); },
          Opt(all).gradgrad().call("lerp", {{"weight", 2}})),
  };
}

// In-place forms: the lambda clones first (so the inputs stay intact), then writes. A
// result dtype that self cannot hold or a broadcast that would grow self is an error
// in LibTorch, and must be one in nabla.
std::vector<OpEntry> inplace_entries() {
  const std::string g = "elementwise_inplace";
  const Opt all = Opt().dtypes(kAllTypes);
  const Opt tr = kTranscendental;
  return {
      op(
          g, "add_", binary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.add_(x[1], 2);
            return y;
          },
          all),
      op(
          g, "sub_", binary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.sub_(x[1]);
            return y;
          },
          all),
      op(
          g, "mul_", binary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.mul_(x[1]);
            return y;
          },
          all),
      op(
          g, "div_", binary_divisor(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.div_(x[1]);
            return y;
          },
          tr),
      op(
          g, "pow_", binary(kPositive, {0, 2}),
          [](const auto& x) {
            auto y = x[0].clone();
            y.pow_(x[1]);
            return y;
          },
          tr),
      op(
          g, "add_scalar_", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.add_(1.5);
            return y;
          },
          all),
      op(
          g, "mul_scalar_", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.mul_(3);
            return y;
          },
          all),
      op(
          g, "div_scalar_", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.div_(2);
            return y;
          },
          tr),
      op(
          g, "pow_scalar_", unary(kPositive),
          [](const auto& x) {
            auto y = x[0].clone();
            y.pow_(2);
            return y;
          },
          tr),
      op(
          g, "operator_plus_eq", binary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y += x[1];
            return y;
          },
          all),
      op(
          g, "operator_times_eq_scalar", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y *= 2;
            return y;
          },
          all),
      op(
          g, "exp_", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.exp_();
            return y;
          },
          tr),
      op(
          g, "neg_", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.neg_();
            return y;
          },
          all),
      op(
          g, "abs_", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.abs_();
            return y;
          },
          Opt(all)),
      op(
          g, "relu_", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.relu_();
            return y;
          },
          all),
      op(
          g, "sigmoid_", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.sigmoid_();
            return y;
          },
          tr),
      op(
          g, "floor_", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.floor_();
            return y;
          },
          all),
      op(
          g, "clamp_", unary(kSpecials),
          [](const auto& x) {
            auto y = x[0].clone();
            y.clamp_(-0.5, 0.5);
            return y;
          },
          Opt(all)),
      op(
          g, "clamp_min_", unary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.clamp_min_(0);
            return y;
          },
          all),
      op(
          g, "addcmul_", ternary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.addcmul_(x[1], x[2], 2);
            return y;
          },
          Opt(all)),
      op(
          g, "addcdiv_", ternary(kNonZero),
          [](const auto& x) {
            auto y = x[0].clone();
            y.addcdiv_(x[1], x[2]);
            return y;
          },
          tr),
      op(
          g, "lerp_", ternary(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.lerp_(x[1], 0.25);
            return y;
          },
          Opt(tr)),
      op(
          g, "inplace_on_transposed_view", fixed({{{4, 5}, {5, 4}}}),
          [](const auto& x) {
            auto base = x[0].clone();
            base.t().mul_(x[1]);
            return base;
          },
          all),
  };
}

const bool registered = add_entries(unary_entries()) && add_entries(binary_entries()) &&
                        add_entries(ternary_entries()) && add_entries(inplace_entries());

// The numeric dtypes of entries above that are marked differs() for bool only: a marker
// turns the whole entry's mismatches into a skip, so these say the rest again without it.
std::vector<OpEntry> numeric_entries() {
  const std::string g = "elementwise";
  const std::vector<nabla::ScalarType> numeric = {kFloat, kDouble, kLong, nabla::kInt,
                                                  nabla::kByte};
  const std::vector<nabla::ScalarType> signed_numeric = {kFloat, kDouble, kLong, nabla::kInt};
  return {
      op(
          g, "scalar_minus_tensor_floats", unary(), [](const auto& x) { return 2.5 - x[0]; },
          Opt(kTranscendental).dtypes(kFloats).node_name_differs(kRsubNodeName)),
      op(
          g, "scalar_div_tensor_floats", unary(kNonZero), [](const auto& x) { return 3 / x[0]; },
          Opt(kTranscendental).dtypes(kFloats)),
      op(
          g, "clamp_float_bounds_numeric", unary(kSpecials),
          [](const auto& x) {
            return std::vector<std::decay_t<decltype(x[0])>>{
                x[0].clamp(-0.5, 0.7), x[0].clamp_min(0.25), x[0].clamp_max(-0.25),
                x[0].clamp(0.5)};
          },
          Opt().dtypes(numeric)),
      // uint8 left out: LibTorch wraps the bound -1 to 255.
      op(
          g, "clamp_int_bounds_numeric", unary(kWide),
          [](const auto& x) {
            return std::vector<std::decay_t<decltype(x[0])>>{x[0].clamp(-1, 2), x[0].clip(-1, 1)};
          },
          Opt().dtypes(signed_numeric)),
      // nabla's operator! is LibTorch's logical_not (at::Tensor has no operator!).
      op2(
          g, "operator_not", unary(kSpecials), [](const auto& x) { return !x[0]; },
          LIBTORCH([](const auto& x) { return x[0].logical_not(); }), Opt().dtypes(kAllTypes)),
      op(
          g, "fmod_ints", binary_divisor(kWide), [](const auto& x) { return fmod(x[0], x[1]); },
          Opt().dtypes({kLong, nabla::kInt, nabla::kByte}).no_fd("a saw-tooth")),
  };
}

const bool registered_numeric = add_entries(numeric_entries());

}  // namespace
}  // namespace conform
