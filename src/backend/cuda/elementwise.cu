// The elementwise CUDA kernels. One strided loop (elementwise_kernel) walks any plan; the
// op lists (core/op_list/unary.def, binary.def) generate the dispatch, so a row added
// there needs only its formula here (unary_value / binary_value), and the dtypes a kernel
// is compiled for follow from the row's dtype column. Formulas match the CPU kernels'
// results (src/backend/cpu/kernels/elementwise.cpp): NaN propagation, round half to
// even, floor modulo, integer division guards, saturating float -> integer casts.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "backend/cuda/elementwise_launch.h"
#include "backend/cuda/launch.cuh"

namespace nabla::cuda_kernels {
namespace {

template <int N>
__device__ __forceinline__ void offsets(const ElementwisePlan<N>& p, int64_t i, char* (&ptr)[N]) {
  for (int k = 0; k < N; ++k) ptr[k] = p.data[k];
  for (int d = 0; d < p.ndim; ++d) {
    const int64_t idx = i % p.sizes[d];
    i /= p.sizes[d];
    for (int k = 0; k < N; ++k) ptr[k] += idx * p.strides[k][d];
  }
}

// f(ptr) for every element; a grid-stride loop so any size fits one launch.
template <int N, class F>
__global__ void elementwise_kernel(ElementwisePlan<N> p, F f) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < p.numel; i += stride) {
    char* ptr[N];
    offsets(p, i, ptr);
    f(ptr);
  }
}

template <int N, class F>
cudaError_t launch(const ElementwisePlan<N>& p, Stream s, F f) {
  if (p.numel == 0) return cudaSuccess;
  elementwise_kernel<N><<<blocks_for(p.numel), kThreads, 0, s>>>(p, f);
  return cudaGetLastError();
}

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T>;

// ---- Conversions ------------------------------------------------------------------------

template <class D, class S>
__device__ __forceinline__ D convert(S x) {
  if constexpr (std::is_same_v<S, __half> || std::is_same_v<S, __nv_bfloat16>) {
    return convert<D>(static_cast<float>(x));
  } else if constexpr (std::is_same_v<D, __half>) {
    return __double2half(static_cast<double>(x));
  } else if constexpr (std::is_same_v<D, __nv_bfloat16>) {
    return __double2bfloat16(static_cast<double>(x));
  } else if constexpr (std::is_same_v<D, bool>) {
    return x != S(0);
  } else if constexpr (is_float_v<S> && std::is_integral_v<D>) {
    // Through int64 as the CPU (-3.0 -> uint8 253), saturating out of int64's range.
    const double v = static_cast<double>(x);
    int64_t w;
    if (v != v)
      w = 0;
    else if (v >= 9.2233720368547758e18)
      w = INT64_MAX;
    else if (v <= -9.2233720368547758e18)
      w = INT64_MIN;
    else
      w = static_cast<int64_t>(v);
    return static_cast<D>(w);
  } else {
    return static_cast<D>(x);
  }
}

// An integer T from a double, clamped to T's range (NaN gives 0), as the CPU's
// saturating_cast: a clamp bound or an exponent past T's range saturates, never wraps.
template <class T>
__device__ __forceinline__ T saturate(double v) {
  if (v != v) return T(0);
  if (v <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

// Calls f with a value of the C++ type of dtype t (the eight storage dtypes).
template <class F>
cudaError_t with_type(ScalarType t, F f) {
  if (t == ScalarType::Half) return f(__half{});
  if (t == ScalarType::BFloat16) return f(__nv_bfloat16{});
  return with_compute_type(t, f);
}

// ---- Unary formulas ---------------------------------------------------------------------

// The dtype columns of unary.def and binary.def, and which input types each admits
// (integer inputs of a Floating op were promoted by the op before the kernel).
enum class Cat {
  Floating,
  FloatingOnly,
  Keep,
  KeepNoBool,
  Integral,
  BoolOut,
  Promote,
  NoBool,
  Attr
};

template <Cat c, class T>
constexpr bool admits() {
  constexpr bool fl = is_float_v<T>, b = std::is_same_v<T, bool>;
  switch (c) {
    case Cat::Floating:
    case Cat::FloatingOnly:
      return fl;
    case Cat::Keep:
    case Cat::BoolOut:
    case Cat::Promote:
      return true;
    case Cat::KeepNoBool:
    case Cat::NoBool:
    case Cat::Attr:
      return !b;
    case Cat::Integral:
      return !fl;
  }
  return false;
}

template <class T>
__device__ __forceinline__ T sign_of(T x) {
  if constexpr (std::is_same_v<T, bool>)
    return x;
  else if constexpr (std::is_unsigned_v<T>)
    return x > 0;
  else
    return static_cast<T>((T(0) < x) - (x < T(0)));
}

template <class T>
__device__ __forceinline__ T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) return base == 1 ? T(1) : (base == -1 ? ((exp & 1) ? T(-1) : T(1)) : T(0));
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = static_cast<T>(result * base);
    exp = static_cast<T>(exp >> 1);
    base = static_cast<T>(base * base);
  }
  return result;
}

