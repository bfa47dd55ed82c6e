// Elementwise CPU kernels: copy/convert, fill, unary, binary, where.
#include <cmath>
#include <limits>
#include <type_traits>

#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/vec_math.h"
#include "backend/cpu/vec_math_wide.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {
namespace {

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T>;
template <class T>
constexpr bool is_narrow_int_v = std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t>;

// Runs `op` over one row of N operands, element type T for operand 0 (output) and In
// for the inputs; the contiguous branch is the one the compiler vectorizes.
template <class Out, class In, int NIn, class Op>
inline void row_loop(char** p, const int64_t* s, int64_t n, Op op) {
  Out* __restrict o = reinterpret_cast<Out*>(p[0]);
  if constexpr (NIn == 1) {
    const In* __restrict a = reinterpret_cast<const In*>(p[1]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) =
            op(*reinterpret_cast<const In*>(p[1] + i * s[1]));
    }
  } else {
    const In* __restrict a = reinterpret_cast<const In*>(p[1]);
    const In* __restrict b = reinterpret_cast<const In*>(p[2]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == sizeof(In)) {
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], b[i]);
    } else if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == 0) {
      const In bv = *b;
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], bv);
    } else if (s[0] == sizeof(Out) && s[1] == 0 && s[2] == sizeof(In)) {
      const In av = *a;
      for (int64_t i = 0; i < n; ++i) o[i] = op(av, b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) =
            op(*reinterpret_cast<const In*>(p[1] + i * s[1]),
               *reinterpret_cast<const In*>(p[2] + i * s[2]));
    }
  }
}

template <class Out, class In, class Op>
void run_unary(const Tensor& out, const Tensor& in, Op op) {
  auto plan = make_plan<2>({&out, &in});
  for_each_row(plan,
               [&](char** p, const int64_t* s, int64_t n) { row_loop<Out, In, 1>(p, s, n, op); });
}

template <class Out, class In, class Op>
void run_binary(const Tensor& out, const Tensor& a, const Tensor& b, Op op) {
  auto plan = make_plan<3>({&out, &a, &b});
  for_each_row(plan,
               [&](char** p, const int64_t* s, int64_t n) { row_loop<Out, In, 2>(p, s, n, op); });
}

// run_unary / run_binary for functions with a fast range (Note [Float math in double]):
// `fast` runs over every element in vector loops, `slow` flags the elements outside its
// range into a small buffer, and `exact` (libm, in double for floats: glibc's float tanf
// is off by more than an ulp near its poles) recomputes only those. Rows go in blocks,
// so the flags stay in L1 and a block without slow elements costs one vector pass more.
template <class Out, class In, int NIn, class Fast, class Slow, class Exact>
void checked_rows(const LoopPlan<NIn + 1>& plan, Fast fast, Slow slow, Exact exact) {
  for_each_row(plan, [&](char** p, const int64_t* s, int64_t n) {
    constexpr int64_t kBlock = 256;
    alignas(64) uint8_t flags[kBlock];
    for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
      const int64_t m = std::min(kBlock, n - i0);
      char* q[NIn + 1];
      for (int k = 0; k <= NIn; ++k) q[k] = p[k] + i0 * s[k];
      row_loop<Out, In, NIn>(q, s, m, fast);
      char* fq[NIn + 1] = {reinterpret_cast<char*>(flags)};
      int64_t fs[NIn + 1] = {1};
      for (int k = 1; k <= NIn; ++k) fq[k] = q[k], fs[k] = s[k];
      row_loop<uint8_t, In, NIn>(fq, fs, m, slow);
      uint8_t any = 0;
      for (int64_t i = 0; i < m; ++i) any |= flags[i];
      if (!any) continue;
      for (int64_t i = 0; i < m; ++i) {
        if (!flags[i]) continue;
        const In a = *reinterpret_cast<const In*>(q[1] + i * s[1]);
        Out& o = *reinterpret_cast<Out*>(q[0] + i * s[0]);
        if constexpr (NIn == 1)
          o = exact(a);
        else
          o = exact(a, *reinterpret_cast<const In*>(q[2] + i * s[2]));
      }
    }
  });
}

