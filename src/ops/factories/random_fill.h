#pragma once
// The ops' way into the random backend entry (Note [Random streams],
// include/nabla/core/detail/cpu_generator.h): which generator fills a tensor, and the in-place fill
// that the random factories and in-place random ops share.
#include "nabla/backend/backend.h"
#include "nabla/core/tensor.h"

namespace nabla::ops {

/// The generator for a tensor on `device`: `gen` when given (a nabla::Error naming `op`
/// when it is of another device type, as LibTorch's "Expected a 'cuda' device type for
/// generator"), else the device's default generator.
Generator& generator_for(optional<Generator>& gen, Device device, const char* op);

/// Fills `self` in place with the backend's draws of `d` (parameters as the `random`
/// entry's) and bumps its version. The CPU fills in memory order, as LibTorch; a view whose
/// elements overlap (an expanded one) is filled through a dense copy.
const Tensor& fill_random(const Tensor& self, KernelBackend::Distribution d,
                          optional<Generator> gen, const Scalar& a, const Scalar& b,
                          const char* op);

}  // namespace nabla::ops
