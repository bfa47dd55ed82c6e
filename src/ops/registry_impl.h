#pragma once
// How the op families fill the registry (include/nabla/ops/registry.h): each family's file
// defines its add_*_ops, which appends one OpSchema per op; registry.cpp calls them all
// once. Explicit calls, not static registrars, so no entry depends on link order.
#include <vector>

#include "nabla/ops/registry.h"

namespace nabla::ops::registry {

void add_unary_ops(std::vector<OpSchema>& table);
void add_binary_ops(std::vector<OpSchema>& table);
// Views, shape ops, copies and factories.
void add_reshape_view_ops(std::vector<OpSchema>& table);     // views_reshape.cpp
void add_transpose_view_ops(std::vector<OpSchema>& table);   // views_transpose.cpp
void add_select_view_ops(std::vector<OpSchema>& table);      // views_select.cpp
void add_join_ops(std::vector<OpSchema>& table);             // shape_join.cpp
void add_shape_ops(std::vector<OpSchema>& table);            // shape_ops.cpp
void add_composite_shape_ops(std::vector<OpSchema>& table);  // composite_shape.cpp
void add_basic_ops(std::vector<OpSchema>& table);            // tensor_basics.cpp
void add_factory_ops(std::vector<OpSchema>& table);          // factories.cpp
void add_index_ops(std::vector<OpSchema>& table);            // indexing_advanced.cpp
void add_gather_scatter_ops(std::vector<OpSchema>& table);   // indexing_gather_scatter.cpp
void add_masked_ops(std::vector<OpSchema>& table);           // indexing_masked.cpp
void add_linalg_ops(std::vector<OpSchema>& table);           // linalg.cpp
void add_reduction_ops(std::vector<OpSchema>& table);
void add_reduce_stats_ops(std::vector<OpSchema>& table);
void add_sort_ops(std::vector<OpSchema>& table);
void add_composite_reduce_ops(std::vector<OpSchema>& table);
void add_composite_order_ops(std::vector<OpSchema>& table);
void add_composite_math_ops(std::vector<OpSchema>& table);
void add_special_function_ops(std::vector<OpSchema>& table);
void add_elementwise_function_ops(std::vector<OpSchema>& table);

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
