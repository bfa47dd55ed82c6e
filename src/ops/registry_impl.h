#pragma once
// How the op families fill the registry (include/nabla/ops/registry.h): each family's file
// defines its add_*_ops, which appends one OpSchema per op; registry.cpp calls them all
// once. Explicit calls, not static registrars, so no entry depends on link order.
#include <vector>

#include "nabla/ops/registry.h"

namespace nabla::ops::registry {

void add_unary_ops(std::vector<OpSchema>& table);
void add_binary_ops(std::vector<OpSchema>& table);
void add_nn_ops(std::vector<OpSchema>& table);  // src/ops/nn/

/// A schema entry: `OpSchema{name, min, max, {attrs...}, fn}` spelled shorter.
inline OpSchema op(std::string name, int min_inputs, int max_inputs, std::vector<AttrSpec> attrs,
                   OpFn fn) {
  return OpSchema{std::move(name), min_inputs, max_inputs, std::move(attrs), fn};
}
inline AttrSpec attr(std::string name, AttrType type, AttrValue default_value) {
  return AttrSpec{std::move(name), type, std::move(default_value), false};
}
/// An attribute the caller may leave out, without a default (AttrReader::has tells).
inline AttrSpec optional_attr(std::string name, AttrType type) {
  return AttrSpec{std::move(name), type, nullopt, false};
}
inline AttrSpec required_attr(std::string name, AttrType type) {
  return AttrSpec{std::move(name), type, nullopt, true};
}

}  // namespace nabla::ops::registry
