#pragma once
// Models exported by other tools as static graphs (docs/import.md, issue 18): each
// operator becomes nodes of op-table ops, each stored weight a parameter, so an imported
// model runs, re-evaluates partially and fine-tunes like any graph::Graph.
//   auto g = nabla::graph::load_onnx("resnet18.onnx");
//   g.set_value(g.inputs()[0], images);
//   nabla::Tensor logits = g.forward(g.outputs()[0]);
#include <string>

#include "nabla/graph/graph.h"

namespace nabla::graph {

/// Whether this nabla was built with ONNX support (Debian's libonnx-dev and
/// libprotobuf-dev present when it was built).
bool onnx_available();

/// The ONNX model at `path` (as torch.onnx.export writes it, opsets 13-17) as a Graph:
/// inputs() are the model's inputs in order, outputs() its outputs; each initializer a
/// parameter named as in the file (trainable: an optimizer over the parameters' tensors
/// fine-tunes the model), or a constant where an operator reads it as a setting (a
/// Reshape's shape, a Clip's bounds). Shapes are those of the file's inputs: a model
/// exported with a fixed batch keeps it. An operator or attribute nabla does not map, a
/// malformed file, or a build without libonnx-dev is a nabla::Error naming it.
Graph load_onnx(const std::string& path);

}  // namespace nabla::graph