// Floats compute in their own precision with CUDA's libdevice functions (<= 2 ulp for
// float), as LibTorch's CUDA kernels do.
template <UnaryOp op, class T>
__device__ __forceinline__ auto unary_value(T x, double pa, double pb) {
  constexpr bool fl = is_float_v<T>;
  if constexpr (op == UnaryOp::Neg)
    return static_cast<T>(-x);
  else if constexpr (op == UnaryOp::Abs) {
    if constexpr (fl)
      return fabs(x);
    else if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>)
      return x;
    else
      return x < 0 ? static_cast<T>(-x) : x;
  } else if constexpr (op == UnaryOp::Sign)
    return sign_of(x);
  else if constexpr (op == UnaryOp::Square)
    return static_cast<T>(x * x);
  else if constexpr (op == UnaryOp::Relu)
    return (x > T(0) || x != x) ? x : T(0);
  else if constexpr (op == UnaryOp::BitwiseNot) {
    if constexpr (std::is_same_v<T, bool>)
      return !x;
    else
      return static_cast<T>(~x);
  } else if constexpr (op == UnaryOp::LogicalNot)
    return !static_cast<bool>(x);
  else if constexpr (op == UnaryOp::IsNan) {
    if constexpr (fl)
      return bool(isnan(x));
    else
      return false;
  } else if constexpr (op == UnaryOp::IsInf) {
    if constexpr (fl)
      return bool(isinf(x));
    else
      return false;
  } else if constexpr (op == UnaryOp::IsFinite) {
    if constexpr (fl)
      return bool(isfinite(x));
    else
      return true;
  } else if constexpr (op == UnaryOp::Floor) {
    if constexpr (fl)
      return floor(x);
    else
      return x;
  } else if constexpr (op == UnaryOp::Ceil) {
    if constexpr (fl)
      return ceil(x);
    else
      return x;
  } else if constexpr (op == UnaryOp::Round) {
    if constexpr (fl)
      return rint(x);
    else
      return x;
  } else if constexpr (op == UnaryOp::Trunc) {
    if constexpr (fl)
      return trunc(x);
    else
      return x;
  } else if constexpr (op == UnaryOp::Frac) {
    if constexpr (fl)
      return x - trunc(x);
    else
      return T(0);
  } else if constexpr (op == UnaryOp::Clamp) {
    if constexpr (fl) {
      if (x != x) return x;
      const T lo = static_cast<T>(pa), hi = static_cast<T>(pb);
      const T v = x < lo ? lo : x;
      return v > hi ? hi : v;
    } else {
      double v = static_cast<double>(x);
      v = v < pa ? pa : v;
      v = v > pb ? pb : v;
      return saturate<T>(v);  // bounds outside T's range saturate
    }
  } else if constexpr (op == UnaryOp::PowScalar) {
    if constexpr (fl) {
      if (pa == 2) return x * x;
      if (pa == 3) return x * x * x;
      if (pa == 1) return x;
      if (pa == 0) return T(1);
      if (pa == -1) return T(1) / x;
      if (pa == -2) return T(1) / (x * x);
      if (pa == 0.5) return sqrt(x);
      if (pa == -0.5) return T(1) / sqrt(x);
      return static_cast<T>(pow(static_cast<double>(x), pa));
    } else {
      return int_pow<T>(x, saturate<T>(pa));
    }
  } else if constexpr (fl) {
    if constexpr (op == UnaryOp::Sqrt)
      return sqrt(x);
    else if constexpr (op == UnaryOp::Rsqrt)
      return T(1) / sqrt(x);
    else if constexpr (op == UnaryOp::Exp)
      return exp(x);
    else if constexpr (op == UnaryOp::Exp2)
      return exp2(x);
    else if constexpr (op == UnaryOp::Log)
      return log(x);
    else if constexpr (op == UnaryOp::Log2)
      return log2(x);
    else if constexpr (op == UnaryOp::Log10)
      return log10(x);
    else if constexpr (op == UnaryOp::Log1p)
      return log1p(x);
    else if constexpr (op == UnaryOp::Expm1)
      return expm1(x);
    else if constexpr (op == UnaryOp::Sin)
      return sin(x);
    else if constexpr (op == UnaryOp::Cos)
      return cos(x);
    else if constexpr (op == UnaryOp::Tan)
      return tan(x);
    else if constexpr (op == UnaryOp::Asin)
      return asin(x);
    else if constexpr (op == UnaryOp::Acos)
      return acos(x);
    else if constexpr (op == UnaryOp::Atan)
      return atan(x);
    else if constexpr (op == UnaryOp::Sinh)
      return sinh(x);
    else if constexpr (op == UnaryOp::Cosh)
      return cosh(x);
    else if constexpr (op == UnaryOp::Tanh)
      return tanh(x);
    else if constexpr (op == UnaryOp::Sigmoid)
      return T(1) / (T(1) + exp(-x));
    else if constexpr (op == UnaryOp::Erf)
      return erf(x);
    else if constexpr (op == UnaryOp::Erfc)
      return erfc(x);
    else if constexpr (op == UnaryOp::Reciprocal)
      return T(1) / x;
    else if constexpr (op == UnaryOp::LeakyRelu)
      return x > T(0) ? x : x * static_cast<T>(pa);
    else if constexpr (op == UnaryOp::Elu)
      return x > T(0) ? x : static_cast<T>(pa) * expm1(x);
    else if constexpr (op == UnaryOp::Softplus) {
      const T beta = static_cast<T>(pa), threshold = static_cast<T>(pb);
      return x * beta > threshold ? x : log1p(exp(x * beta)) / beta;
    } else if constexpr (op == UnaryOp::Gelu) {
      if (pa != 0) {
        const T k = T(0.7978845608028654);  // sqrt(2/pi)
        return T(0.5) * x * (T(1) + tanh(k * (x + T(0.044715) * x * x * x)));
      }
      return T(0.5) * x * (T(1) + erf(x * T(0.7071067811865476)));
    } else if constexpr (op == UnaryOp::Silu)
      return x / (T(1) + exp(-x));
    else
      static_assert(sizeof(T) == 0, "a floating unary kernel without a CUDA formula");
  } else {
    return x;  // not reached: the dtype column refuses these inputs before the kernel
  }
}

