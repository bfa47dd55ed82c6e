#pragma once
// Memory on any device, for Storage and the cross-device copies: the CPU's caching
// allocator, or the CUDA caching allocator (src/core/cuda/caching_allocator.cpp; in a
// build without CUDA, src/core/cuda_unavailable.cpp refuses).
#include <cstddef>

#include "nabla/core/device.h"

namespace nabla::detail {

/// The device a new storage lands on: "cuda" means the current CUDA device (cuda:N);
/// the CPU has no index. A nabla::Error for a CUDA device this build or machine lacks.
Device resolve_device(Device device);
/// nbytes of fresh memory on `device` (resolved); never null for nbytes > 0.
void* device_alloc(size_t nbytes, Device device);
void device_free(void* p, size_t nbytes, Device device);
/// Copies nbytes between any two devices, ordered on the current CUDA stream of the CUDA
/// side. Returns once the bytes may be used from the host, unless `non_blocking` and the
/// host side is pinned (then the copy may still be in flight, as in LibTorch).
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes,
                bool non_blocking);

// The CUDA side of the above (src/core/cuda/, or the refusals of cuda_unavailable.cpp).
void* cuda_alloc(size_t nbytes, int device_index);
void cuda_free(void* p, size_t nbytes, int device_index);
void cuda_copy_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                     size_t nbytes, bool non_blocking);
/// Page-locked host memory for pin_memory() (cudaHostAlloc) and its release.
void* cuda_host_alloc(size_t nbytes);
void cuda_host_free(void* p);
/// Whether p lies in page-locked host memory that CUDA knows.
bool cuda_is_pinned(const void* p);

}  // namespace nabla::detail