// float only: other types run `exact` alone (the double overloads are libm).
template <class T, class Fast, class Slow, class Exact>
void run_unary_checked(const Tensor& out, const Tensor& in, Fast fast, Slow slow, Exact exact) {
  if constexpr (std::is_same_v<T, float>)
    checked_rows<T, T, 1>(make_plan<2>({&out, &in}), fast, slow, exact);
  else
    run_unary<T, T>(out, in, exact);
}

template <class T, class Fast, class Slow, class Exact>
void run_binary_checked(const Tensor& out, const Tensor& a, const Tensor& b, Fast fast, Slow slow,
                        Exact exact) {
  if constexpr (std::is_same_v<T, float>)
    checked_rows<T, T, 2>(make_plan<3>({&out, &a, &b}), fast, slow, exact);
  else
    run_binary<T, T>(out, a, b, exact);
}

template <class T>
T sign_of(T x) {
  if constexpr (std::is_same_v<T, bool>)
    return x;
  else if constexpr (std::is_unsigned_v<T>)
    return x > 0;
  else
    return static_cast<T>((T(0) < x) - (x < T(0)));
}

template <class T>
NABLA_VEC_INLINE T gelu_tanh(T x) {
  const T k = T(0.7978845608028654);  // sqrt(2/pi)
  return T(0.5) * x * (T(1) + vec_tanh(k * (x + T(0.044715) * x * x * x)));
}
template <class T>
NABLA_VEC_INLINE T gelu_erf(T x) {
  return T(0.5) * x * (T(1) + vec_erf(x * T(0.7071067811865476)));
}

// Python-style floor modulo (the sign follows the divisor), as torch.remainder: C's fmod
// moved by b when the signs differ (rounded in T, as LibTorch does).
template <class T>
NABLA_VEC_INLINE T floor_mod_from_fmod(T r, T b) {
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}
template <class T>
T remainder(T a, T b) {
  if constexpr (is_float_v<T>) {
    return floor_mod_from_fmod(std::fmod(a, b), b);
  } else if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else {
    if (b == 0) return 0;  // guarded by the op, which raises for integer division by zero
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return 0;  // INT_MIN % -1 traps (SIGFPE) on x86
    }
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}

// C fmod of integers (the sign follows the dividend), as torch.fmod; floats: vec_fmod.
template <class T>
T int_fmod(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else {
    if (b == 0) return 0;  // guarded by the op, which raises for integer division by zero
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return 0;  // the quotient of the most negative value would overflow
    }
    return static_cast<T>(a % b);
  }
}

template <class T>
T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) return base == 1 ? 1 : (base == -1 ? ((exp & 1) ? -1 : 1) : 0);
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = static_cast<T>(result * base);
    exp = static_cast<T>(exp >> 1);
    base = static_cast<T>(base * base);
  }
  return result;
}

