// nabla::cuda's devices, streams and events over the CUDA runtime API (nabla/core/cuda.h).
// Note [Current stream]: each thread has a current stream per device (the device's
// default stream unless a CUDAStreamGuard or setCurrentCUDAStream chose another); every
// kernel and copy nabla queues goes on it, so work of one thread runs in order without
// host synchronization.
#include <array>
#include <atomic>
#include <mutex>

#include "nabla/core/cuda.h"
#include "nabla/core/detail/cuda/cuda_check.h"
#include "nabla/core/detail/cuda/device_checks.h"
#include "nabla/core/detail/cuda/libraries.h"
#include "nabla/core/generator.h"

namespace nabla::cuda {

namespace detail {

namespace {
std::atomic<size_t> g_host_syncs{0};
}

void note_host_sync() { g_host_syncs.fetch_add(1, std::memory_order_relaxed); }

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  (void)cudaGetLastError();  // clear a sticky-free error so the next call starts clean
  throw Error(str("CUDA error: ", cudaGetErrorString(err), " (", cudaGetErrorName(err), ") in ",
                  call, " at ", file, ":", line));
}

}  // namespace detail

namespace {

constexpr int kMaxDevices = 16;
constexpr int kPoolSize = 4;

int count_devices() {
  int n = 0;
  // No driver or no GPU: not an error here, just no devices.
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n < kMaxDevices ? n : kMaxDevices;
}

int devices() {
  static const int n = count_devices();
  return n;
}

int8_t index_or_current(int64_t device_index) {
  NABLA_CHECK(is_available(), "CUDA is not available: this machine has no CUDA device or driver");
  if (device_index < 0) device_index = current_device();
  NABLA_CHECK(device_index < devices(), "CUDA device index ", device_index,
              " out of range: the machine has ", devices(), " device(s)");
  return static_cast<int8_t>(device_index);
}

thread_local std::array<CUstream_st*, kMaxDevices> t_current_stream{};

struct StreamPool {
  std::once_flag once[kMaxDevices];
  std::array<std::array<CUstream_st*, kPoolSize>, kMaxDevices> streams{};
  std::array<std::array<CUstream_st*, kPoolSize>, kMaxDevices> high{};
  std::atomic<unsigned> next{0};
};
StreamPool& pool() {
  static StreamPool* p = new StreamPool();  // never destroyed: streams outlive statics
  return *p;
}

}  // namespace

bool is_available() { return devices() > 0; }
int64_t device_count() { return devices(); }

