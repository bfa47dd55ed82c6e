#pragma once
// Intra-op parallelism: one persistent pool of worker threads shared by all kernels.
// parallel_for runs small ranges inline, so tiny tensors never pay for threads.
#include <cstdint>
#include <functional>

namespace nabla {

/// Sets the number of threads kernels may use (>= 1), OpenBLAS's included.
void set_num_threads(int n);
int get_num_threads();
/// Sets up this thread's kernel threading (LibTorch calls it at a thread's start); nabla's
/// pool needs nothing per thread, so it only makes sure the pool exists.
void init_num_threads();
/// The inter-op thread count LibTorch's API sets and reports. nabla runs independent ops
/// on the caller's thread (it has no inter-op pool): the value is kept and reported only.
void set_num_interop_threads(int n);
int get_num_interop_threads();
/// True while the calling thread runs inside a parallel_for body.
bool in_parallel_region();

namespace detail {
/// The threaded part of parallel_for (thread_pool.cpp).
void parallel_for_threads(int64_t begin, int64_t end, int64_t grain_size,
                          const std::function<void(int64_t, int64_t)>& fn);
}  // namespace detail

/// Calls fn(chunk_begin, chunk_end) over disjoint chunks covering [begin, end).
/// Chunks have at least `grain_size` iterations; when the range is smaller than two
/// grains, or one thread is set, or the caller is already inside a parallel region,
/// fn runs once inline on the whole range. Exceptions from fn reach the caller.
/// The small-range test is inline here, so callers need no check of their own and tiny
/// tensors do not even build a std::function.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain_size, F&& fn) {
  if (begin >= end) return;
  if (end - begin < 2 * (grain_size < 1 ? 1 : grain_size)) {
    fn(begin, end);
    return;
  }
  detail::parallel_for_threads(begin, end, grain_size, std::ref(fn));
}

/// Default grain for cheap elementwise work: below this many elements, one thread.
constexpr int64_t kGrainSize = 32768;

}  // namespace nabla
