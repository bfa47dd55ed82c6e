#pragma once
// What a table file includes: the entry types (conformance.h) and the LibTorch side of
// op/op2, present or compiled away.
//
// Note [Table without LibTorch]
// The table builds in two modes (NABLA_CONFORMANCE_LIBTORCH, tests/conformance/CMakeLists.txt).
// With LibTorch, every entry's lambda is also instantiated for at::Tensor and each case is
// compared with LibTorch (libtorch_checks.cpp). Without it, nothing includes ATen: `op`
// instantiates its lambda for nabla::Tensor only, the LibTorch lambda of an `op2` entry is
// written inside LIBTORCH(...) and dropped by the preprocessor, and the driver runs the
// checks that need no reference: nabla's forward on every sample, error entries, ops::call,
// inputs left unchanged, backward, finite differences and second derivatives. The driver
// asks kWithLibTorch (conformance.h), never the preprocessor; the few LibTorch-only
// sections of table files (helper overloads for at::Tensor, the promotion tests) sit in
// `#if NABLA_CONFORMANCE_LIBTORCH`. See docs/testing.md, "Without LibTorch".
#include "conformance.h"

#if NABLA_CONFORMANCE_LIBTORCH
#include "libtorch_side.h"
#else
namespace conform {
/// What LIBTORCH(...) leaves of an op2 entry's LibTorch lambda in a build without LibTorch.
struct NoLibTorch {};
/// No LibTorch side: the lambda is dropped, so it is never instantiated for at::Tensor.
template <class F>
std::shared_ptr<const TorchFn> torch_side(const F&) {
  return nullptr;
}
}  // namespace conform
   /// The LibTorch lambda of an op2 entry, dropped in a build without LibTorch.
#define LIBTORCH(...) ::conform::NoLibTorch()
#endif