template <class T>
void unary_typed(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams prm) {
  using std::abs;
  const T pa = saturating_cast<T>(prm.a);
  switch (op) {
    case UnaryOp::Neg:
      if constexpr (!std::is_same_v<T, bool>)
        return run_unary<T, T>(out, in, [](T x) { return static_cast<T>(-x); });
      break;
    case UnaryOp::Abs:
      if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>)
        return run_unary<T, T>(out, in, [](T x) { return x; });
      else if constexpr (is_float_v<T>)
        return run_unary<T, T>(out, in, [](T x) { return std::fabs(x); });  // |-0| = +0
      else
        return run_unary<T, T>(out, in, [](T x) { return x < 0 ? static_cast<T>(-x) : x; });
    case UnaryOp::Sign:
      return run_unary<T, T>(out, in, [](T x) { return sign_of(x); });
    case UnaryOp::Square:
      if constexpr (!std::is_same_v<T, bool>)
        return run_unary<T, T>(out, in, [](T x) { return static_cast<T>(x * x); });
      break;
    case UnaryOp::Relu:
      // NaN passes through, as in LibTorch.
      if constexpr (!std::is_same_v<T, bool>)
        return run_unary<T, T>(out, in, [](T x) { return x > T(0) || x != x ? x : T(0); });
      break;
    case UnaryOp::BitwiseNot:
      if constexpr (std::is_same_v<T, bool>)
        return run_unary<T, T>(out, in, [](T x) { return !x; });
      else if constexpr (std::is_integral_v<T>)
        return run_unary<T, T>(out, in, [](T x) { return static_cast<T>(~x); });
      break;
    case UnaryOp::Clamp: {
      if constexpr (!std::is_same_v<T, bool>) {
        if constexpr (is_float_v<T>) {
          const T lo = static_cast<T>(prm.a), hi = static_cast<T>(prm.b);
          // NaN propagates as in LibTorch.
          // min(max(x, lo), hi): with lo > hi every element becomes hi, as in LibTorch.
          return run_unary<T, T>(out, in, [lo, hi](T x) {
            if (std::isnan(x)) return x;
            T v = x < lo ? lo : x;
            return v > hi ? hi : v;
          });
        } else {
          // Bounds outside T's range saturate rather than wrap.
          const double lo = prm.a, hi = prm.b;
          return run_unary<T, T>(out, in, [lo, hi](T x) {
            double v = static_cast<double>(x);
            v = v < lo ? lo : v;
            return saturating_cast<T>(v > hi ? hi : v);  // inverted bounds: hi itself
          });
        }
      }
      break;
    }
    case UnaryOp::PowScalar:
      if constexpr (is_float_v<T>) {
        // Small integer and half-integer powers without std::pow (a scalar libm call).
        if (prm.a == 2) return run_unary<T, T>(out, in, [](T x) { return x * x; });
        if (prm.a == 3) return run_unary<T, T>(out, in, [](T x) { return x * x * x; });
        if (prm.a == 1) return run_unary<T, T>(out, in, [](T x) { return x; });
        if (prm.a == 0) return run_unary<T, T>(out, in, [](T) { return T(1); });  // NaN^0 = 1 too
        if (prm.a == -1) return run_unary<T, T>(out, in, [](T x) { return T(1) / x; });
        if (prm.a == -2) return run_unary<T, T>(out, in, [](T x) { return T(1) / (x * x); });
        if (prm.a == 0.5) return run_unary<T, T>(out, in, [](T x) { return std::sqrt(x); });
        // As rsqrt, so -inf gives NaN like LibTorch (std::pow gives 0).
        if (prm.a == -0.5) return run_unary<T, T>(out, in, [](T x) { return T(1) / std::sqrt(x); });
        return run_unary_checked<T>(
            out, in, [pa](T x) { return vec_pow(x, pa); },
            [pa](T x) { return vec_pow_slow(x, pa); },
            [pa](T x) { return static_cast<T>(std::pow(double(x), double(pa))); });
      } else if constexpr (!std::is_same_v<T, bool>) {
        return run_unary<T, T>(out, in, [pa](T x) { return int_pow<T>(x, pa); });
      }
      break;
    case UnaryOp::LogicalNot:
      return run_unary<bool, T>(out, in, [](T x) { return !static_cast<bool>(x); });
    case UnaryOp::IsNan:
      return run_unary<bool, T>(out, in, [](T x) {
        if constexpr (is_float_v<T>)
          return std::isnan(x);
        else
          return false;
      });
    case UnaryOp::IsInf:
      return run_unary<bool, T>(out, in, [](T x) {
        if constexpr (is_float_v<T>)
          return std::isinf(x);
        else
          return false;
      });
    case UnaryOp::IsFinite:
      return run_unary<bool, T>(out, in, [](T x) {
        if constexpr (is_float_v<T>)
          return std::isfinite(x);
        else
          return true;
      });
    default:
      break;
  }
  if constexpr (is_float_v<T>) {
    const T pb = static_cast<T>(prm.b);
    switch (op) {
      case UnaryOp::Sqrt:
        return run_unary<T, T>(out, in, [](T x) { return std::sqrt(x); });
      case UnaryOp::Rsqrt:
        return run_unary<T, T>(out, in, [](T x) { return T(1) / std::sqrt(x); });
      case UnaryOp::Exp:
        return run_unary<T, T>(out, in, [](T x) { return vec_exp(x); });
      case UnaryOp::Exp2:
        return run_unary<T, T>(out, in, [](T x) { return vec_exp2(x); });
      case UnaryOp::Log:
        return run_unary<T, T>(out, in, [](T x) { return vec_log(x); });
      case UnaryOp::Log2:
        return run_unary_checked<T>(
            out, in, [](T x) { return vec_log2(x); }, [](T x) { return vec_log_slow(x); },
            [](T x) { return static_cast<T>(std::log2(static_cast<double>(x))); });
      case UnaryOp::Log10:
        return run_unary_checked<T>(
            out, in, [](T x) { return vec_log10(x); }, [](T x) { return vec_log_slow(x); },
            [](T x) { return static_cast<T>(std::log10(static_cast<double>(x))); });
      case UnaryOp::Log1p:
        return run_unary<T, T>(out, in, [](T x) { return vec_log1p(x); });
      case UnaryOp::Expm1:
        return run_unary<T, T>(out, in, [](T x) { return vec_expm1(x); });
      case UnaryOp::Sin:
        return run_unary_checked<T>(
            out, in, [](T x) { return vec_sin(x); }, [](T x) { return vec_trig_slow(x); },
            [](T x) { return static_cast<T>(std::sin(static_cast<double>(x))); });
      case UnaryOp::Cos:
        return run_unary_checked<T>(
            out, in, [](T x) { return vec_cos(x); }, [](T x) { return vec_trig_slow(x); },
            [](T x) { return static_cast<T>(std::cos(static_cast<double>(x))); });
      case UnaryOp::Tan:
        return run_unary_checked<T>(
            out, in, [](T x) { return vec_tan(x); }, [](T x) { return vec_trig_slow(x); },
            [](T x) { return static_cast<T>(std::tan(static_cast<double>(x))); });
      case UnaryOp::Asin:
        return run_unary<T, T>(out, in, [](T x) { return vec_asin(x); });
      case UnaryOp::Acos:
        return run_unary<T, T>(out, in, [](T x) { return vec_acos(x); });
      case UnaryOp::Atan:
        return run_unary<T, T>(out, in, [](T x) { return vec_atan(x); });
      case UnaryOp::Sinh:
        return run_unary<T, T>(out, in, [](T x) { return vec_sinh(x); });
      case UnaryOp::Cosh:
        return run_unary<T, T>(out, in, [](T x) { return vec_cosh(x); });
      case UnaryOp::Tanh:
        return run_unary<T, T>(out, in, [](T x) { return vec_tanh(x); });
      case UnaryOp::Sigmoid:
        return run_unary<T, T>(out, in, [](T x) { return vec_sigmoid(x); });
      case UnaryOp::Erf:
        return run_unary<T, T>(out, in, [](T x) { return vec_erf(x); });
      case UnaryOp::Erfc:
        return run_unary<T, T>(out, in, [](T x) { return std::erfc(x); });
      case UnaryOp::Floor:
        return run_unary<T, T>(out, in, [](T x) { return std::floor(x); });
      case UnaryOp::Ceil:
        return run_unary<T, T>(out, in, [](T x) { return std::ceil(x); });
      // Round half to even, as torch.round.
      case UnaryOp::Round:
        return run_unary<T, T>(out, in, [](T x) { return std::nearbyint(x); });
      case UnaryOp::Trunc:
        return run_unary<T, T>(out, in, [](T x) { return std::trunc(x); });
      case UnaryOp::Frac:
        return run_unary<T, T>(out, in, [](T x) { return x - std::trunc(x); });
      case UnaryOp::Reciprocal:
        return run_unary<T, T>(out, in, [](T x) { return T(1) / x; });
      case UnaryOp::LeakyRelu:
        return run_unary<T, T>(out, in, [pa](T x) { return x > T(0) ? x : x * pa; });
      case UnaryOp::Elu:
        return run_unary<T, T>(out, in, [pa](T x) { return x > T(0) ? x : pa * vec_expm1(x); });
      case UnaryOp::Softplus:
        return run_unary<T, T>(
            out, in, [pa, pb](T x) { return x * pa > pb ? x : vec_log1p(vec_exp(x * pa)) / pa; });
      case UnaryOp::Gelu:
        if (prm.a != 0) return run_unary<T, T>(out, in, [](T x) { return gelu_tanh(x); });
        return run_unary<T, T>(out, in, [](T x) { return gelu_erf(x); });
      case UnaryOp::Silu:
        return run_unary<T, T>(out, in, [](T x) { return x / (T(1) + vec_exp(-x)); });
      default:
        break;
    }
  } else {
    // Rounding is the identity on integers.
    switch (op) {
      case UnaryOp::Floor:
      case UnaryOp::Ceil:
      case UnaryOp::Round:
      case UnaryOp::Trunc:
        return run_unary<T, T>(out, in, [](T x) { return x; });
      case UnaryOp::Frac:
        return run_unary<T, T>(out, in, [](T) { return T(0); });
      default:
        break;
    }
  }
  NABLA_ASSERT(false, "unary kernel ", static_cast<int>(op), " has no ",
               dtype_name(out.scalar_type()), " implementation");
}

