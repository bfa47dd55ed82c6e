#pragma once
// How the op families fill the registry (include/nabla/ops/registry.h): each family's file
// defines its add_*_ops, which appends one OpSchema per op; registry/registry_families.def lists
// them and registry.cpp calls them all once. Explicit calls, not static registrars, so no
// entry depends on link order.
#include <tuple>
#include <vector>

#include "nabla/ops/registry.h"

namespace nabla::ops::registry {

#define NABLA_OP_FAMILY(fn) void fn(std::vector<OpSchema>& table);
#include "ops/registry/registry_families.def"
#undef NABLA_OP_FAMILY

/// An op's inputs and outputs, as OpFn takes and returns them.
using V = std::vector<Tensor>;

/// A schema entry: `OpSchema{name, min, max, {attrs...}, fn}` spelled shorter.
inline OpSchema op(std::string name, int min_inputs, int max_inputs, std::vector<AttrSpec> attrs,
                   OpFn fn) {
  OpSchema s;
  s.name = std::move(name);
  s.min_inputs = min_inputs;
  s.max_inputs = max_inputs;
  s.attrs = std::move(attrs);
  s.fn = fn;
  return s;
}
inline AttrSpec attr(std::string name, AttrType type, AttrValue default_value) {
  return AttrSpec{std::move(name), type, std::move(default_value), false, nullopt};
}
/// An attribute the caller may leave out, without a default (AttrReader::has tells).
inline AttrSpec optional_attr(std::string name, AttrType type) {
  return AttrSpec{std::move(name), type, nullopt, false, nullopt};
}
inline AttrSpec required_attr(std::string name, AttrType type) {
  return AttrSpec{std::move(name), type, nullopt, true, nullopt};
}
/// `spec` that also takes a value of type `also` (AttrSpec::also).
inline AttrSpec either(AttrSpec spec, AttrType also) {
  spec.also = also;
  return spec;
}

/// The outputs of an op that returns several tensors (sort's values and indices, ...).
template <class... T>
V outputs(std::tuple<T...> t) {
  return std::apply([](auto&... x) { return V{x...}; }, t);
}

/// The entries of the ops without attributes that call the Tensor method of their name on
/// their one input (x.name()); used inside add_*_ops, appending to `table`.
#define NABLA_METHOD_ENTRY(table, name) \
  table.push_back(                      \
      op(#name, 1, 1, {}, [](const V& x, const AttrReader&) -> V { return {x[0].name()}; }))

}  // namespace nabla::ops::registry

namespace nabla::ops {
// The entry files' own helpers, outside registry::, use these unqualified too.
using registry::attr;
using registry::op;
using registry::optional_attr;
using registry::outputs;
using registry::required_attr;
using registry::V;
}  // namespace nabla::ops
