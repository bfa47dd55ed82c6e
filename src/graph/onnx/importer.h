#pragma once
// The ONNX importer's shared declarations (src/graph/onnx/): `Importer` maps one ONNX graph
// to a nabla Graph, node by node (`Importer::map`, map.cpp), reading the file in load.cpp.
// Operator groups: nn.cpp (convolutions, pooling, norms, losses), recurrent.cpp, resize.cpp,
// shape.cpp, indexing.cpp, math.cpp, einsum.cpp, activation.cpp, signal.cpp, detection.cpp,
// tfidf.cpp; settings read at run time: run_time.cpp; what save_onnx needs of imported nodes:
// records.cpp. The writer (save_onnx) is exporter.h and export*.cpp.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/graph_state.h"
#include "nabla/graph/graph.h"
#include "nabla/graph/import.h"

#if NABLA_HAVE_ONNX
#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h (ONNX_ML=1)

namespace nabla::graph::onnx_import {

using Attrs = ops::Attributes;

/// The nabla dtype of an ONNX element type; `known` is false where nabla has none.
ScalarType dtype_of(int32_t type, bool& known);
/// dtype_of's inverse (UNDEFINED for a dtype ONNX has no type for).
int32_t onnx_type_of(ScalarType t);
/// A TensorProto's data as a tensor; errors begin with `what` ("load_onnx: 'f.onnx':
/// initializer 'w'").
Tensor tensor_from_proto(const onnx::TensorProto& t, const std::string& what);
/// The single operator `node` imported with its inputs' values known and applied to them
/// (Note [Settings at run time]).
std::vector<Tensor> import_and_apply(const onnx::NodeProto& node, const std::string& path,
                                     int64_t opset, const std::vector<std::string>& names,
                                     const std::vector<Tensor>& values);
/// A setting tensor's values on the host, as int64 (long_values) or its first one (an
/// ONNX scalar setting is 0-d or [1]); an empty tensor is an error naming `what`.
std::vector<int64_t> long_values(const Tensor& t);
int64_t first_long(const Tensor& t, const char* what);
double first_double(const Tensor& t, const char* what);

/// The determinant of each matrix of x [..., n, n] (math.cpp).
Tensor determinant(const Tensor& x);
/// numpy's einsum of `xs` (einsum.cpp).
Tensor einsum(std::string equation, const std::vector<Tensor>& xs);

// Thrown by Importer::constant for a setting that depends on the model's inputs: the
// node is then imported as one that reads its settings when the graph runs (Note
// [Settings at run time]).
struct SettingsAtRunTime {};

class Importer {
 public:
  Importer(const onnx::GraphProto& graph, std::string path,
           std::vector<std::vector<int64_t>> input_shapes, int64_t opset)
      : onnx_(graph),
        path_(std::move(path)),
        input_shapes_(std::move(input_shapes)),
        opset_(opset) {}
  Graph run();
  /// Values of the graph's inputs known now (a node imported at run time: Note [Settings
  /// at run time]); every setting is read from them.
  void set_known_inputs(std::unordered_map<std::string, Tensor> known) {
    known_ = std::move(known);
  }

 private:
  using Node = onnx::NodeProto;
  [[noreturn]] void fail(const Node& n, const std::string& what) const {
    NABLA_CHECK(false, "load_onnx: '", path_, "': node '", n.name(), "' (", n.op_type(),
                "): ", what);
  }
  [[noreturn]] void fail(const std::string& what) const {
    NABLA_CHECK(false, "load_onnx: '", path_, "': ", what);
  }
  Tensor tensor_of(const onnx::TensorProto& t, const std::string& what) const {
    return tensor_from_proto(t, "load_onnx: '" + path_ + "': " + what);
  }