template <class T>
void binary_typed(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                  const Scalar& alpha_s) {
  switch (op) {
    case BinaryOp::Eq:
      return run_binary<bool, T>(out, a, b, [](T x, T y) { return x == y; });
    case BinaryOp::Ne:
      return run_binary<bool, T>(out, a, b, [](T x, T y) { return x != y; });
    case BinaryOp::Lt:
      return run_binary<bool, T>(out, a, b, [](T x, T y) { return x < y; });
    case BinaryOp::Le:
      return run_binary<bool, T>(out, a, b, [](T x, T y) { return x <= y; });
    case BinaryOp::Gt:
      return run_binary<bool, T>(out, a, b, [](T x, T y) { return x > y; });
    case BinaryOp::Ge:
      return run_binary<bool, T>(out, a, b, [](T x, T y) { return x >= y; });
    case BinaryOp::LogicalAnd:
      return run_binary<bool, T>(out, a, b, [](T x, T y) { return bool(x) && bool(y); });
    case BinaryOp::LogicalOr:
      return run_binary<bool, T>(out, a, b, [](T x, T y) { return bool(x) || bool(y); });
    case BinaryOp::LogicalXor:
      return run_binary<bool, T>(out, a, b, [](T x, T y) { return bool(x) != bool(y); });
    default:
      break;
  }
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case BinaryOp::Add:
      case BinaryOp::BitwiseOr:
      case BinaryOp::Maximum:
        return run_binary<T, T>(out, a, b, [](T x, T y) { return x || y; });
      case BinaryOp::Mul:
      case BinaryOp::BitwiseAnd:
      case BinaryOp::Minimum:
        return run_binary<T, T>(out, a, b, [](T x, T y) { return x && y; });
      case BinaryOp::BitwiseXor:
        return run_binary<T, T>(out, a, b, [](T x, T y) { return x != y; });
      default:
        break;
    }
  } else {
    const T alpha = alpha_s.to<T>();
    switch (op) {
      case BinaryOp::Add:
        if (alpha == T(1))
          return run_binary<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x + y); });
        return run_binary<T, T>(out, a, b,
                                [alpha](T x, T y) { return static_cast<T>(x + alpha * y); });
      case BinaryOp::Sub:
        if (alpha == T(1))
          return run_binary<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x - y); });
        return run_binary<T, T>(out, a, b,
                                [alpha](T x, T y) { return static_cast<T>(x - alpha * y); });
      case BinaryOp::Mul:
        return run_binary<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x * y); });
      case BinaryOp::Div:
        if constexpr (is_float_v<T>)
          return run_binary<T, T>(out, a, b, [](T x, T y) { return x / y; });
        break;  // integer true division is promoted to float by the op
      case BinaryOp::Remainder:
        if constexpr (is_float_v<T>)
          return run_binary_checked<T>(
              out, a, b, [](T x, T y) { return floor_mod_from_fmod(vec_fmod(x, y), y); },
              [](T x, T y) { return vec_fmod_slow(x, y); },
              [](T x, T y) { return remainder(x, y); });
        else
          return run_binary<T, T>(out, a, b, [](T x, T y) { return remainder(x, y); });
      case BinaryOp::Fmod:
        if constexpr (is_float_v<T>)
          return run_binary_checked<T>(
              out, a, b, [](T x, T y) { return vec_fmod(x, y); },
              [](T x, T y) { return vec_fmod_slow(x, y); },
              [](T x, T y) { return std::fmod(x, y); });
        else
          return run_binary<T, T>(out, a, b, [](T x, T y) { return int_fmod(x, y); });
      case BinaryOp::Pow:
        if constexpr (is_float_v<T>)
          return run_binary_checked<T>(
              out, a, b, [](T x, T y) { return vec_pow(x, y); },
              [](T x, T y) { return vec_pow_slow(x, y); },
              [](T x, T y) { return static_cast<T>(std::pow(double(x), double(y))); });
        else
          return run_binary<T, T>(out, a, b, [](T x, T y) { return int_pow(x, y); });
      case BinaryOp::Atan2:
        if constexpr (is_float_v<T>)
          return run_binary_checked<T>(
              out, a, b, [](T x, T y) { return vec_atan2(x, y); },
              [](T x, T y) { return vec_atan2_slow(x, y); },
              [](T x, T y) { return static_cast<T>(std::atan2(double(x), double(y))); });
        break;
      case BinaryOp::TanhBackward:
        if constexpr (is_float_v<T>)
          return run_binary<T, T>(out, a, b, [](T g, T y) { return g * (T(1) - y * y); });
        break;
      case BinaryOp::SigmoidBackward:
        if constexpr (is_float_v<T>)
          return run_binary<T, T>(out, a, b, [](T g, T y) { return g * y * (T(1) - y); });
        break;
      case BinaryOp::ReluBackward:
        if constexpr (is_float_v<T>)
          return run_binary<T, T>(out, a, b, [](T g, T y) { return y > T(0) ? g : T(0); });
        break;
      case BinaryOp::LeakyReluBackward:
        if constexpr (is_float_v<T>)
          return run_binary<T, T>(out, a, b,
                                  [alpha](T g, T x) { return x > T(0) ? g : g * alpha; });
        break;
      case BinaryOp::Maximum:
        if constexpr (is_float_v<T>)
          return run_binary<T, T>(out, a, b, [](T x, T y) {
            return (x != x || x > y) ? x : (y != y ? y : (x < y ? y : x));
          });
        else
          return run_binary<T, T>(out, a, b, [](T x, T y) { return x > y ? x : y; });
      case BinaryOp::Minimum:
        if constexpr (is_float_v<T>)
          return run_binary<T, T>(out, a, b, [](T x, T y) {
            return (x != x || x < y) ? x : (y != y ? y : (x > y ? y : x));
          });
        else
          return run_binary<T, T>(out, a, b, [](T x, T y) { return x < y ? x : y; });
      case BinaryOp::BitwiseAnd:
        if constexpr (std::is_integral_v<T>)
          return run_binary<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x & y); });
        break;
      case BinaryOp::BitwiseOr:
        if constexpr (std::is_integral_v<T>)
          return run_binary<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x | y); });
        break;
      case BinaryOp::BitwiseXor:
        if constexpr (std::is_integral_v<T>)
          return run_binary<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x ^ y); });
        break;
      default:
        break;
    }
  }
  NABLA_ASSERT(false, "binary kernel ", static_cast<int>(op), " has no ",
               dtype_name(a.scalar_type()), " implementation");
}

}  // namespace

