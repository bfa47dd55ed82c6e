#pragma once
// What the nn ops' registry entries share: each file of src/ops/nn/ defines the
// add_nn_*_ops of its ops (listed in src/ops/registry/registry_families.def).
#include <vector>

#include "ops/op_utils.h"
#include "ops/registry/registry_impl.h"

namespace nabla::ops::registry {

using Inputs = std::vector<Tensor>;

/// Optional input i (bias, weight, running stats): undefined when the caller gave fewer.
inline Tensor optional_input(const Inputs& x, size_t i) { return i < x.size() ? x[i] : Tensor(); }

}  // namespace nabla::ops::registry
