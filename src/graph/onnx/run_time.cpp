// Operators whose settings depend on the model's inputs.
//
#include "graph/onnx/importer.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

// Note [Settings at run time]
// ONNX gives many operators their settings as tensors (a Reshape's shape, a Clip's bounds,
// CumSum's axis). When such a tensor is known at import (an initializer, a Constant, shape
// arithmetic on fixed shapes) the operator maps to op-table nodes with the settings as
// attributes. When it depends on the model's inputs, the operator becomes one node
// (Graph::custom) that, each time the graph runs, imports that single operator again with
// the values its inputs have then (every one of them known, so the settings are too) and
// applies the small graph it gets to them (Graph::apply): eager ops, so gradients flow to
// the data inputs as through any node. The same mapping code serves both cases.
std::vector<int64_t> long_values(const Tensor& t) {
  const Tensor l = t.to(kCPU).to(kLong).contiguous();
  return std::vector<int64_t>(l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
}

namespace {
Tensor first_of(const Tensor& t, ScalarType dtype, const char* what) {
  NABLA_CHECK(t.defined() && t.numel() > 0, what, ": a value wanted, got an empty tensor");
  return t.reshape({-1})[0].to(kCPU).to(dtype);
}
}  // namespace

int64_t first_long(const Tensor& t, const char* what) {
  return first_of(t, kLong, what).item<int64_t>();
}

double first_double(const Tensor& t, const char* what) {
  return first_of(t, kDouble, what).item<double>();
}

std::vector<Tensor> import_and_apply(const onnx::NodeProto& node, const std::string& path,
                                     int64_t opset, const std::vector<std::string>& names,
                                     const std::vector<Tensor>& values) {
  onnx::GraphProto sub;
  *sub.add_node() = node;
  std::unordered_map<std::string, Tensor> known;
  for (size_t i = 0; i < names.size(); ++i) {
    auto* in = sub.add_input();
    in->set_name(names[i]);
    auto* type = in->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx_type_of(values[i].scalar_type()));
    for (int64_t d : values[i].sizes()) type->mutable_shape()->add_dim()->set_dim_value(d);
    known[names[i]] = values[i];
  }
  for (const auto& o : node.output())
    if (!o.empty()) sub.add_output()->set_name(o);
  Importer importer(sub, path, {}, opset);
  importer.set_known_inputs(std::move(known));
  return importer.run().apply(values);
}

void Importer::settings_at_run_time(const Node& n) {
  std::vector<std::string> names;
  std::vector<Value> in;
  for (int i = 0; i < n.input_size(); ++i)
    if (!n.input(i).empty() && std::find(names.begin(), names.end(), n.input(i)) == names.end()) {
      names.push_back(n.input(i));
      in.push_back(input(n, i));
    }
  Value v = g_.custom(
      n.op_type(),
      [node = n, path = path_, opset = opset_, names](const std::vector<Tensor>& x) {
        return import_and_apply(node, path, opset, names, x);
      },
      std::move(in), n.output(0));
  // the node's outputs in order, the absent ones skipped (as import_and_apply's graph has them)
  int k = 0;
  for (const auto& o : n.output()) {
    if (o.empty()) continue;
    values_[o] = v.output(k++);
    dynamic_.insert(o);
  }
}

}  // namespace nabla::graph::onnx_import

#endif
