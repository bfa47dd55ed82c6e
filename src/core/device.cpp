#include "nabla/core/device.h"

#include <ostream>

#include "nabla/core/error.h"

namespace nabla {

Device::Device(const std::string& spec) : type_(DeviceType::CPU), index_(-1) {
  std::string kind = spec, idx;
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    kind = spec.substr(0, colon);
    idx = spec.substr(colon + 1);
  }
  if (kind == "cpu")
    type_ = DeviceType::CPU;
  else if (kind == "cuda")
    type_ = DeviceType::CUDA;
  else
    NABLA_CHECK(false, "Device: expected a device string such as \"cpu\" or \"cuda:0\", got \"",
                spec, "\"");
  if (!idx.empty()) {
    bool digits = idx.size() <= 3 && idx.find_first_not_of("0123456789") == std::string::npos;
    NABLA_CHECK(digits, "Device: invalid device index in \"", spec, "\"");
    index_ = static_cast<int8_t>(std::stoi(idx));
  }
}

std::string Device::str() const {
  std::string s = type_ == DeviceType::CPU ? "cpu" : "cuda";
  if (index_ >= 0) {
    s += ':';
    s += std::to_string(index_);
  }
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }
std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << (t == DeviceType::CPU ? "cpu" : "cuda");
}

}  // namespace nabla
