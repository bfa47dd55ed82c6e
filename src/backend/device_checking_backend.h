#pragma once
// Note [One device per op]: every tensor of one kernel call lives on one device. Ops
// allocate their results on their inputs' device, so a program that mixes devices meets
// this proxy first: while a CUDA device is present, backend_for() hands out the device's
// backend wrapped in it, and each entry checks the devices of its tensor arguments
// (generated from nabla/backend/kernel_methods.def) before forwarding the call. A mix is
// a nabla::Error naming both devices and the kernel, as LibTorch's "Expected all tensors
// to be on the same device". Without a GPU no tensor can leave the CPU, and the check is
// skipped.
#include "nabla/backend/backend.h"

namespace nabla {

class DeviceCheckingBackend final : public KernelBackend {
 public:
  explicit DeviceCheckingBackend(KernelBackend& inner) : inner_(inner) {}
  DeviceType device_type() const override { return inner_.device_type(); }
#define NABLA_KERNEL_METHOD(Ret, name, params, args, event) Ret name params override;
#include "nabla/backend/kernel_methods.def"
#undef NABLA_KERNEL_METHOD

 private:
  KernelBackend& inner_;
};

}  // namespace nabla