int64_t current_device() {
  int d = 0;
  NABLA_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void set_device(int64_t device_index) {
  NABLA_CUDA_CHECK(cudaSetDevice(index_or_current(device_index)));
}

size_t host_synchronizations() { return detail::g_host_syncs.load(std::memory_order_relaxed); }

void synchronize(int64_t device_index) {
  const int8_t d = index_or_current(device_index);
  CUDAGuard guard(d);
  detail::note_host_sync();
  NABLA_CUDA_CHECK(cudaDeviceSynchronize());
  detail::raise_failed_checks(d, detail::Waited::Device);
}

void manual_seed(uint64_t seed) {
  if (is_available()) default_generator(Device(kCUDA, index_or_current(-1))).set_current_seed(seed);
}

void manual_seed_all(uint64_t seed) {
  for (int d = 0; d < devices(); ++d)
    default_generator(Device(kCUDA, static_cast<int8_t>(d))).set_current_seed(seed);
}

bool CUDAStream::query() const {
  const cudaError_t err = cudaStreamQuery(stream_);
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  NABLA_CUDA_CHECK(err);
  return true;
}

void CUDAStream::synchronize() const {
  detail::note_host_sync();
  NABLA_CUDA_CHECK(cudaStreamSynchronize(stream_));
  detail::raise_failed_checks(static_cast<int>(device_index()), detail::Waited::Stream, stream_);
}

CUDAStream getCurrentCUDAStream(int64_t device_index) {
  const int8_t d = index_or_current(device_index);
  return CUDAStream(d, t_current_stream[d]);
}

CUDAStream getDefaultCUDAStream(int64_t device_index) {
  return CUDAStream(index_or_current(device_index), nullptr);
}

CUDAStream getStreamFromPool(bool isHighPriority, int64_t device_index) {
  const int8_t d = index_or_current(device_index);
  StreamPool& p = pool();
  std::call_once(p.once[d], [&] {
    CUDAGuard guard(d);
    int least = 0, greatest = 0;
    NABLA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (int i = 0; i < kPoolSize; ++i) {
      NABLA_CUDA_CHECK(
          cudaStreamCreateWithPriority(&p.streams[d][i], cudaStreamNonBlocking, least));
      NABLA_CUDA_CHECK(
          cudaStreamCreateWithPriority(&p.high[d][i], cudaStreamNonBlocking, greatest));
    }
  });
  const unsigned i = p.next.fetch_add(1, std::memory_order_relaxed) % kPoolSize;
  return CUDAStream(d, isHighPriority ? p.high[d][i] : p.streams[d][i]);
}

void setCurrentCUDAStream(CUDAStream stream) {
  t_current_stream[static_cast<size_t>(stream.device_index())] = stream.stream();
}

CUDAStreamGuard::CUDAStreamGuard(CUDAStream stream)
    : original_(getCurrentCUDAStream(stream.device_index())),
      current_(stream),
      original_device_(current_device()) {
  set_device(stream.device_index());
  setCurrentCUDAStream(stream);
}

CUDAStreamGuard::~CUDAStreamGuard() {
  setCurrentCUDAStream(original_);
  (void)cudaSetDevice(static_cast<int>(original_device_));
}

CUDAGuard::CUDAGuard(int64_t device_index) : original_(current_device()) {
  if (device_index >= 0 && device_index != original_) set_device(device_index);
}

CUDAGuard::~CUDAGuard() {
  int now = 0;
  if (cudaGetDevice(&now) == cudaSuccess && now != original_)
    (void)cudaSetDevice(static_cast<int>(original_));
}

CUDAEvent::~CUDAEvent() {
  if (event_) (void)cudaEventDestroy(event_);
}

void CUDAEvent::record() { record(getCurrentCUDAStream()); }

void CUDAEvent::record(const CUDAStream& stream) {
  CUDAGuard guard(stream.device_index());
  if (!event_) {
    NABLA_CUDA_CHECK(
        cudaEventCreateWithFlags(&event_, timing_ ? cudaEventDefault : cudaEventDisableTiming));
    device_ = static_cast<int8_t>(stream.device_index());
  }
  NABLA_CHECK(device_ == stream.device_index(),
              "CUDAEvent::record: the event belongs to cuda:", int(device_),
              ", the stream to cuda:", stream.device_index());
  NABLA_CUDA_CHECK(cudaEventRecord(event_, stream.stream()));
}

void CUDAEvent::block(const CUDAStream& stream) {
  if (!event_) return;
  CUDAGuard guard(stream.device_index());
  NABLA_CUDA_CHECK(cudaStreamWaitEvent(stream.stream(), event_, 0));
}

bool CUDAEvent::query() const {
  if (!event_) return true;
  const cudaError_t err = cudaEventQuery(event_);
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  NABLA_CUDA_CHECK(err);
  return true;
}

void CUDAEvent::synchronize() const {
  if (!event_) return;
  detail::note_host_sync();
  NABLA_CUDA_CHECK(cudaEventSynchronize(event_));
  detail::raise_failed_checks(device_, detail::Waited::Event);
}

float CUDAEvent::elapsed_time(const CUDAEvent& later) const {
  NABLA_CHECK(timing_ && later.timing_, "CUDAEvent::elapsed_time: both events need enable_timing");
  NABLA_CHECK(event_ && later.event_, "CUDAEvent::elapsed_time: both events must be recorded");
  float ms = 0;
  NABLA_CUDA_CHECK(cudaEventElapsedTime(&ms, event_, later.event_));
  return ms;
}

bool cudnn_is_available() {
#if NABLA_HAVE_CUDNN
  return is_available() &&
         detail::cudnn() != nullptr;  // opens it (Note [CUDA libraries on first use])
#else
  return false;
#endif
}

}  // namespace nabla::cuda
