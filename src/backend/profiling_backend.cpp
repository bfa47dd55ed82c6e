#include "backend/profiling_backend.h"

#include "nabla/core/cuda.h"
#include "nabla/core/profiler.h"

namespace nabla {

using autograd::profiler::EventKind;
using autograd::profiler::RecordFunction;

// Kernel names follow from the op lists (core/op_list/*.def); the remaining switches list
// every enumerator without a default, so -Wswitch flags a new one.
const char* kernel_name(UnaryOp op) {
  switch (op) {
#define NABLA_UNARY_OP(name, Kernel, ...) \
  case UnaryOp::Kernel:                   \
    return "unary." #Kernel;
#define NABLA_UNARY_PREDICATE(name, Kernel) NABLA_UNARY_OP(name, Kernel)
#define NABLA_UNARY_OP_ATTRS(name, Kernel, ...) NABLA_UNARY_OP(name, Kernel)
#include "nabla/core/op_list/unary.def"
  }
  return "unary";
}

const char* kernel_name(BinaryOp op) {
  switch (op) {
#define NABLA_BINARY_OP(name, Kernel, ...) \
  case BinaryOp::Kernel:                   \
    return "binary." #Kernel;
#define NABLA_BINARY_KERNEL(name, Kernel, dtype) NABLA_BINARY_OP(name, Kernel)
#include "nabla/core/op_list/binary.def"
  }
  return "binary";
}

const char* kernel_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "reduce.Sum";
    case ReduceOp::Prod:
      return "reduce.Prod";
    case ReduceOp::Max:
      return "reduce.Max";
    case ReduceOp::Min:
      return "reduce.Min";
    case ReduceOp::All:
      return "reduce.All";
    case ReduceOp::Any:
      return "reduce.Any";
  }
  return "reduce";
}

const char* kernel_name(KernelBackend::Distribution d) {
  switch (d) {
    case KernelBackend::Distribution::Uniform:
      return "random.Uniform";
    case KernelBackend::Distribution::Normal:
      return "random.Normal";
    case KernelBackend::Distribution::Bernoulli:
      return "random.Bernoulli";
    case KernelBackend::Distribution::RandInt:
      return "random.RandInt";
  }
  return "random";
}

namespace {

// A GPU kernel is queued, not run, when its call returns: while profiling, the event waits
// for the device's stream before it ends, so its time is the kernel's (the program runs
// slower under the profiler, as with CUDA's own blocking launches).
struct WaitForDevice {
  DeviceType type;
  ~WaitForDevice() {
    if (type == DeviceType::CUDA) {
      try {
        cuda::getCurrentCUDAStream().synchronize();
      } catch (const Error&) {  // the kernel's own error surfaces at its next call
      }
    }
  }
};

}  // namespace

// Each entry times the forwarded call (`return` of a void call is fine for the void ones).
#define NABLA_KERNEL_METHOD(Ret, name, params, args, event) \
  Ret ProfilingBackend::name params {                       \
    RecordFunction rec(event, EventKind::Kernel);           \
    WaitForDevice wait{inner_.device_type()};               \
    return inner_.name args;                                \
  }
#include "nabla/backend/kernel_methods.def"
#undef NABLA_KERNEL_METHOD

}  // namespace nabla
