#pragma once
// Intra-op parallelism: one persistent pool of worker threads shared by all kernels.
// parallel_for runs small ranges inline, so tiny tensors never pay for threads.
#include <cstdint>
#include <functional>

namespace nabla {

/// Sets the number of threads kernels may use (>= 1), OpenBLAS's included.
void set_num_threads(int n);
int get_num_threads();
/// True while the calling thread runs inside a parallel_for body.
bool in_parallel_region();

/// Calls fn(chunk_begin, chunk_end) over disjoint chunks covering [begin, end).
/// Chunks have at least `grain_size` iterations; when the range is smaller than two
/// grains, or one thread is set, or the caller is already inside a parallel region,
/// fn runs once inline on the whole range. Exceptions from fn reach the caller.
void parallel_for(int64_t begin, int64_t end, int64_t grain_size,
                  const std::function<void(int64_t, int64_t)>& fn);

/// Default grain for cheap elementwise work: below this many elements, one thread.
constexpr int64_t kGrainSize = 32768;

}  // namespace nabla
