#pragma once
// Note [Import shapes]
// load_onnx and load_pnnx compute sizes at import, on example inputs: zeros of the shape
// the file declares for each input, or of the shape the caller gives (which must fit the
// declared one; -1 there is any size). When an importer read any shape from them (a Shape
// node, a size() expression, a reshape or an LSTM's state sized from the batch), those
// sizes are now constants of the graph, so the inputs are fixed to the example shapes
// (Graph::fix_shape): running the graph on another shape is an error, never a silently
// wrong result. A model whose operators read no sizes keeps free inputs.
#include <cstdint>
#include <vector>

#include "nabla/graph/graph.h"

namespace nabla::graph::detail {

/// Whether `given` fits the `declared` shape (-1: any size).
inline bool shape_fits(const std::vector<int64_t>& declared, const std::vector<int64_t>& given) {
  if (declared.size() != given.size()) return false;
  for (size_t d = 0; d < given.size(); ++d)
    if (declared[d] >= 0 && declared[d] != given[d]) return false;
  return true;
}

/// Fixes every input of `g` that holds an example to the example's shape.
inline void fix_example_shapes(Graph& g) {
  for (const Value& in : g.inputs())
    if (in.value().defined()) g.fix_shape(in, in.value().sizes().vec());
}

}  // namespace nabla::graph::detail