void CpuBackend::copy(const Tensor& dst, const Tensor& src) {
  // Same dtype: the bits as they are, float16 and bfloat16 included (ops::copy_any sends
  // those here; through a conversion a NaN payload would become the canonical NaN).
  if (dst.scalar_type() == src.scalar_type()) {
    auto same = [](auto x) { return x; };
    switch (elementSize(dst.scalar_type())) {
      case 1:
        return run_unary<uint8_t, uint8_t>(dst, src, same);
      case 2:
        return run_unary<uint16_t, uint16_t>(dst, src, same);
      case 4:
        return run_unary<uint32_t, uint32_t>(dst, src, same);
      case 8:
        return run_unary<uint64_t, uint64_t>(dst, src, same);
      default:
        break;
    }
  }
  // int8 and int16 convert to and from the other dtypes through int32, which wraps to the
  // same low bits: eight dtypes would square the conversions the compiler instantiates
  // (about a third of this file's compile time per ISA) for conversions that are rarely hot.
  auto narrow = [](ScalarType t) { return t == kChar || t == kShort; };
  if ((narrow(dst.scalar_type()) || narrow(src.scalar_type())) && dst.scalar_type() != kInt &&
      src.scalar_type() != kInt) {
    Tensor mid = empty_contiguous(dst.sizes(), kInt, dst.device());
    copy(mid, src);
    copy(dst, mid);
    return;
  }
  dispatch_all(dst.scalar_type(), [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    dispatch_all(src.scalar_type(), [&](auto stag) {
      using S = typename decltype(stag)::type;
      constexpr bool via_int32 =
          (is_narrow_int_v<D> || is_narrow_int_v<S>)&&!std::is_same_v<D, int32_t> &&
          !std::is_same_v<S, int32_t>;
      if constexpr (via_int32) {
        NABLA_ASSERT(false, "copy: ", src.scalar_type(), " to ", dst.scalar_type(),
                     " goes through int32");
      } else {
        run_unary<D, S>(dst, src, [](S x) {
          if constexpr (std::is_same_v<D, bool>)
            return x != S(0);
          else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>)
            // Through int64, as LibTorch's results show (-3.0 -> uint8 253): the narrowing
            // integer step wraps, which is defined; float -> int64 saturates past its range
            // (a direct cast out of range is undefined).
            return static_cast<D>(saturating_cast<int64_t>(static_cast<double>(x)));
          else
            return static_cast<D>(x);
        });
      }
    });
  });
}

