#pragma once
// nn::init: in-place parameter initialisation, as torch::nn::init. Every function fills
// its argument under no_grad (a parameter stays a leaf) and returns it. Random fills
// draw from the default generator of the tensor's device: after manual_seed(s), a CPU
// tensor gets LibTorch's values for the same calls (Note [Random streams]).
#include <cstdint>
#include <tuple>
#include <variant>

#include "nabla/core/tensor.h"
#include "nabla/nn/enum.h"

namespace nabla::nn::init {

using NonlinearityType =
    std::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D,
                 enumtype::kConvTranspose1D, enumtype::kConvTranspose2D, enumtype::kConvTranspose3D,
                 enumtype::kSigmoid, enumtype::kTanh, enumtype::kReLU, enumtype::kLeakyReLU,
                 enumtype::kSELU>;
using FanModeType = std::variant<enumtype::kFanIn, enumtype::kFanOut>;

/// The recommended gain for a nonlinearity (leaky_relu reads `param` as its slope).
double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);

Tensor constant_(Tensor tensor, Scalar value);
Tensor ones_(Tensor tensor);
Tensor zeros_(Tensor tensor);
/// 2-d only: the identity (rectangular allowed).
Tensor eye_(Tensor matrix);
/// 3-, 4- or 5-d: the identity convolution kernel (groups divides out_channels).
Tensor dirac_(Tensor tensor, int64_t groups = 1);
Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanModeType mode = enumtype::kFanIn{},
                        NonlinearityType nonlinearity = enumtype::kLeakyReLU{});
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanModeType mode = enumtype::kFanIn{},
                       NonlinearityType nonlinearity = enumtype::kLeakyReLU{});
/// A (semi-)orthogonal matrix (flattening trailing dims), from the QR decomposition of
/// a normal matrix with the sign fix of PyTorch, times gain.
Tensor orthogonal_(Tensor tensor, double gain = 1.0);
/// 2-d: each column has `sparsity` (fraction) of its rows zeroed, the rest N(0, std).
Tensor sparse_(Tensor tensor, double sparsity, double std = 0.01);

/// (fan_in, fan_out) of a weight: dims 1 and 0 times the receptive field (dims 2..).
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

}  // namespace nabla::nn::init
