#pragma once
// Models exported by other tools as static graphs (docs/import.md): each
// operator becomes nodes of op-table ops, each stored weight a parameter, so an imported
// model runs, re-evaluates partially and fine-tunes like any graph::Graph.
//   auto g = nabla::graph::load_onnx("resnet18.onnx");
//   auto h = nabla::graph::load_pnnx("resnet18.pnnx.param", "resnet18.pnnx.bin");
//   g.set_value(g.inputs()[0], images);
//   nabla::Tensor logits = g.forward(g.outputs()[0]);
#include <cstdint>
#include <string>
#include <vector>

#include "nabla/graph/graph.h"

namespace nabla::graph {

/// Whether this nabla was built with ONNX support (Debian's libonnx-dev and
/// libprotobuf-dev present when it was built).
bool onnx_available();

/// The ONNX model at `path` (as torch.onnx.export writes it, opsets 13-17) as a Graph:
/// inputs() are the model's inputs in order, outputs() its outputs; each initializer a
/// parameter named as in the file (trainable: an optimizer over the parameters' tensors
/// fine-tunes the model), or a constant where an operator reads it as a setting (a
/// Reshape's shape, a Clip's bounds). Shapes are those of the file's inputs, or
/// `input_shapes` (one per input, in order) where given, which a model exported with
/// dynamic axes needs: shape arithmetic is computed at import for them, so the graph runs
/// on inputs of those shapes (a model exported with a fixed batch keeps it). An operator
/// or attribute nabla does not map, a malformed file, or a build without libonnx-dev is a
/// nabla::Error naming it.
Graph load_onnx(const std::string& path,
                const std::vector<std::vector<int64_t>>& input_shapes = {});

/// The tensor serialized as an ONNX TensorProto at `path`, as ONNX's test data stores each
/// input and expected output (test_data_set_0/input_0.pb). The dtypes load_onnx reads;
/// anything else, or a file that is not a TensorProto, is a nabla::Error naming the file.
Tensor load_onnx_tensor(const std::string& path);

/// Writes `graph` as an ONNX model at `path` (atomically): the nodes its outputs() depend
/// on, evaluated once on the inputs' current values so that the file declares every
/// input's and output's dtype and shape (a graph exported for one shape runs on that
/// shape). Parameters and constants become initializers named after their nodes; op nodes
/// become ONNX operators of `opset` (13-17); nodes load_onnx made for ONNX operators
/// without an op of their own are written back as those operators. A module is exported
/// by graph::trace, then save_onnx. An op save_onnx cannot write, an input without a
/// value, or a build without libonnx-dev is a nabla::Error naming it (docs/import.md).
void save_onnx(const Graph& graph, const std::string& path, int64_t opset = 17);

/// The model pnnx (Tencent/ncnn's tools/pnnx) converted into `param_path` (the graph, text)
/// and `bin_path` (the weights, a stored ZIP) as a Graph: inputs() are its pnnx.Input
/// operators in order, outputs() the values of its pnnx.Output operators (a returned tuple
/// flattened). Module weights (`@weight` of nn.Conv2d, nn.Linear, ...) and pnnx.Attribute
/// tensors are parameters named "<operator>.<weight>" (an attribute by its operator's
/// name), trainable when floating point; batch-norm running statistics and pnnx's folded
/// constants (pnnx_fold_*) are constants. Shapes are those annotated on the inputs (pnnx's
/// `inputshape=`), or `input_shapes` (one per input, in order) where given: sizes pnnx kept
/// as expressions (a model converted with `inputshape2=`) are fixed at import, so the graph
/// runs on inputs of those shapes. An operator type or setting nabla does not map, or a
/// malformed file, is a nabla::Error naming the file, the line and the operator.
Graph load_pnnx(const std::string& param_path, const std::string& bin_path,
                const std::vector<std::vector<int64_t>>& input_shapes = {});

}  // namespace nabla::graph
