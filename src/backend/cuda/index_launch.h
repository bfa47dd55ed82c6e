#pragma once
// Launchers of the index kernels (index.cu): the range check, index_select, gather and
// scatter. Index values are int64; the ops check them (check_index_range), and the kernels
// read an index out of range as giving 0 and write nothing for it (Note [Deferred device
// checks]: the check's verdict reaches the host later).
#include <cuda_runtime_api.h>

#include "backend/cuda/device_args.h"

namespace nabla::cuda_kernels {

/// For each of the n values of `index` outside [lo, hi): slot[1] = the value, then
/// slot[0] = 1 (slot: mapped host memory; see core/cuda/device_checks.h).
cudaError_t launch_check_range(const int64_t* index, int64_t n, int64_t lo, int64_t hi,
                               unsigned long long* slot, Stream stream);

/// out[pos] = in[pos with its `dim` coordinate replaced by index[pos]] for every position of
/// index's shape (out has it). index_select is this with an index that repeats its 1-d
/// values along the other dims (stride 0). Any dtype; any strides.
cudaError_t launch_gather(const TensorArg& out, const TensorArg& index, const TensorArg& in,
                          int dim, Stream stream);

/// self[pos with its `dim` coordinate replaced by index[pos]] = src[pos] (or += when
/// `accumulate`; bool or-s) for every position of index's shape. Any dtype; any strides.
cudaError_t launch_scatter(const TensorArg& self, const TensorArg& index, const TensorArg& src,
                           int dim, bool accumulate, Stream stream);

}  // namespace nabla::cuda_kernels
