#pragma once
// Note [CUDA libraries on first use]: cuBLAS (with cuBLASLt) and cuDNN are opened with
// dlopen the first time a GPU product or convolution needs them, not linked: loading them
// at program start cost every nabla program 0.65 s (cuBLASLt alone maps ~500 MB), GPU or
// not, and a program built with CUDA would not start on a machine without them. Each
// library is a table of function pointers typed by the library's own header (decltype),
// filled by name; code calls `cublas().cublasCreate(...)` where it would call
// `cublasCreate(...)`. The CUDA runtime itself is linked statically (it opens the driver
// the same way).
#include <cublas_v2.h>

#if NABLA_HAVE_CUDNN
#include <cudnn.h>
#endif

namespace nabla::cuda::detail {

// The names each table resolves (cublas_v2.h maps some to their _v2 symbols: the
// tables take the names after that mapping).
// clang-format off
#define NABLA_CUBLAS_FUNCTIONS(X) \
  X(cublasCreate) \
  X(cublasSetMathMode) \
  X(cublasSetStream) \
  X(cublasSgemmStridedBatched) \
  X(cublasDgemmStridedBatched) \
  X(cublasGetStatusString)
// clang-format on

struct CublasApi {
#define NABLA_CUDA_API_MEMBER(fn) decltype(&::fn) fn = nullptr;
  NABLA_CUBLAS_FUNCTIONS(NABLA_CUDA_API_MEMBER)
};
/// cuBLAS, opened on the first call (a nabla::Error naming the file when it cannot be).
const CublasApi& cublas();

#if NABLA_HAVE_CUDNN
// clang-format off
#define NABLA_CUDNN_FUNCTIONS(X) \
  X(cudnnGetVersion) \
  X(cudnnGetErrorString) \
  X(cudnnCreate) \
  X(cudnnSetStream) \
  X(cudnnCreateTensorDescriptor) \
  X(cudnnDestroyTensorDescriptor) \
  X(cudnnSetTensor4dDescriptor) \
  X(cudnnCreateFilterDescriptor) \
  X(cudnnDestroyFilterDescriptor) \
  X(cudnnSetFilter4dDescriptor) \
  X(cudnnCreateConvolutionDescriptor) \
  X(cudnnDestroyConvolutionDescriptor) \
  X(cudnnSetConvolution2dDescriptor) \
  X(cudnnSetConvolutionGroupCount) \
  X(cudnnSetConvolutionMathType) \
  X(cudnnGetConvolution2dForwardOutputDim) \
  X(cudnnGetConvolutionForwardAlgorithm_v7) \
  X(cudnnFindConvolutionForwardAlgorithmEx) \
  X(cudnnGetConvolutionForwardWorkspaceSize) \
  X(cudnnConvolutionForward) \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7) \
  X(cudnnFindConvolutionBackwardDataAlgorithmEx) \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize) \
  X(cudnnConvolutionBackwardData) \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7) \
  X(cudnnFindConvolutionBackwardFilterAlgorithmEx) \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize) \
  X(cudnnConvolutionBackwardFilter) \
  X(cudnnConvolutionBackwardBias) \
  X(cudnnAddTensor)
// clang-format on

struct CudnnApi {
  NABLA_CUDNN_FUNCTIONS(NABLA_CUDA_API_MEMBER)
};
/// cuDNN, opened on the first call; nullptr when it cannot be (convolutions then take
/// im2col + cuBLAS).
const CudnnApi* cudnn();
#endif
#undef NABLA_CUDA_API_MEMBER

}  // namespace nabla::cuda::detail
