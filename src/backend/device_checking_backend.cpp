#include "backend/device_checking_backend.h"

#include <optional>

#include "backend/profiling_backend.h"
#include "nabla/core/error.h"

namespace nabla {
namespace {

// Called with an entry's arguments: remembers the first defined tensor's device and
// refuses any other (Note [One device per op]).
class SameDevice {
 public:
  explicit SameDevice(const char* kernel) : kernel_(kernel) {}
  template <class... Args>
  void operator()(const Args&... args) {
    (visit(args), ...);
  }

 private:
  void visit(const Tensor& t) {
    if (!t.defined()) return;
    if (!first_) {
      first_ = t.device();
      return;
    }
    NABLA_CHECK(t.device() == *first_,
                "Expected all tensors to be on the same device, but found at least two devices, ",
                *first_, " and ", t.device(), "! (kernel ", kernel_, ")");
  }
  void visit(const std::vector<AdamSlot>& slots) {
    for (const AdamSlot& s : slots) {
      visit(s.param), visit(s.grad), visit(s.exp_avg), visit(s.exp_avg_sq);
      visit(s.max_exp_avg_sq);
    }
  }
  template <class T>
  void visit(const T&) {}

  const char* kernel_;
  std::optional<Device> first_;
};

}  // namespace

#define NABLA_KERNEL_METHOD(Ret, name, params, args, event) \
  Ret DeviceCheckingBackend::name params {                  \
    SameDevice{event} args;                                 \
    return inner_.name args;                                \
  }
#include "nabla/backend/kernel_methods.def"
#undef NABLA_KERNEL_METHOD

}  // namespace nabla
