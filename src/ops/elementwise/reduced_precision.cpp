// Copies and fills of Half/BFloat16 tensors (nabla/core/half.h): element by element in
// float64, since the kernels have no 16-bit paths. Conversions are all these dtypes need.
#include <vector>

#include "nabla/core/half.h"
#include "nabla/ops/factories.h"
#include "ops/op_utils.h"

namespace nabla::ops {

namespace {

// Calls f(i, offset) for the elements of a tensor of `sizes`/`strides` in row-major
// order; offset is in elements from the first element.
template <class F>
void for_each_element(IntArrayRef sizes, IntArrayRef strides, F&& f) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (n == 0) return;
  std::vector<int64_t> index(sizes.size(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(i, offset);
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (++index[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      offset -= (sizes[d] - 1) * strides[d];
      index[d] = 0;
    }
  }
}

double read_reduced(const void* base, ScalarType t, int64_t offset) {
  const uint16_t bits = static_cast<const uint16_t*>(base)[offset];
  return t == kHalf ? static_cast<float>(Half(bits, Half::from_bits()))
                    : static_cast<float>(BFloat16(bits, BFloat16::from_bits()));
}
uint16_t reduced_bits(ScalarType t, double v) {
  return t == kHalf ? Half(static_cast<float>(v)).x : BFloat16(static_cast<float>(v)).x;
}

}  // namespace

// On a GPU the backend's copy and fill convert 16-bit floats themselves
// (cuda/elementwise.cu); the host loops below are the CPU's.
Tensor reduced_to_double(const Tensor& src) {
  Tensor out = empty_tensor(src.sizes(), kDouble, src.device());
  if (!src.is_cpu()) {
    backend_for(src.device()).copy(out, src);
    return out;
  }
  double* o = ops::host_ptr<double>(out);
  const void* base = ops::host_ptr(src);
  const ScalarType t = src.scalar_type();
  for_each_element(src.sizes(), src.strides(),
                   [&](int64_t i, int64_t off) { o[i] = read_reduced(base, t, off); });
  return out;
}

void copy_with_reduced(const Tensor& dst, const Tensor& src) {
  if (!dst.is_cpu()) return backend_for(dst.device()).copy(dst, src);
  // src is already broadcast to dst's sizes.
  Tensor values = isReducedFloatingType(src.scalar_type()) ? reduced_to_double(src) : src;
  if (!isReducedFloatingType(dst.scalar_type())) {
    backend_for(dst).copy(dst, values);
    return;
  }
  Tensor d = values.to(kDouble).contiguous();
  const double* v = ops::host_ptr<double>(d);
  void* base = ops::host_ptr(dst);
  const ScalarType t = dst.scalar_type();
  for_each_element(dst.sizes(), dst.strides(), [&](int64_t i, int64_t off) {
    static_cast<uint16_t*>(base)[off] = reduced_bits(t, v[i]);
  });
}

void fill_reduced(const Tensor& t, const Scalar& value) {
  if (!t.is_cpu()) return backend_for(t.device()).fill(t, value);
  const uint16_t bits = reduced_bits(t.scalar_type(), value.toDouble());
  void* base = ops::host_ptr(t);
  for_each_element(t.sizes(), t.strides(),
                   [&](int64_t, int64_t off) { static_cast<uint16_t*>(base)[off] = bits; });
}

}  // namespace nabla::ops
