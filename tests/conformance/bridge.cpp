#include "bridge.h"

#include <cstring>
#include <sstream>

namespace conform {

at::ScalarType to_torch(nabla::ScalarType t) {
  switch (t) {
    case nabla::kBool:
      return at::kBool;
    case nabla::kByte:
      return at::kByte;
    case nabla::kInt:
      return at::kInt;
    case nabla::kLong:
      return at::kLong;
    case nabla::kFloat:
      return at::kFloat;
    case nabla::kDouble:
      return at::kDouble;
    case nabla::kHalf:
      return at::kHalf;
    case nabla::kBFloat16:
      return at::kBFloat16;
    case nabla::kChar:
      return at::kChar;
    case nabla::kShort:
      return at::kShort;
  }
  throw std::logic_error("to_torch: unknown dtype");
}

nabla::ScalarType to_nabla(at::ScalarType t) {
  switch (t) {
    case at::kBool:
      return nabla::kBool;
    case at::kByte:
      return nabla::kByte;
    case at::kInt:
      return nabla::kInt;
    case at::kLong:
      return nabla::kLong;
    case at::kFloat:
      return nabla::kFloat;
    case at::kDouble:
      return nabla::kDouble;
    case at::kHalf:
      return nabla::kHalf;
    case at::kBFloat16:
      return nabla::kBFloat16;
    case at::kChar:
      return nabla::kChar;
    case at::kShort:
      return nabla::kShort;
    default:
      break;
  }
  throw std::logic_error(std::string("to_nabla: LibTorch dtype without a nabla twin: ") +
                         c10::toString(t));
}

at::Tensor to_torch(const nabla::Tensor& t) {
  const nabla::Storage& storage = t.impl()->storage();
  const int64_t esize = static_cast<int64_t>(t.element_size());
  const int64_t n = static_cast<int64_t>(storage->nbytes()) / esize;
  at::Tensor flat = at::empty({n}, at::TensorOptions(to_torch(t.scalar_type())));
  if (n > 0) std::memcpy(flat.data_ptr(), storage->data(), static_cast<size_t>(n * esize));
  return flat.as_strided(t.sizes().vec(), t.strides().vec(), t.storage_offset());
}

namespace {
std::string shape_str(at::IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}
}  // namespace

std::string compare(const at::Tensor& want, const nabla::Tensor& got, double rtol, double atol) {
  std::ostringstream msg;
  if (!got.defined()) return "nabla returned an undefined tensor";
  at::Tensor g = to_torch(got);
  if (g.sizes() != want.sizes())
    return "sizes differ: LibTorch " + shape_str(want.sizes()) + ", nabla " + shape_str(g.sizes());
  if (g.scalar_type() != want.scalar_type())
    return std::string("dtype differs: LibTorch ") + c10::toString(want.scalar_type()) +
           ", nabla " + c10::toString(g.scalar_type());
  if (want.numel() == 0) return "";
  at::Tensor w = want.contiguous().reshape({-1});
  g = g.contiguous().reshape({-1});
  at::Tensor bad;
  if (!at::isFloatingType(want.scalar_type())) {
    bad = w.ne(g);
  } else {
    at::Tensor wd = w.to(at::kDouble), gd = g.to(at::kDouble);
    at::Tensor close =
        wd.eq(gd) | (wd.isnan() & gd.isnan()) | ((wd - gd).abs() <= atol + rtol * wd.abs());
    bad = close.logical_not();
  }
  const int64_t nbad = bad.sum().item<int64_t>();
  if (nbad == 0) return "";
  const int64_t i = bad.nonzero().reshape({-1})[0].item<int64_t>();
  msg.precision(17);
  msg << nbad << " of " << w.numel() << " elements differ; first at flat index " << i
      << ": LibTorch " << w[i].to(at::kDouble).item<double>() << ", nabla "
      << g[i].to(at::kDouble).item<double>();
  if (at::isFloatingType(want.scalar_type())) {
    at::Tensor err = (w.to(at::kDouble) - g.to(at::kDouble)).abs().nan_to_num(0, 0, 0);
    msg << " (max abs error over finite elements " << err.max().item<double>() << ")";
  }
  return msg.str();
}

}  // namespace conform
