#pragma once
// Options of the dropout layers and functionals (torch/nn/options/dropout.h).
#include "nabla/nn/options/arg.h"

namespace nabla::nn {

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT: implicit as LibTorch
  NABLA_ARG(double, p) = 0.5;
  NABLA_ARG(bool, inplace) = false;
};
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;

namespace functional {

struct DropoutFuncOptions {
  NABLA_ARG(double, p) = 0.5;
  NABLA_ARG(bool, training) = true;
  NABLA_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;

/// Unlike DropoutFuncOptions, training defaults to false (as LibTorch).
struct AlphaDropoutFuncOptions {
  NABLA_ARG(double, p) = 0.5;
  NABLA_ARG(bool, training) = false;
  NABLA_ARG(bool, inplace) = false;
};
struct FeatureAlphaDropoutFuncOptions {
  NABLA_ARG(double, p) = 0.5;
  NABLA_ARG(bool, training) = false;
  NABLA_ARG(bool, inplace) = false;
};

}  // namespace functional
}  // namespace nabla::nn
