#pragma once
// Launchers of the index kernels (index.cu): index_select, gather and scatter. Index values
// are int64 and were checked in range by the ops.
#include <cuda_runtime_api.h>

#include "backend/cuda/device_args.h"

namespace nabla::cuda_kernels {

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