// Note [Result types on the device]: a functor's result type is deduced inside its device
// operator(), never by the host. The host compiler sees __device__ functions with their
// bodies stripped, so `decltype(unary_value<op, T>(...))` written in host code is void
// there and the host launched elementwise_kernel<2, UnaryFn<op, T, void>>, a kernel the
// device never compiled: every launch failed with "invalid device function" (seen on the
// first GPU run). Host code names kernels only by types both compilers agree on.
template <UnaryOp op, class T>
struct UnaryFn {
  double pa, pb;
  __device__ void operator()(char* (&ptr)[2]) const {
    auto r = unary_value<op, T>(*reinterpret_cast<const T*>(ptr[1]), pa, pb);
    *reinterpret_cast<decltype(r)*>(ptr[0]) = r;
  }
};

template <UnaryOp op, Cat cat>
cudaError_t run_unary(const ElementwisePlan<2>& p, ScalarType in, UnaryParams prm, Stream s) {
  return with_type(in, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> ||
                  !admits<cat, T>()) {
      return cudaErrorNotSupported;
    } else {
      return launch<2>(p, s, UnaryFn<op, T>{prm.a, prm.b});
    }
  });
}

// ---- Binary formulas --------------------------------------------------------------------

template <class T>
__device__ __forceinline__ T floor_mod(T a, T b) {
  if constexpr (is_float_v<T>) {
    const T r = fmod(a, b);
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
  } else if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else {
    if (b == 0) return 0;  // the op raises for integer division by zero
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return 0;
    }
    T r = static_cast<T>(a % b);
    if constexpr (std::is_signed_v<T>) {
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    }
    return r;
  }
}

template <class T>
__device__ __forceinline__ T trunc_mod(T a, T b) {
  if constexpr (is_float_v<T>) {
    return fmod(a, b);
  } else if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return 0;
    }
    return static_cast<T>(a % b);
  }
}

