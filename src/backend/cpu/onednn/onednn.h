#pragma once
// oneDNN (Debian's libdnnl-dev, optional at build time) in the CPU backend: float32
// convolutions (conv_dnnl.cpp) and matrix products (gemm_dnnl.cpp). oneDNN picks its
// kernels from cpuid features, as nabla's own kernels do, and NABLA_ISA caps both alike.
// Its kernels run on OpenMP (libgomp); nabla owns the thread budget and sets each calling
// thread's OpenMP count before a call.
#include <string>

namespace nabla::cpu::onednn {

/// True when oneDNN is built in and NABLA_ISA allows it (anything but scalar). The first
/// call applies the ISA cap, before any oneDNN kernel is generated.
bool available();

/// "oneDNN 2.6.3, avx512_core_bf16 kernels", or why oneDNN is not used.
std::string describe();

/// Sets the calling thread's OpenMP thread count, which oneDNN's kernels read.
void set_threads(int n);

}  // namespace nabla::cpu::onednn
