#pragma once
// Launchers of the reduction kernels (reduce.cu): reduce, arg_reduce, cumsum, sort. Each
// queues its kernels on `stream` and returns cudaGetLastError(); scratch memory comes
// from the caller (reduce.cpp allocates it as a tensor), sized by the *_scratch_bytes
// functions from the same arguments (they look at geometry and dtype only).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "backend/cuda/device_args.h"

namespace nabla::cuda_kernels {

/// Bytes of scratch launch_reduce and launch_arg_reduce need for `in` reduced over the
/// dims in `reduced_mask` (bit d: dim d) into `out`: partial results when the reduced
/// range is split over several blocks; 0 when it is not.
int64_t reduce_scratch_bytes(const TensorArg& out, const TensorArg& in, uint32_t reduced_mask);

/// out = op over the dims of reduced_mask of in (out keepdim-shaped, in's dtype; All and
/// Any on bool). out.numel() > 0.
cudaError_t launch_reduce(ReduceOp op, const TensorArg& out, const TensorArg& in,
                          uint32_t reduced_mask, void* scratch, Stream stream);

/// Index (int64) and value of the first max (min) along dim, NaN winning; the outputs
/// share strides. out_index.numel() > 0 and in.sizes[dim] > 0.
cudaError_t launch_arg_reduce(bool is_max, const TensorArg& out_index, const TensorArg& out_value,
                              const TensorArg& in, int dim, void* scratch, Stream stream);

/// Inclusive prefix sum along dim (double accumulation for floating dtypes, int64 for
/// the others). out.numel() > 0.
cudaError_t launch_cumsum(const TensorArg& out, const TensorArg& in, int dim, Stream stream);

/// Sets *bytes to the scratch launch_sort needs to sort `in` along dim (0 for rows short
/// enough to be sorted in shared memory); CUB's size query can fail.
cudaError_t sort_scratch_bytes(const TensorArg& in, int dim, int64_t* bytes);

/// The first values.sizes[dim] elements of each row of in along dim, stably sorted (NaN
/// above every number), and their positions; values and indices share strides.
/// values.numel() > 0 and in.sizes[dim] < 2^31.
cudaError_t launch_sort(const TensorArg& values, const TensorArg& indices, const TensorArg& in,
                        int dim, bool descending, void* scratch, Stream stream);

}  // namespace nabla::cuda_kernels
