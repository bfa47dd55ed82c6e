#pragma once
// graph::save_onnx's shared declarations (src/graph/onnx/export.cpp, export_ops.cpp).
//
// Note [ONNX export]
// save_onnx writes the nodes its graph's outputs depend on, in topological order. It
// first evaluates them (no gradient) on the inputs' current values, so every value's
// dtype and shape are known: the file declares them for its inputs and outputs, view-like
// ops become Reshapes to the shapes they gave, and an op whose operands nabla promotes
// (float + int64) gets the Casts ONNX wants (it promotes nothing). Inputs are the graph's
// inputs with their current shapes (a graph exported for one shape runs on that shape);
// parameters become initializers named after their nodes (load_onnx makes floating
// initializers trainable parameters), constants and the tensors the written operators
// need become Constant nodes (which it keeps constant). Op nodes are
// written by the table of export_ops.cpp (one entry per op-table op it maps), nodes made
// by Graph::custom from the ONNX operator they were imported from (Note [ONNX records]).
// Anything else is a nabla::Error naming the node and its op.
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/graph_state.h"
#include "nabla/graph/graph.h"

#if NABLA_HAVE_ONNX
#include <onnx/onnx_pb.h>

namespace nabla::graph::onnx_export {

class Exporter;

/// One op node being written: its inputs' and outputs' values and ONNX names, its
/// attributes (defaults filled in), and the writer's helpers.
class OpWriter {
 public:
  OpWriter(Exporter& e, const detail::Node& node, std::vector<Tensor> in, std::vector<Tensor> out,
           std::vector<std::string> in_names, std::vector<std::string> out_names);

  const std::string& op() const { return node_.op; }
  int64_t opset() const;
  const ops::AttrReader& attrs() const { return attrs_; }
  size_t inputs() const { return in_.size(); }
  size_t outputs() const { return out_.size(); }
  std::string fresh(const std::string& hint);  // a name no value has
  const Tensor& in_value(size_t i) const { return in_.at(i); }
  const Tensor& out_value(size_t k = 0) const { return out_.at(k); }
  /// Input i's ONNX name ("" for an absent optional input), cast to `dtype` when given and
  /// different from its own.
  std::string in(size_t i, optional<ScalarType> dtype = nullopt);
  const std::string& out(size_t k = 0) const { return out_names_.at(k); }
  /// Adds a node; `outs` empty: one output with a fresh name. Returns its first output.
  std::string emit(const std::string& op_type, const std::vector<std::string>& ins,
                   std::vector<std::string> outs = {},
                   const std::function<void(onnx::NodeProto&)>& set_attrs = {});
  /// A Constant node holding `t`; returns its output's name.
  std::string constant(const Tensor& t);
  /// An initializer (a parameter when read back) holding `t`, named after the node and
  /// `hint`; returns its name.
  std::string initializer(const Tensor& t, const std::string& hint);
  std::string ints(const std::vector<int64_t>& v);  // a 1-d int64 constant
  std::string scalar(double v, ScalarType dtype);   // a 0-d constant of `dtype`
  /// The dims the int-list attribute `name` gives, made non-negative; every dim of input 0
  /// when it is not given or empty (a reduction over all dims).
  std::vector<int64_t> reduced_dims(const char* name = "dim") const;
  /// A Reduce* node over `dims` (ReduceSum takes them as an input from opset 13, the
  /// others as an attribute up to 17); `out` empty: a fresh name. Returns its output.
  std::string reduce(const std::string& op_type, const std::string& x,
                     const std::vector<int64_t>& dims, bool keep, const std::string& out = "");
  /// A loss's elementwise `values` reduced into out() as its "reduction" attribute says
  /// (0 none, 1 mean, 2 sum).
  void reduce_loss(const std::string& values);
  std::string cast(const std::string& name, ScalarType from, ScalarType to);
  [[noreturn]] void fail(const std::string& why) const;

 private:
  Exporter& e_;
  const detail::Node& node_;
  ops::AttrReader attrs_;
  std::vector<Tensor> in_, out_;
  std::vector<std::string> in_names_, out_names_;
};

// Attribute helpers for OpWriter::emit's set_attrs.
void set_int(onnx::NodeProto& n, const char* name, int64_t v);
void set_float(onnx::NodeProto& n, const char* name, double v);
void set_ints(onnx::NodeProto& n, const char* name, const std::vector<int64_t>& v);
void set_string(onnx::NodeProto& n, const char* name, const std::string& v);

using OpExport = std::function<void(OpWriter&)>;
/// The op-table ops save_onnx writes, by name (export_ops.cpp).
const std::unordered_map<std::string, OpExport>& op_exports();

class Exporter {
 public:
  Exporter(const Graph& g, int64_t opset, std::string path);
  onnx::ModelProto run();
  int64_t opset() const { return opset_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }
  std::string fresh(const std::string& hint);  // a name no value has
  std::string constant_node(const Tensor& t, const std::string& name);
  [[noreturn]] void fail(const detail::Node& n, const std::string& why) const;

 private:
  std::vector<uint32_t> order() const;  // the nodes the outputs need, inputs first
  void write_leaf(uint32_t id);
  void write_op(uint32_t id);
  void splice_record(uint32_t id, const std::string& record);
  const std::string& name_of(const detail::Ref& r) const;

  const detail::GraphState& g_;
  int64_t opset_;
  std::string path_;
  onnx::ModelProto model_;
  std::unordered_map<uint32_t, std::vector<Tensor>> values_;      // by node id
  std::unordered_map<uint32_t, std::vector<std::string>> names_;  // ONNX name per output
  std::unordered_set<std::string> taken_;                         // names used (fresh)
  std::unordered_map<std::string, int> next_;  // per hint, the next number fresh tries
};

/// The TensorProto of `t` (raw little-endian data), named `name`.
onnx::TensorProto tensor_proto(const Tensor& t, const std::string& name);

}  // namespace nabla::graph::onnx_export

#endif
