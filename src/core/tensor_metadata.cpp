// The Tensor methods that read only a tensor's metadata (sizes, strides, dtype, device) and
// the errors every layer raises about it. They are core's, so that the layers below ops
// (the backends, autograd) can call them: Tensor's other methods are declared in
// nabla/core/tensor.h but defined by the ops layer (src/ops), and no object of core calls
// one (docs/architecture.md, "Layers"; scripts/check_layer_symbols.py checks it).
#include "nabla/core/tensor.h"

namespace nabla {

namespace detail {

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = ndim > 1 ? ndim : 1;
  NABLA_CHECK(dim >= -n && dim < n, op, ": dimension out of range (expected to be in range of [",
              -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

void throw_dtype_mismatch(const char* op, ScalarType got, ScalarType want) {
  throw Error(str(op, ": expected scalar type ", want, " but found ", got));
}

}  // namespace detail

void Tensor::throw_undefined() {
  throw Error(
      "undefined Tensor: this method needs a defined tensor (default-constructed "
      "tensors are undefined; check defined() first)");
}

int64_t Tensor::size(int64_t d) const { return sizes()[detail::wrap_dim(d, dim(), "size")]; }
int64_t Tensor::stride(int64_t d) const { return strides()[detail::wrap_dim(d, dim(), "stride")]; }

TensorOptions Tensor::options() const {
  return TensorOptions().dtype(scalar_type()).device(device());
}

bool Tensor::is_contiguous(MemoryFormat format) const {
  if (format == MemoryFormat::Contiguous) return checked().is_contiguous();
  return is_contiguous_in(sizes(), strides(), format);
}
bool Tensor::is_non_overlapping_and_dense() const {
  return nabla::is_non_overlapping_and_dense(sizes(), strides());
}
MemoryFormat Tensor::suggest_memory_format(bool) const {
  return nabla::suggest_memory_format(sizes(), strides());
}

}  // namespace nabla
