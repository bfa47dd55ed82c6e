#pragma once
// Device: where a tensor's bytes live, the CPU or a CUDA device (nabla/core/cuda.h has
// the CUDA runtime's functions).
#include <cstdint>
#include <iosfwd>
#include <string>

namespace nabla {

enum class DeviceType : int8_t { CPU, CUDA };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

class Device {
 public:
  using Type = DeviceType;  // LibTorch's Device::Type
  Device(DeviceType type, int8_t index = -1) : type_(type), index_(index) {}
  /// Parses "cpu", "cuda", "cuda:1"; anything else is a nabla::Error.
  Device(const std::string& spec);
  Device(const char* spec) : Device(std::string(spec)) {}
  DeviceType type() const { return type_; }
  int8_t index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }
  bool is_cuda() const { return type_ == DeviceType::CUDA; }
  std::string str() const;
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  DeviceType type_;
  int8_t index_;
};
std::ostream& operator<<(std::ostream& os, const Device& d);
std::ostream& operator<<(std::ostream& os, DeviceType t);

/// LibTorch's dispatch backends (c10::Backend), for Tensor::toBackend.
enum class Backend : int8_t { CPU, CUDA, Undefined };

}  // namespace nabla
