#pragma once
// Options of the activations (torch/nn/options/activation.h); F::XxxFuncOptions are the
// same types except where LibTorch's functional form has extra fields (softmax's dtype,
// rrelu's training).
#include <string>

#include "nabla/core/optional.h"
#include "nabla/core/scalar_type.h"
#include "nabla/nn/options/arg.h"

namespace nabla::nn {

struct ELUOptions {
  NABLA_ARG(double, alpha) = 1.0;
  NABLA_ARG(bool, inplace) = false;
};

struct SELUOptions {
  SELUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit as LibTorch
  NABLA_ARG(bool, inplace);
};

struct GLUOptions {
  GLUOptions(int64_t dim = -1) : dim_(dim) {}  // NOLINT
  NABLA_ARG(int64_t, dim);
};

struct GELUOptions {
  /// "none" (erf form) or "tanh".
  NABLA_ARG(std::string, approximate) = "none";
};

struct HardshrinkOptions {
  HardshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT
  NABLA_ARG(double, lambda);
};

struct HardtanhOptions {
  NABLA_ARG(double, min_val) = -1.0;
  NABLA_ARG(double, max_val) = 1.0;
  NABLA_ARG(bool, inplace) = false;
};

struct LeakyReLUOptions {
  NABLA_ARG(double, negative_slope) = 1e-2;
  NABLA_ARG(bool, inplace) = false;
};

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  NABLA_ARG(int64_t, dim);
};
struct SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  NABLA_ARG(int64_t, dim);
};
struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  NABLA_ARG(int64_t, dim);
};

struct PReLUOptions {
  /// 1, or the number of input channels.
  NABLA_ARG(int64_t, num_parameters) = 1;
  NABLA_ARG(double, init) = 0.25;
};

struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  NABLA_ARG(bool, inplace);
};
struct ReLU6Options {
  ReLU6Options(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  NABLA_ARG(bool, inplace);
};

struct RReLUOptions {
  NABLA_ARG(double, lower) = 1.0 / 8.0;
  NABLA_ARG(double, upper) = 1.0 / 3.0;
  NABLA_ARG(bool, inplace) = false;
};

struct CELUOptions {
  NABLA_ARG(double, alpha) = 1.0;
  NABLA_ARG(bool, inplace) = false;
};

struct SoftplusOptions {
  NABLA_ARG(double, beta) = 1.0;
  NABLA_ARG(double, threshold) = 20.0;
};

struct SoftshrinkOptions {
  SoftshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT
  NABLA_ARG(double, lambda);
};

struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  NABLA_ARG(double, threshold);
  NABLA_ARG(double, value);
  NABLA_ARG(bool, inplace) = false;
};

namespace functional {

using ELUFuncOptions = ELUOptions;
using SELUFuncOptions = SELUOptions;
using GLUFuncOptions = GLUOptions;
using GELUFuncOptions = GELUOptions;
using HardshrinkFuncOptions = HardshrinkOptions;
using HardtanhFuncOptions = HardtanhOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using ReLUFuncOptions = ReLUOptions;
using ReLU6FuncOptions = ReLU6Options;
using CELUFuncOptions = CELUOptions;
using SoftplusFuncOptions = SoftplusOptions;
using SoftshrinkFuncOptions = SoftshrinkOptions;
using ThresholdFuncOptions = ThresholdOptions;

struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  NABLA_ARG(int64_t, dim);
  /// Converts the input to this dtype first.
  NABLA_ARG(optional<ScalarType>, dtype) = nullopt;
};
struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  NABLA_ARG(int64_t, dim);
  NABLA_ARG(optional<ScalarType>, dtype) = nullopt;
};
struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  NABLA_ARG(int64_t, dim);
  NABLA_ARG(optional<ScalarType>, dtype) = nullopt;
};

struct RReLUFuncOptions {
  NABLA_ARG(double, lower) = 1.0 / 8.0;
  NABLA_ARG(double, upper) = 1.0 / 3.0;
  NABLA_ARG(bool, training) = false;
  NABLA_ARG(bool, inplace) = false;
};

struct GumbelSoftmaxFuncOptions {
  NABLA_ARG(double, tau) = 1.0;
  /// Returns one-hot samples whose gradient is the soft sample's (straight-through).
  NABLA_ARG(bool, hard) = false;
  NABLA_ARG(int, dim) = -1;
};

}  // namespace functional
}  // namespace nabla::nn