template <BinaryOp op, class T>
__device__ __forceinline__ auto binary_value(T x, T y, T alpha) {
  constexpr bool fl = is_float_v<T>, b = std::is_same_v<T, bool>;
  if constexpr (op == BinaryOp::Eq)
    return x == y;
  else if constexpr (op == BinaryOp::Ne)
    return x != y;
  else if constexpr (op == BinaryOp::Lt)
    return x < y;
  else if constexpr (op == BinaryOp::Le)
    return x <= y;
  else if constexpr (op == BinaryOp::Gt)
    return x > y;
  else if constexpr (op == BinaryOp::Ge)
    return x >= y;
  else if constexpr (op == BinaryOp::LogicalAnd)
    return bool(x) && bool(y);
  else if constexpr (op == BinaryOp::LogicalOr)
    return bool(x) || bool(y);
  else if constexpr (op == BinaryOp::LogicalXor)
    return bool(x) != bool(y);
  else if constexpr (b) {
    if constexpr (op == BinaryOp::Add || op == BinaryOp::BitwiseOr || op == BinaryOp::Maximum)
      return x || y;
    else if constexpr (op == BinaryOp::Mul || op == BinaryOp::BitwiseAnd || op == BinaryOp::Minimum)
      return x && y;
    else if constexpr (op == BinaryOp::BitwiseXor)
      return x != y;
    else
      return x;  // refused by the dtype column
  } else if constexpr (op == BinaryOp::Add)
    return static_cast<T>(x + alpha * y);
  else if constexpr (op == BinaryOp::Sub)
    return static_cast<T>(x - alpha * y);
  else if constexpr (op == BinaryOp::Mul)
    return static_cast<T>(x * y);
  else if constexpr (op == BinaryOp::Div) {
    if constexpr (fl)
      return x / y;
    else
      return x;
  } else if constexpr (op == BinaryOp::Remainder)
    return floor_mod(x, y);
  else if constexpr (op == BinaryOp::Fmod)
    return trunc_mod(x, y);
  else if constexpr (op == BinaryOp::Pow) {
    if constexpr (fl)
      return static_cast<T>(pow(static_cast<double>(x), static_cast<double>(y)));
    else
      return int_pow(x, y);
  } else if constexpr (op == BinaryOp::Atan2) {
    if constexpr (fl)
      return atan2(x, y);
    else
      return x;
  } else if constexpr (op == BinaryOp::TanhBackward)
    return static_cast<T>(x * (T(1) - y * y));
  else if constexpr (op == BinaryOp::SigmoidBackward)
    return static_cast<T>(x * y * (T(1) - y));
  else if constexpr (op == BinaryOp::ReluBackward)
    return y > T(0) ? x : T(0);
  else if constexpr (op == BinaryOp::LeakyReluBackward)
    return y > T(0) ? x : static_cast<T>(x * alpha);
  else if constexpr (op == BinaryOp::Maximum) {
    if constexpr (fl)
      return (x != x || x > y) ? x : (y != y ? y : (x < y ? y : x));
    else
      return x > y ? x : y;
  } else if constexpr (op == BinaryOp::Minimum) {
    if constexpr (fl)
      return (x != x || x < y) ? x : (y != y ? y : (x > y ? y : x));
    else
      return x < y ? x : y;
  } else if constexpr (op == BinaryOp::BitwiseAnd) {
    if constexpr (!fl)
      return static_cast<T>(x & y);
    else
      return x;
  } else if constexpr (op == BinaryOp::BitwiseOr) {
    if constexpr (!fl)
      return static_cast<T>(x | y);
    else
      return x;
  } else if constexpr (op == BinaryOp::BitwiseXor) {
    if constexpr (!fl)
      return static_cast<T>(x ^ y);
    else
      return x;
  } else
    static_assert(sizeof(T) == 0, "a binary kernel without a CUDA formula");
}

template <BinaryOp op, class T>
struct BinaryFn {  // Note [Result types on the device]
  T alpha;
  __device__ void operator()(char* (&ptr)[3]) const {
    auto r = binary_value<op, T>(*reinterpret_cast<const T*>(ptr[1]),
                                 *reinterpret_cast<const T*>(ptr[2]), alpha);
    *reinterpret_cast<decltype(r)*>(ptr[0]) = r;
  }
};

template <BinaryOp op, Cat cat>
cudaError_t run_binary(const ElementwisePlan<3>& p, ScalarType in, double alpha, int64_t alpha_int,
                       Stream s) {
  return with_type(in, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> ||
                  !admits<cat, T>()) {
      return cudaErrorNotSupported;
    } else {
      const T a = is_float_v<T> ? static_cast<T>(alpha) : static_cast<T>(alpha_int);
      return launch<3>(p, s, BinaryFn<op, T>{a});
    }
  });
}

