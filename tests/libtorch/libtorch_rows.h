#pragma once
// One op written once for LibTorch and nabla (the 16-bit and autocast comparisons).
#include <torch/torch.h>

#include <functional>
#include <string>

#include <nabla/nabla.h>

namespace libtorch_rows {
struct Row {
  std::string name;
  std::function<at::Tensor(const at::Tensor&)> torch_fn;
  std::function<nabla::Tensor(const nabla::Tensor&)> nabla_fn;
};
}  // namespace libtorch_rows

// One row: `call` written once, with NS:: for the library's namespace (x is the input).
#define ROW(name, call)              \
  libtorch_rows::Row {               \
    name,                            \
        [](const at::Tensor& x) {    \
          namespace NS = torch;      \
          return call;               \
        },                           \
        [](const nabla::Tensor& x) { \
          namespace NS = nabla;      \
          return call;               \
        }                            \
  }
