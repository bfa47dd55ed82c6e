#pragma once
// Sample inputs for the conformance table (torch-free, so it compiles fast). Every
// generator returns nabla tensors; the bridge mirrors them to LibTorch byte for byte,
// strides and storage offset included, so both libraries see the same layout.
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nabla/nabla.h>

namespace conform {

using Rng = std::mt19937_64;
using Shape = std::vector<int64_t>;

/// Value range of a random input. Floats are uniform in [lo, hi]; integer dtypes take
/// the integers in [ceil(lo), floor(hi)] clipped to [-20, 20] (so products and powers
/// stay small); bool is a fair coin. `specials` sprinkles 0, -0, +-inf and NaN into
/// float tensors of 8 or more elements.
struct Dom {
  double lo = -2, hi = 2;
  bool specials = false;
};
inline constexpr Dom kAny{-2, 2};
inline constexpr Dom kPositive{0.1, 4};
inline constexpr Dom kUnit{-0.95, 0.95};  // open (-1, 1): asin, acos
inline constexpr Dom kWide{-6, 6};
inline constexpr Dom kNonZero{0.5, 4};  // divisors (sign chosen at random)
inline constexpr Dom kSpecials{-3, 3, true};

/// One set of inputs for an op, with a short description for failure messages.
struct Sample {
  std::vector<nabla::Tensor> inputs;
  std::string what;
};
using Samples = std::vector<Sample>;
/// A generator: samples for one value dtype (inputs that are not values — masks,
/// indices — choose their own dtype).
using Gen = std::function<Samples(Rng&, nabla::ScalarType)>;

/// A contiguous random tensor.
nabla::Tensor make(Rng& rng, const Shape& shape, nabla::ScalarType dtype, Dom dom = kAny);
/// Divisor-style values: magnitude in [dom.lo, dom.hi], random sign.
nabla::Tensor make_signed(Rng& rng, const Shape& shape, nabla::ScalarType dtype, Dom dom);
nabla::Tensor make_bool(Rng& rng, const Shape& shape);
/// Random int64 indices in [0, bound).
nabla::Tensor make_index(Rng& rng, const Shape& shape, int64_t bound);

/// Layouts of one shape: contiguous, transposed, sliced with a step, expanded
/// (stride 0) and so on. `layout` selects one; each has the logical sizes asked for.
enum class Layout { Contiguous, Transposed, Strided, Expanded, Offset };
nabla::Tensor make_layout(Rng& rng, const Shape& shape, nabla::ScalarType dtype, Dom dom,
                          Layout layout);

/// Unary samples: 0-d, empty, 1-d, 2-d, 3-d, transposed, strided, expanded, offset, and
/// one tensor large enough to take the parallel path.
Gen unary(Dom dom = kAny);
/// Binary samples over broadcasting pairs, 0-d with n-d, empty, non-contiguous
/// operands and a large pair. `db` is the second operand's domain.
Gen binary(Dom da = kAny, Dom db = kAny);
/// Like binary, but b is a divisor (nonzero, random sign).
Gen binary_divisor(Dom da = kAny);
/// Three broadcast-compatible operands (addcmul, lerp...).
Gen ternary(Dom d = kAny);
/// (bool condition, a, b) with broadcasting.
Gen where_samples();
/// One sample per shape (each input contiguous unless the shape list says otherwise).
Gen fixed(std::vector<std::vector<Shape>> shapes, Dom dom = kAny);
/// One sample per case; each input is (shape, layout), values from `dom`.
using LayoutCase = std::vector<std::pair<Shape, Layout>>;
Gen layouts(std::vector<LayoutCase> cases, Dom dom = kAny);
/// A sample of the given tensors, described for failure messages.
Sample sample_of(std::vector<nabla::Tensor> inputs);
/// A random permutation of [0, n) (int64), for indices without duplicates.
nabla::Tensor make_permutation(Rng& rng, int64_t n);

/// A generator with no inputs except a 0-d tensor of the requested dtype (for factories:
/// the op reads the dtype from it).
Gen dtype_only();

/// Integer dtypes the table uses for "accepts ints" ops.
inline const std::vector<nabla::ScalarType> kFloats = {nabla::kFloat, nabla::kDouble};
inline const std::vector<nabla::ScalarType> kFloatsAndLong = {nabla::kFloat, nabla::kDouble,
                                                              nabla::kLong};
inline const std::vector<nabla::ScalarType> kAllTypes = {
    nabla::kFloat, nabla::kDouble, nabla::kLong, nabla::kInt, nabla::kByte, nabla::kBool};

std::string describe(const nabla::Tensor& t);

}  // namespace conform
