#include "exact.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace conform {

namespace {

// One element, read from raw bytes: floating types widen to double, the others to int64
// (so large int64 values compare exactly).
struct Elem {
  bool floating = false;
  double f = 0;
  int64_t i = 0;
};

template <class T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

Elem read(const unsigned char* p, nabla::ScalarType t) {
  switch (t) {
    case nabla::kBool:
      return {false, 0, load<uint8_t>(p) != 0};
    case nabla::kByte:
      return {false, 0, load<uint8_t>(p)};
    case nabla::kInt:
      return {false, 0, load<int32_t>(p)};
    case nabla::kLong:
      return {false, 0, load<int64_t>(p)};
    case nabla::kFloat:
      return {true, load<float>(p), 0};
    case nabla::kDouble:
      return {true, load<double>(p), 0};
    case nabla::kHalf:
      return {true, static_cast<float>(nabla::Half(load<uint16_t>(p), nabla::Half::from_bits())),
              0};
    case nabla::kBFloat16:
      return {true,
              static_cast<float>(nabla::BFloat16(load<uint16_t>(p), nabla::BFloat16::from_bits())),
              0};
    case nabla::kChar:
      return {false, 0, load<int8_t>(p)};
    case nabla::kShort:
      return {false, 0, load<int16_t>(p)};
  }
  throw std::logic_error("exact: unknown dtype");
}

bool same(const Elem& a, const Elem& b) {
  if (a.floating) return a.f == b.f || (std::isnan(a.f) && std::isnan(b.f));
  return a.i == b.i;
}

std::string show(const Elem& e) {
  std::ostringstream os;
  os.precision(17);
  if (e.floating)
    os << e.f;
  else
    os << e.i;
  return os.str();
}

const unsigned char* storage_bytes(const nabla::Tensor& t) {
  return static_cast<const unsigned char*>(t.impl()->storage()->data());
}

std::string sizes_str(nabla::IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

// Calls f(flat index, storage element index) for every element of t in row-major order.
template <class F>
void for_each_element(const nabla::Tensor& t, F&& f) {
  const int64_t n = t.numel();
  if (n == 0) return;
  const auto sizes = t.sizes().vec();
  const auto strides = t.strides().vec();
  std::vector<int64_t> idx(sizes.size(), 0);
  int64_t at = t.storage_offset();
  for (int64_t k = 0; k < n; ++k) {
    f(k, at);
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) {
        at += strides[d];
        break;
      }
      at -= (sizes[d] - 1) * strides[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

std::string exact_diff(const nabla::Tensor& want, const nabla::Tensor& got) {
  if (!want.defined() || !got.defined()) {
    if (want.defined() == got.defined()) return "";
    return want.defined() ? "undefined tensor, expected a defined one"
                          : "a defined tensor, expected an undefined one";
  }
  if (want.sizes() != got.sizes())
    return "sizes differ: want " + sizes_str(want.sizes()) + ", got " + sizes_str(got.sizes());
  if (want.scalar_type() != got.scalar_type())
    return "dtype differs: want " + std::string(nabla::dtype_name(want.scalar_type())) + ", got " +
           std::string(nabla::dtype_name(got.scalar_type()));
  const nabla::ScalarType t = want.scalar_type();
  const int64_t esize = static_cast<int64_t>(want.element_size());
  const unsigned char* wb = storage_bytes(want);
  const unsigned char* gb = storage_bytes(got);
  std::vector<int64_t> wat;  // storage elements of want, in row-major order
  wat.reserve(static_cast<size_t>(want.numel()));
  for_each_element(want, [&](int64_t, int64_t at) { wat.push_back(at); });
  int64_t nbad = 0, first = -1;
  Elem first_want, first_got;
  for_each_element(got, [&](int64_t k, int64_t at) {
    const Elem w = read(wb + wat[static_cast<size_t>(k)] * esize, t), g = read(gb + at * esize, t);
    if (same(w, g)) return;
    if (nbad++ == 0) {
      first = k;
      first_want = w;
      first_got = g;
    }
  });
  if (nbad == 0) return "";
  return std::to_string(nbad) + " of " + std::to_string(want.numel()) +
         " elements differ; first at flat index " + std::to_string(first) + ": want " +
         show(first_want) + ", got " + show(first_got);
}

StorageSnapshot::StorageSnapshot(const std::vector<nabla::Tensor>& tensors) {
  for (const auto& t : tensors) {
    if (!t.defined()) {
      bytes_.emplace_back();
      continue;
    }
    const unsigned char* p = storage_bytes(t);
    bytes_.emplace_back(p, p + t.impl()->storage()->nbytes());
  }
}

std::string StorageSnapshot::changed(const std::vector<nabla::Tensor>& tensors, size_t i) const {
  const nabla::Tensor& t = tensors[i];
  if (!t.defined()) return "";
  const std::vector<unsigned char>& before = bytes_[i];
  const size_t nbytes = t.impl()->storage()->nbytes();
  if (nbytes != before.size())
    return "storage resized from " + std::to_string(before.size()) + " to " +
           std::to_string(nbytes) + " bytes";
  const unsigned char* now = storage_bytes(t);
  if (nbytes == 0 || std::memcmp(before.data(), now, nbytes) == 0) return "";
  const size_t esize = t.element_size();
  size_t k = 0;
  while (std::memcmp(before.data() + k * esize, now + k * esize, esize) == 0) ++k;
  return "storage element " + std::to_string(k) + " was " +
         show(read(before.data() + k * esize, t.scalar_type())) + ", is " +
         show(read(now + k * esize, t.scalar_type()));
}

}  // namespace conform
