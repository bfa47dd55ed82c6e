#include "nabla/core/detail/device_memory.h"

#include <cstring>

#include "nabla/core/cuda.h"
#include "nabla/core/error.h"
#include "nabla/core/storage.h"

namespace nabla::detail {

Device resolve_device(Device device) {
  if (device.is_cpu()) return Device(kCPU);
  NABLA_CHECK(cuda::is_available(), "device ", device,
              " is not available: this build of nabla or this machine has no CUDA device "
              "(cuda::is_available() is false)");
  const int64_t index = device.has_index() ? device.index() : cuda::current_device();
  NABLA_CHECK(index < cuda::device_count(), "device ", device, " does not exist: the machine has ",
              cuda::device_count(), " CUDA device(s)");
  return Device(kCUDA, static_cast<int8_t>(index));
}

void* device_alloc(size_t nbytes, Device device) {
  return device.is_cpu() ? cpu_alloc(nbytes) : cuda_alloc(nbytes, device.index());
}

void device_free(void* p, size_t nbytes, Device device) {
  if (device.is_cpu())
    cpu_free(p, nbytes);
  else
    cuda_free(p, nbytes, device.index());
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes,
                bool non_blocking) {
  if (nbytes == 0) return;
  if (dst_device.is_cpu() && src_device.is_cpu()) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  cuda_copy_bytes(dst, dst_device, src, src_device, nbytes, non_blocking);
}

}  // namespace nabla::detail