  // ---- inputs
  bool has_input(const Node& n, int i) const { return i < n.input_size() && !n.input(i).empty(); }
  std::vector<Value> present_inputs(const Node& n);
  Value input(const Node& n, int i);
  const Tensor& constant(const Node& n, int i);
  std::vector<int64_t> constant_ints(const Node& n, int i);
  double constant_scalar(const Node& n, int i);
  bool is_constant(const Node& n, int i) const {
    return has_input(n, i) && (constants_.count(n.input(i)) ||
                               (values_.count(n.input(i)) && !dynamic_.count(n.input(i))));
  }
  // ---- attributes
  const onnx::AttributeProto* attr(const Node& n, const char* name) const {
    for (const auto& a : n.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  int64_t attr_int(const Node& n, const char* name, int64_t fallback) const {
    const auto* a = attr(n, name);
    return a ? a->i() : fallback;
  }
  double attr_float(const Node& n, const char* name, double fallback) const {
    const auto* a = attr(n, name);
    return a ? a->f() : fallback;
  }
  // The attribute `axis` (default `fallback`) of an input of `rank` dimensions, negative
  // counted from the end.
  int64_t axis_of(const Node& n, int64_t rank, int64_t fallback) const {
    const int64_t a = attr_int(n, "axis", fallback);
    if (a < -rank || a >= rank) fail(n, "axis " + std::to_string(a) + " out of range");
    return a < 0 ? a + rank : a;
  }
  std::vector<int64_t> attr_ints(const Node& n, const char* name,
                                 std::vector<int64_t> fallback) const {
    const auto* a = attr(n, name);
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : fallback;
  }
  // ---- outputs
  Value call(const Node& n, const std::string& op, std::vector<Value> in, Attrs attrs = {},
             bool final = true) {
    return g_.call(op, std::move(in), std::move(attrs), final ? n.output(0) : "");
  }
  void define(const Node& n, Value v, std::vector<Value> more = {}) {
    for (int i = 1; i < n.output_size(); ++i)
      if (!n.output(i).empty() && static_cast<size_t>(i) > more.size())
        fail(n, "its output " + std::to_string(i) + " is not supported");
    more.insert(more.begin(), v);
    for (int i = 0; i < n.output_size(); ++i) {
      if (n.output(i).empty()) continue;
      values_[n.output(i)] = more[static_cast<size_t>(i)];
      for (const auto& in : n.input())
        if (dynamic_.count(in)) dynamic_.insert(n.output(i));
    }
  }
  // A node computing f(inputs' values) -> one tensor, named after n's output (Graph::custom).
  template <class F>
  Value function_node(const Node& n, std::string op, std::vector<Value> in, F f) {
    return g_.custom(
        std::move(op),
        [f = std::move(f)](const std::vector<Tensor>& x) { return std::vector<Tensor>{f(x)}; },
        std::move(in), n.output(0));
  }
  bool wants_output(const Node& n, int i) const {
    return i < n.output_size() && !n.output(i).empty();
  }

  // ---- operators
  void map(const Node& n);
  // Operator groups, each true when it mapped n (activation.cpp, indexing.cpp, signal.cpp, nn.cpp).
  bool map_activation(const Node& n);
  bool map_indexing(const Node& n);
  bool map_signal(const Node& n);
  bool map_nn(const Node& n);
  void non_max_suppression(const Node& n);
  void tfidf(const Node& n);
  void roi_align(const Node& n);
  void conv(const Node& n);
  void pool(const Node& n, bool max);
  void gemm(const Node& n);
  void flatten(const Node& n);
  void batch_norm(const Node& n);
  struct Pads {
    std::vector<int64_t> begin, end;  // per spatial dim
  };
  Pads pads_of(const Node& n, const std::vector<int64_t>& kernel,
               const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations);
  Value pad_spatial(const Node& n, Value x, const Pads& p, double value);
  void fold(const Node& n);
  void shape_op(const Node& n);
  void gather(const Node& n);
  void unsqueeze(const Node& n, bool squeeze);
  void slice(const Node& n);
  void layer_norm(const Node& n);
  void expand(const Node& n);
  void recurrent(const Node& n);
  void fused_recurrent(const Node& n, const std::string& op);
  void reduce(const Node& n);
  void split(const Node& n);
  void cast(const Node& n);
  void softmax(const Node& n, const std::string& op);
  void arg_extreme(const Node& n, const std::string& op);
  void variadic(const Node& n, const std::string& op);
  void settings_at_run_time(const Node& n);
  void record_function_nodes(const Node& n, uint32_t first_new);
  void class_loss(const Node& n, bool from_scores);
  void pad(const Node& n);
  void conv_transpose(const Node& n);
  void resize(const Node& n);
  // The value of input i on the example inputs (the file's input shapes), and its shape.
  Tensor example(const Node& n, int i);
  std::vector<int64_t> shape_of(const Node& n, int i);
  int64_t rank_of(const Node& n, int i);  // -1: unknown at import

  const onnx::GraphProto& onnx_;
  std::string path_;
  std::vector<std::vector<int64_t>> input_shapes_;
  int64_t opset_;  // the model's ai.onnx opset: some operators changed meaning between them
  Graph g_;
  std::unordered_map<std::string, Value> values_;      // value name -> node
  std::unordered_map<std::string, Tensor> constants_;  // initializers and Constant outputs
  std::unordered_set<std::string> initializers_;
  std::unordered_set<std::string> dynamic_;  // values that depend on the graph's inputs
  std::unordered_map<std::string, std::string> unknown_shape_;  // inputs without an example
  std::unordered_map<std::string, Tensor> known_;               // set_known_inputs
  bool shapes_used_ = false;  // a shape was read from the examples (Note [Import shapes])
};

}  // namespace nabla::graph::onnx_import

#endif
