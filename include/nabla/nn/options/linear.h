#pragma once
// Options of the linear-family modules (torch/nn/options/linear.h).
#include <cstdint>
#include <string>
#include <utility>
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

/// Unflatten either a dim by index into `sizes`, or (LibTorch's named-tensor form) a dim by
/// name into named sizes. nabla has no named tensors: the named form is kept and printed as
/// LibTorch's, and its forward raises an error (docs/compat.md).
struct UnflattenOptions {
  using namedshape_t = std::vector<std::pair<std::string, int64_t>>;
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  UnflattenOptions(const char* dimname, namedshape_t namedshape)
      : dimname_(dimname), namedshape_(std::move(namedshape)) {}
  UnflattenOptions(std::string dimname, namedshape_t namedshape)
      : dimname_(std::move(dimname)), namedshape_(std::move(namedshape)) {}
  NABLA_ARG(int64_t, dim) = 0;
  NABLA_ARG(std::string, dimname) = "";
  NABLA_ARG(std::vector<int64_t>, sizes);
  NABLA_ARG(namedshape_t, namedshape);
};

}  // namespace nabla::nn
