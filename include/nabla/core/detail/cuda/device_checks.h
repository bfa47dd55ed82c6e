#pragma once
// Note [Deferred device checks]
// Checking an index against its bounds on the host would read the index there: a wait for
// the device inside every gather, embedding and nll_loss of a training step. On a GPU the
// check runs as a kernel instead, and its verdict reaches the host later:
//  - A check claims a slot: two 64-bit words in pinned host memory mapped into the device's
//    address space, with the error's wording kept on the host beside it. The kernel stores
//    1 in the first word and an offending value in the second (plain stores: any offending
//    value will do, so racing threads need no atomics).
//  - Every host wait for the device (cuda::synchronize, a stream's or an event's
//    synchronize, a copy to the host: Tensor::item, .cpu(), printing, saving) then reads the
//    claimed slots. A set slot raises a nabla::Error with the op's own wording; a clear slot
//    whose kernel is known to have finished (its stream, or the whole device, was waited
//    for) is released. The error surfaces in the first host wait after the failing kernel,
//    which may belong to a later op, as PyTorch's device-side asserts do, but it leaves the
//    device usable.
//  - The kernels that use an index meanwhile read an out-of-range one as 0 and write
//    nothing for it: nothing outside a tensor is ever touched.
//  - When every slot of a device is claimed, the next claim waits for the device first.
#include <cstdint>
#include <string>

struct CUstream_st;

namespace nabla::cuda::detail {

/// The wording of a failed check: "<op>: <noun> <value> is out of bounds for <context>".
struct DeferredCheck {
  std::string op, noun, context;
};

/// A slot for one check kernel queued on `stream` of `device`: the device address of its
/// two words ([0] = 1 on failure, [1] = an offending value), both 0 now.
unsigned long long* claim_check_slot(int device, CUstream_st* stream, DeferredCheck what);

/// What a host wait guarantees has finished on the device.
enum class Waited : uint8_t {
  Device,  // every stream (cudaDeviceSynchronize)
  Stream,  // the work queued on one stream
  Event,   // the work before one event: nothing releasable, failures still seen
};

/// Called after each host wait: raises the first failed check of `device` and releases
/// the slots of the kernels that have finished (`stream` when `waited` is Stream).
void raise_failed_checks(int device, Waited waited, CUstream_st* stream = nullptr);

}  // namespace nabla::cuda::detail