void CpuBackend::fill(const Tensor& dst, const Scalar& value) {
  dispatch_all(dst.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.to<T>();
    auto plan = make_plan<1>({&dst});
    for_each_row(plan, [v](char** p, const int64_t* s, int64_t n) {
      T* o = reinterpret_cast<T*>(p[0]);
      if (s[0] == sizeof(T)) {
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
      }
    });
  });
}

void CpuBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) {
  dispatch_all(in.scalar_type(),
               [&](auto tag) { unary_typed<typename decltype(tag)::type>(op, out, in, p); });
}

void CpuBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                        const Scalar& alpha) {
  dispatch_all(a.scalar_type(),
               [&](auto tag) { binary_typed<typename decltype(tag)::type>(op, out, a, b, alpha); });
}

void CpuBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  dispatch_all(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto plan = make_plan<4>({&out, &cond, &a, &b});
    for_each_row(plan, [](char** p, const int64_t* s, int64_t n) {
      // Contiguous output and condition with each value operand contiguous or a
      // broadcast scalar (where(c, x, 0.0), threshold, masks): loops that vectorize.
      constexpr int64_t e = sizeof(T);
      if (s[0] == e && s[1] == 1 && (s[2] == e || s[2] == 0) && (s[3] == e || s[3] == 0)) {
        T* __restrict o = reinterpret_cast<T*>(p[0]);
        const uint8_t* __restrict c = reinterpret_cast<const uint8_t*>(p[1]);
        const T* __restrict a = reinterpret_cast<const T*>(p[2]);
        const T* __restrict b = reinterpret_cast<const T*>(p[3]);
        if (s[2] == e && s[3] == e) {
          for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? a[i] : b[i];
        } else if (s[2] == 0 && s[3] == e) {
          const T av = *a;
          for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? av : b[i];
        } else if (s[2] == e) {
          const T bv = *b;
          for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? a[i] : bv;
        } else {
          const T av = *a, bv = *b;
          for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? av : bv;
        }
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
        *reinterpret_cast<T*>(p[0] + i * s[0]) = c ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                                                   : *reinterpret_cast<const T*>(p[3] + i * s[3]);
      }
    });
  });
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
