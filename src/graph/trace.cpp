// graph::trace: recording a dynamic forward into a static graph.
//
// Note [Tracing]
// The traced code runs once on the example inputs with a tracer installed
// (nabla/ops/trace.h). Each traced op at its top level becomes a node; its outputs are
// computed by ops::call one level down, untraced, so composite ops are one node each.
// Tensors are known by their TensorImpl: the examples' copies map to the graph's inputs,
// each op's outputs to its node. An unknown tensor reaching a traced op is
//   - a leaf that requires grad (a module's parameter): a parameter node sharing it;
//   - a leaf without grad (made inside the traced code): a constant;
//   - anything else was computed by an op that is not traced yet: an error naming it.
// The examples are traced through detached copies that require grad (floating ones), so
// that anything computed from them without a tracer hook has a grad_fn and is caught. A
// known tensor changed in place since it was recorded (in-place ops are not traced) is an
// error too, not a silently stale node.
#include <unordered_map>

#include "graph/graph_state.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/node.h"
#include "nabla/core/error.h"
#include "nabla/ops/trace.h"

namespace nabla::graph {

namespace {

class GraphTracer final : public ops::Tracer {
 public:
  explicit GraphTracer(Graph& graph) : graph_(graph) {}

  void know(const Tensor& t, Value v) { known_[t.unsafeGetTensorImpl()] = {v, t._version(), t}; }

  Value value_of(const Tensor& t, std::string_view op) {
    auto it = known_.find(t.unsafeGetTensorImpl());
    if (it != known_.end()) {
      NABLA_CHECK(it->second.version == t._version(), "graph::trace: op '", op,
                  "' got a tensor that was changed in place after it was recorded (node '",
                  it->second.value.name(), "'); in-place ops are not traced yet");
      return it->second.value;
    }
    NABLA_CHECK(t.grad_fn() == nullptr, "graph::trace: op '", op,
                "' got a tensor computed by an op that cannot be traced yet (its grad_fn is ",
                t.grad_fn() ? t.grad_fn()->name() : std::string("none"),
                "); docs/graph.md lists the traced ops");
    Value v = t.requires_grad() ? graph_.parameter("", t) : graph_.constant(t);
    know(t, v);
    return v;
  }

  std::vector<Tensor> record(std::string_view op, const std::vector<Tensor>& inputs,
                             const ops::Attributes& attrs) override {
    std::vector<Value> args;
    args.reserve(inputs.size());
    for (const Tensor& t : inputs) args.push_back(value_of(t, op));
    Value node = graph_.call(op, args, attrs);
    std::vector<Tensor> outputs;
    {
      ops::UntracedScope untraced;
      outputs = ops::call(op, inputs, attrs);
    }
    for (size_t k = 0; k < outputs.size(); ++k)
      if (outputs[k].defined()) know(outputs[k], node.output(static_cast<int64_t>(k)));
    return outputs;
  }

  Value output_value(const Tensor& t, size_t index) {
    auto it = known_.find(t.unsafeGetTensorImpl());
    NABLA_CHECK(it != known_.end(), "graph::trace: result ", index,
                " was not made by a traced op (an untraced op, or a tensor the traced code "
                "did not compute)");
    return it->second.value;
  }

 private:
  struct Known {
    Value value;
    uint32_t version;
    Tensor keep;  // keeps the TensorImpl alive, so its address is not reused while tracing
  };
  Graph& graph_;
  std::unordered_map<const TensorImpl*, Known> known_;
};

}  // namespace

Graph trace(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
            const std::vector<Tensor>& example_inputs) {
  Graph graph;
  GraphTracer tracer(graph);
  std::vector<Tensor> copies;
  for (size_t i = 0; i < example_inputs.size(); ++i) {
    const Tensor& e = example_inputs[i];
    NABLA_CHECK(e.defined(), "graph::trace: example input ", i, " is undefined");
    Value in = graph.input("input_" + std::to_string(i), e.requires_grad());
    graph.set_value(in, e);
    Tensor copy = e.detach();
    if (copy.is_floating_point() || copy.is_complex()) copy.set_requires_grad(true);
    tracer.know(copy, in);
    copies.push_back(copy);
  }
  std::vector<Tensor> results;
  {
    EnableGradGuard grad_mode;  // so that untraced ops show up (Note [Tracing])
    ops::TracerScope scope(&tracer);
    results = fn(copies);
  }
  std::vector<Value> outputs;
  for (size_t i = 0; i < results.size(); ++i) outputs.push_back(tracer.output_value(results[i], i));
  graph.set_outputs(std::move(outputs));
  return graph;
}

}  // namespace nabla::graph
