#pragma once
// TensorOptions: dtype, device, requires_grad and memory format for a new tensor, with
// LibTorch's chained setters (each returns a modified copy) and free helpers dtype(),
// device(), requires_grad(), memory_format().
#include <type_traits>
#include <utility>

#include "nabla/core/device.h"
#include "nabla/core/memory_format.h"
#include "nabla/core/optional.h"
#include "nabla/core/scalar_type.h"

namespace nabla {

enum class Layout : int8_t { Strided };
constexpr Layout kStrided = Layout::Strided;

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}
  TensorOptions(Device d) : device_(d) {}
  /// Anything a Device is made of ({kCUDA, 1}, "cuda:1"), as LibTorch's TensorOptions.
  template <class... Args,
            std::enable_if_t<(sizeof...(Args) > 1) && std::is_constructible_v<Device, Args&&...>,
                             int> = 0>
  TensorOptions(Args&&... args) : device_(Device(std::forward<Args>(args)...)) {}
  TensorOptions(DeviceType d) : device_(Device(d)) {}
  TensorOptions(Layout) {}
  TensorOptions(MemoryFormat f) : memory_format_(f) {}

  TensorOptions dtype(ScalarType t) const {
    auto o = *this;
    o.dtype_ = t;
    return o;
  }
  TensorOptions dtype(optional<ScalarType> t) const {
    auto o = *this;
    o.dtype_ = t;
    return o;
  }
  template <class T>
  TensorOptions dtype() const {
    return dtype(CppTypeToScalarType<T>::value);
  }
  TensorOptions device(Device d) const {
    auto o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions requires_grad(bool r) const {
    auto o = *this;
    o.requires_grad_ = r;
    return o;
  }
  TensorOptions layout(Layout) const { return *this; }
  TensorOptions pinned_memory(bool) const { return *this; }
  TensorOptions memory_format(optional<MemoryFormat> f) const {
    auto o = *this;
    o.memory_format_ = f;
    return o;
  }

  /// The dtype, or the default dtype when none was set.
  ScalarType dtype() const { return dtype_ ? *dtype_ : get_default_dtype(); }
  bool has_dtype() const { return dtype_.has_value(); }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }
  Layout layout() const { return kStrided; }
  bool has_memory_format() const { return memory_format_.has_value(); }
  optional<MemoryFormat> memory_format_opt() const { return memory_format_; }
  bool has_device() const { return true; }
  bool has_requires_grad() const { return requires_grad_; }
  optional<ScalarType> dtype_opt() const { return dtype_; }
  optional<Device> device_opt() const { return device_; }
  bool pinned_memory() const { return false; }

 private:
  optional<ScalarType> dtype_;
  Device device_{kCPU};
  bool requires_grad_ = false;
  optional<MemoryFormat> memory_format_;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
template <class T>
TensorOptions dtype() {
  return TensorOptions().dtype<T>();
}
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }
inline TensorOptions layout(Layout) { return TensorOptions(); }
inline TensorOptions memory_format(MemoryFormat f) { return TensorOptions().memory_format(f); }

}  // namespace nabla
