// nabla::cuda in a build without CUDA (NABLA_CUDA off, or no CUDA compiler found):
// cmake/NablaCuda.cmake compiles this file instead of src/core/cuda/. Nothing is
// available; every function that needs a device says so.
#include "nabla/core/cuda.h"
#include "nabla/core/detail/device_memory.h"
#include "nabla/core/error.h"

namespace nabla {
namespace {

[[noreturn]] void no_cuda(const char* what) {
  throw Error(str(what, ": this build of nabla has no CUDA (configure with -DNABLA_CUDA=ON on a ",
                  "machine with the CUDA toolkit; cuda::is_available() is false)"));
}

}  // namespace

namespace cuda {

bool is_available() { return false; }
int64_t device_count() { return 0; }
bool cudnn_is_available() { return false; }
void synchronize(int64_t) { no_cuda("cuda::synchronize"); }
int64_t current_device() { no_cuda("cuda::current_device"); }
void set_device(int64_t) { no_cuda("cuda::set_device"); }
// torch::cuda::manual_seed is a no-op without a GPU, so that seeding code runs anywhere.
void manual_seed(uint64_t) {}
void manual_seed_all(uint64_t) {}
bool CUDAStream::query() const { no_cuda("CUDAStream::query"); }
void CUDAStream::synchronize() const { no_cuda("CUDAStream::synchronize"); }
CUDAStream getCurrentCUDAStream(int64_t) { no_cuda("getCurrentCUDAStream"); }
CUDAStream getDefaultCUDAStream(int64_t) { no_cuda("getDefaultCUDAStream"); }
CUDAStream getStreamFromPool(bool, int64_t) { no_cuda("getStreamFromPool"); }
void setCurrentCUDAStream(CUDAStream) { no_cuda("setCurrentCUDAStream"); }
CUDAStreamGuard::CUDAStreamGuard(CUDAStream s) : original_(s), current_(s), original_device_(-1) {
  no_cuda("CUDAStreamGuard");
}
CUDAStreamGuard::~CUDAStreamGuard() = default;
CUDAGuard::CUDAGuard(int64_t) : original_(-1) { no_cuda("CUDAGuard"); }
CUDAGuard::~CUDAGuard() = default;
CUDAEvent::~CUDAEvent() = default;
void CUDAEvent::record() { no_cuda("CUDAEvent::record"); }
void CUDAEvent::record(const CUDAStream&) { no_cuda("CUDAEvent::record"); }
void CUDAEvent::block(const CUDAStream&) { no_cuda("CUDAEvent::block"); }
bool CUDAEvent::query() const { return true; }
void CUDAEvent::synchronize() const {}
float CUDAEvent::elapsed_time(const CUDAEvent&) const { no_cuda("CUDAEvent::elapsed_time"); }
size_t memory_allocated(int64_t) { no_cuda("cuda::memory_allocated"); }
size_t max_memory_allocated(int64_t) { no_cuda("cuda::max_memory_allocated"); }
size_t memory_reserved(int64_t) { no_cuda("cuda::memory_reserved"); }
void reset_peak_memory_stats(int64_t) { no_cuda("cuda::reset_peak_memory_stats"); }
size_t device_allocations(int64_t) { no_cuda("cuda::device_allocations"); }
void empty_cache() {}
size_t host_synchronizations() { return 0; }

}  // namespace cuda

namespace detail {

void* cuda_alloc(size_t, int) { no_cuda("allocating CUDA memory"); }
void cuda_free(void*, size_t, int) {}
void cuda_copy_bytes(void*, Device, const void*, Device, size_t, bool) {
  no_cuda("copying to or from a CUDA device");
}
void* cuda_host_alloc(size_t) { no_cuda("pin_memory"); }
void cuda_host_free(void*) {}
bool cuda_is_pinned(const void*) { return false; }

}  // namespace detail
}  // namespace nabla
