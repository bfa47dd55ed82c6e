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
/// their one input (x.name()) or two (x.name(y)); used inside add_*_ops, appending to `table`.
#define NABLA_METHOD_ENTRY(table, name) \
  table.push_back(                      \
      op(#name, 1, 1, {}, [](const V& x, const AttrReader&) -> V { return {x[0].name()}; }))
#define NABLA_METHOD_ENTRY2(table, name) \
  table.push_back(                       \
      op(#name, 2, 2, {}, [](const V& x, const AttrReader&) -> V { return {x[0].name(x[1])}; }))

/// Ops with a Scalar overload (mul, pow, ...): their operand `name` is the
/// input x[k] when there are k + 1 inputs (k = 1 or 2), else the attribute `name` read as
/// a Scalar; giving both or neither raises, naming `op` and describing the operand as
/// `what` ("an exponent"). Returns {f(operand)}.
template <class F>
V input_or_scalar(const V& x, const AttrReader& a, size_t k, const char* op, const char* name,
                  const char* what, F&& f) {
  const char* input = k == 1 ? "a second input" : "a third input";
  if (x.size() > k) {
    NABLA_CHECK(!a.has(name), op, ": give ", what, " as ", input, " or as the attribute '", name,
                "', not both");
    return {f(x[k])};
  }
  NABLA_CHECK(a.has(name), op, ": needs ", what, " (", input, " or the attribute '", name, "')");
  return {f(a.scalar(name))};
}

}  // namespace nabla::ops::registry

namespace nabla::ops {
// The entry files' own helpers, outside registry::, use these unqualified too.
using registry::attr;
using registry::input_or_scalar;
using registry::op;
using registry::optional_attr;
using registry::outputs;
using registry::required_attr;
using registry::V;
}  // namespace nabla::ops
