// graph::trace: recording a dynamic forward into a static graph.
//
// Note [Tracing]
// The traced code runs once on the example inputs with a tracer installed
// (nabla/ops/trace.h). Each traced op at its top level becomes a node; its outputs are
// computed by ops::call one level down, where ops run untraced, so a composite op is one
// node. Tensors are known by their TensorImpl: the examples' copies map to the graph's
// inputs, each op's outputs to its node. While the code runs, every TensorImpl made on
// this thread carries the trace's epoch (TensorImpl::trace_epoch), so an unknown tensor
// reaching a traced op (or returned) is told apart:
//   - made during the trace by a factory (zeros, tensor, from_blob) and not changed
//     since: a constant;
//   - made during the trace otherwise: computed by an op without a tracer hook, or by an
//     in-place op: an error naming it (its grad_fn, if any), never a silent constant;
//   - made before the trace: a leaf that requires grad (a module's parameter) becomes a
//     parameter node sharing it, another leaf a constant, a non-leaf an error (the graph
//     could not send its gradient on).
// A known tensor changed in place since it was recorded (in-place ops are not traced) is
// an error too, not a silently stale node. An undefined tensor (an optional input left out
// before a given one) is a constant without a value, as ops::call takes it. What a graph
// cannot hold refuses to run while tracing (ops::refuse_while_tracing): random factories (a
// graph would keep one draw), explicit Generators; custom autograd Functions refuse too
// (their apply checks the epoch: autograd sits below the tracer).
#include <atomic>
#include <unordered_map>

#include "graph/graph_state.h"
#include "nabla/autograd/node.h"
#include "nabla/core/error.h"
#include "nabla/ops/trace.h"

namespace nabla::graph {

namespace {

class GraphTracer final : public ops::Tracer {
 public:
  GraphTracer(Graph& graph, uint32_t epoch) : graph_(graph), epoch_(epoch) {}

  void know(const Tensor& t, Value v) { known_[t.unsafeGetTensorImpl()] = {v, t._version(), t}; }

  Value value_of(const Tensor& t, std::string_view op) {
    if (!t.defined()) return graph_.constant(Tensor());  // an absent optional input
    const TensorImpl* impl = t.unsafeGetTensorImpl();
    auto it = known_.find(impl);
    if (it != known_.end()) {
      NABLA_CHECK(it->second.version == t._version(), "graph::trace: op '", op,
                  "' got a tensor that was changed in place after it was recorded (node '",
                  it->second.value.name(), "'); in-place ops are not traced yet");
      return it->second.value;
    }
    if (impl->trace_epoch() == epoch_) {
      NABLA_CHECK(impl->factory_made(), "graph::trace: op '", op,
                  "' got a tensor the traced code computed with an op that is not traced",
                  t.grad_fn() ? " (its grad_fn is " + t.grad_fn()->name() + ")" : std::string(),
                  "; docs/graph.md lists the traced ops");
      NABLA_CHECK(t._version() == 0, "graph::trace: op '", op,
                  "' got a tensor made by a factory and then changed in place; in-place ops "
                  "are not traced yet");
    } else {
      NABLA_CHECK(t.grad_fn() == nullptr, "graph::trace: op '", op,
                  "' got a tensor computed before tracing that requires grad (its grad_fn is ",
                  t.grad_fn()->name(),
                  "); the graph could not pass its gradient on: compute it inside the traced "
                  "code, or pass it in as an input");
    }
    Value v =
        t.requires_grad() && t.grad_fn() == nullptr ? graph_.parameter("", t) : graph_.constant(t);
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
    NABLA_CHECK(t.defined(), "graph::trace: result ", index, " is undefined");
    return value_of(t, "result " + std::to_string(index));
  }

 private:
  struct Known {
    Value value;
    uint32_t version;
    Tensor keep;  // keeps the TensorImpl alive, so its address is not reused while tracing
  };
  Graph& graph_;
  uint32_t epoch_;
  std::unordered_map<const TensorImpl*, Known> known_;
};

// Sets this thread's trace epoch (Note [Tracing]) while alive.
class EpochScope {
 public:
  explicit EpochScope(uint32_t epoch) : previous_(t_trace_epoch) { t_trace_epoch = epoch; }
  ~EpochScope() { t_trace_epoch = previous_; }
  EpochScope(const EpochScope&) = delete;
  EpochScope& operator=(const EpochScope&) = delete;

 private:
  uint32_t previous_;
};

uint32_t next_epoch() {
  static std::atomic<uint32_t> last{0};
  uint32_t e = last.fetch_add(1, std::memory_order_relaxed) + 1;
  return e != 0 ? e : last.fetch_add(1, std::memory_order_relaxed) + 1;  // 0 means none
}

}  // namespace

Graph trace(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
            const std::vector<Tensor>& example_inputs) {
  Graph graph;
  const uint32_t epoch = next_epoch();
  GraphTracer tracer(graph, epoch);
  std::vector<Tensor> copies;
  for (size_t i = 0; i < example_inputs.size(); ++i) {
    const Tensor& e = example_inputs[i];
    NABLA_CHECK(e.defined(), "graph::trace: example input ", i, " is undefined");
    Value in = graph.input("input_" + std::to_string(i), e.requires_grad());
    graph.set_value(in, e);
    Tensor copy = e.detach();  // fn sees a tensor of its own, as it would in eager code
    tracer.know(copy, in);
    copies.push_back(copy);
  }
  std::vector<Tensor> results;
  std::vector<Value> outputs;
  {
    EpochScope marks(epoch);
    {
      ops::TracerScope scope(&tracer);
      results = fn(copies);
    }
    for (size_t i = 0; i < results.size(); ++i)
      outputs.push_back(tracer.output_value(results[i], i));
  }
  graph.set_outputs(std::move(outputs));
  return graph;
}

}  // namespace nabla::graph