template <int Bytes>
struct Word;
template <>
struct Word<1> {
  using type = uint8_t;
};
template <>
struct Word<2> {
  using type = uint16_t;
};
template <>
struct Word<4> {
  using type = uint32_t;
};
template <>
struct Word<8> {
  using type = uint64_t;
};

template <class F>
cudaError_t with_word(int element_size, F f) {
  switch (element_size) {
    case 1:
      return f(Word<1>::type{});
    case 2:
      return f(Word<2>::type{});
    case 4:
      return f(Word<4>::type{});
    case 8:
      return f(Word<8>::type{});
  }
  return cudaErrorNotSupported;
}

template <class D, class S>
struct ConvertFn {
  __device__ void operator()(char* (&ptr)[2]) const {
    *reinterpret_cast<D*>(ptr[0]) = convert<D>(*reinterpret_cast<const S*>(ptr[1]));
  }
};

template <class W>
struct FillFn {
  W value;
  __device__ void operator()(char* (&ptr)[1]) const { *reinterpret_cast<W*>(ptr[0]) = value; }
};

template <class W>
struct WhereFn {
  __device__ void operator()(char* (&ptr)[4]) const {
    *reinterpret_cast<W*>(ptr[0]) = *reinterpret_cast<const bool*>(ptr[1])
                                        ? *reinterpret_cast<const W*>(ptr[2])
                                        : *reinterpret_cast<const W*>(ptr[3]);
  }
};

}  // namespace

cudaError_t launch_copy(const ElementwisePlan<2>& p, ScalarType dst, ScalarType src, Stream s) {
  if (dst == src)  // the bits as they are (a NaN payload survives, as on the CPU)
    return with_word(static_cast<int>(elementSize(dst)), [&](auto w) {
      using W = decltype(w);
      return launch<2>(p, s, ConvertFn<W, W>{});
    });
  return with_type(dst, [&](auto dtag) {
    using D = decltype(dtag);
    return with_type(src, [&](auto stag) {
      using S = decltype(stag);
      return launch<2>(p, s, ConvertFn<D, S>{});
    });
  });
}

cudaError_t launch_fill(const ElementwisePlan<1>& p, int element_size, uint64_t bits, Stream s) {
  return with_word(element_size, [&](auto w) {
    using W = decltype(w);
    const W v = static_cast<W>(bits);
    return launch<1>(p, s, FillFn<W>{v});
  });
}

cudaError_t launch_where(const ElementwisePlan<4>& p, int element_size, Stream s) {
  return with_word(element_size, [&](auto w) {
    using W = decltype(w);
    return launch<4>(p, s, WhereFn<W>{});
  });
}

cudaError_t launch_unary(UnaryOp op, const ElementwisePlan<2>& p, ScalarType in, UnaryParams prm,
                         Stream s) {
  switch (op) {
#define NABLA_UNARY_OP(name, Kernel, dtype, ...) \
  case UnaryOp::Kernel:                          \
    return run_unary<UnaryOp::Kernel, Cat::dtype>(p, in, prm, s);
#define NABLA_UNARY_PREDICATE(name, Kernel) \
  case UnaryOp::Kernel:                     \
    return run_unary<UnaryOp::Kernel, Cat::Keep>(p, in, prm, s);
#define NABLA_UNARY_OP_ATTRS(name, Kernel, ...) \
  case UnaryOp::Kernel:                         \
    return run_unary<UnaryOp::Kernel, Cat::Attr>(p, in, prm, s);
#include "nabla/core/op_list/unary.def"
  }
  return cudaErrorNotSupported;
}

cudaError_t launch_binary(BinaryOp op, const ElementwisePlan<3>& p, ScalarType in, double alpha,
                          int64_t alpha_int, Stream s) {
  switch (op) {
#define NABLA_BINARY_OP(name, Kernel, dtype, ...) \
  case BinaryOp::Kernel:                          \
    return run_binary<BinaryOp::Kernel, Cat::dtype>(p, in, alpha, alpha_int, s);
#define NABLA_BINARY_KERNEL(name, Kernel, dtype) \
  case BinaryOp::Kernel:                         \
    return run_binary<BinaryOp::Kernel, Cat::dtype>(p, in, alpha, alpha_int, s);
#include "nabla/core/op_list/binary.def"
  }
  return cudaErrorNotSupported;
}

}  // namespace nabla::cuda_kernels
