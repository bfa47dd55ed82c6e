#pragma once
// The one place that moves tensors between nabla and LibTorch.
#include <ATen/ATen.h>

#include <string>

#include <nabla/nabla.h>

namespace conform {

at::ScalarType to_torch(nabla::ScalarType t);
nabla::ScalarType to_nabla(at::ScalarType t);

/// A LibTorch tensor with the same sizes, strides, storage offset, dtype and values as
/// `t`: the whole storage is copied, then viewed with t's geometry, so non-contiguous
/// and expanded (stride 0) inputs reach LibTorch with the layout nabla sees.
at::Tensor to_torch(const nabla::Tensor& t);

/// Empty when `got` matches `want` (sizes, dtype, values); otherwise a message naming
/// the first difference. Floating results compare with |got - want| <= atol + rtol*|want|,
/// NaN only where LibTorch has NaN, infinities exactly; integer and bool results exactly.
std::string compare(const at::Tensor& want, const nabla::Tensor& got, double rtol, double atol);

}  // namespace conform
