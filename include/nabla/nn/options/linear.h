#pragma once
// Options of the linear-family modules (torch/nn/options/linear.h).
#include <cstdint>
#include <vector>

#include "nabla/nn/options/arg.h"

namespace nabla::nn {

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  NABLA_ARG(int64_t, in_features);
  NABLA_ARG(int64_t, out_features);
  NABLA_ARG(bool, bias) = true;
};

struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  NABLA_ARG(int64_t, in1_features);
  NABLA_ARG(int64_t, in2_features);
  NABLA_ARG(int64_t, out_features);
  NABLA_ARG(bool, bias) = true;
};

struct FlattenOptions {
  NABLA_ARG(int64_t, start_dim) = 1;
  NABLA_ARG(int64_t, end_dim) = -1;
};

struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  NABLA_ARG(int64_t, dim);
  NABLA_ARG(std::vector<int64_t>, sizes);
};

}  // namespace nabla::nn
