// The backward engine (docs/autograd.md): count each node's
// dependencies, seed the roots' gradients, then run ready nodes in sequence_nr order
// from a priority queue, summing the gradients that reach one input slot by several
// edges (the input buffer). No recursion: a 100,000-node chain runs in a loop.
#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <memory>
#include <queue>
#include <thread>
#include <tuple>

#include "autograd/accumulate_grad.h"
#include "nabla/autograd/autograd.h"
#include "nabla/autograd/detail/grad_arithmetic.h"
#include "nabla/autograd/grad_sink.h"
#include "nabla/autograd/profiler.h"
#include "nabla/autograd/record.h"
#include "nabla/core/autograd_meta.h"
#include "nabla/core/warning.h"

namespace nabla::autograd {
namespace {

thread_local bool t_anomaly = false;
thread_local bool t_anomaly_check_nan = true;
// The node whose apply() runs on this thread now (anomaly mode only): nodes created
// meanwhile (create_graph) name it as their anomaly parent.
thread_local Node* t_running_node = nullptr;
class Graph;
// The graph of the backward pass running on this thread (for task_needs_edge).
thread_local Graph* t_task_graph = nullptr;

// Callbacks queued by the backward passes running on this thread, innermost last (a
// backward inside a backward: checkpoint, a hook that calls grad).
thread_local std::vector<std::vector<std::function<void()>>> t_callbacks;

// One backward pass's callback frame: its callbacks run when the graph is done (run()),
// and are dropped if it throws.
class CallbackFrame {
 public:
  CallbackFrame() : depth_(t_callbacks.size()) { t_callbacks.emplace_back(); }
  ~CallbackFrame() { t_callbacks.resize(depth_); }
  CallbackFrame(const CallbackFrame&) = delete;
  CallbackFrame& operator=(const CallbackFrame&) = delete;
  void run() {
    for (size_t i = 0; i < t_callbacks[depth_].size(); ++i) {
      auto fn = std::move(t_callbacks[depth_][i]);  // the vector may grow while fn runs
      fn();
    }
  }

 private:
  size_t depth_;
};

struct NodeState {
  Node* node = nullptr;
  int dependencies = 0;
  uint32_t next_begin = 0;       // where this node's next-state indices start (Graph::next)
  bool needed = true;            // runs apply(); false when pruned by `inputs`
  variable_list buffer;          // gradients received so far, one per input slot
  std::vector<size_t> captures;  // indices into the capture list, for this node's slots
};
constexpr uint32_t kNoState = UINT32_MAX;

// The graph one backward runs: a state per node reached, found by Node* through open
// addressing (std::unordered_map's per-entry allocation showed in profiles), and for
// each node the indices of its next edges' states, written once by discovery so that
// running the graph looks nothing up. States are addressed by index: the vector grows
// during discovery only. Each thread keeps one Graph between backward calls (Lease), so a
// backward after the first neither grows the table nor allocates the states again.
class Graph {
 public:
  Graph() { table_.assign(64, Slot{}); }
  /// The index of key's state, and whether it was just added.
  std::pair<uint32_t, bool> emplace(Node* key) {
    size_t i = probe(key);
    if (table_[i].key == key) return {table_[i].index, false};
    if ((states_.size() + 1) * 2 > table_.size()) {
      grow();
      i = probe(key);
    }
    auto index = static_cast<uint32_t>(states_.size());
    table_[i] = {key, index};
    states_.emplace_back().node = key;
    return {index, true};
  }
  uint32_t find(Node* key) const {
    size_t i = probe(key);
    return table_[i].key == key ? table_[i].index : kNoState;
  }
  NodeState& operator[](uint32_t index) { return states_[index]; }
  size_t size() const { return states_.size(); }
  /// Next-state indices: `next[s.next_begin + i]` for edge i of s.node (kNoState when the
  /// edge is invalid).
  std::vector<uint32_t> next;
  /// Whether formulas may add into leaves' .grad themselves (Note [Gradient sinks]).
  bool allow_sinks = false;
  /// With captures: per captured edge, the tensor formulas may add its gradient into
  /// (grad_into_sinks), or none.
  const variable_list* capture_sinks = nullptr;
  /// Empties the graph for the next backward, keeping its memory unless this one was
  /// much larger than what it held.
  void clear() {
    const size_t used = states_.size();
    states_.clear();
    next.clear();
    if (table_.size() > 64 && table_.size() > 16 * used) {
      table_.assign(64, Slot{});
      states_.shrink_to_fit();
      next.shrink_to_fit();
    } else {
      std::fill(table_.begin(), table_.end(), Slot{});
    }
  }

  /// The calling thread's spare graph, or a new one when it is in use (a backward inside
  /// a backward: checkpoint, a hook that calls grad).
  class Lease {
   public:
    Lease() : graph_(spare() ? std::move(spare()) : std::make_unique<Graph>()) {}
    ~Lease() {
      graph_->clear();
      if (!spare()) spare() = std::move(graph_);
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Graph& operator*() { return *graph_; }

   private:
    static std::unique_ptr<Graph>& spare() {
      thread_local std::unique_ptr<Graph> s;
      return s;
    }
    std::unique_ptr<Graph> graph_;
  };

 private:
  struct Slot {
    Node* key = nullptr;
    uint32_t index = 0;
  };
  size_t probe(Node* key) const {
    size_t mask = table_.size() - 1;
    size_t i = (reinterpret_cast<uintptr_t>(key) >> 4) * 0x9E3779B97F4A7C15ull >> 20 & mask;
    while (table_[i].key && table_[i].key != key) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<Slot> old = std::move(table_);
    table_.assign(old.size() * 2, Slot{});
    for (const Slot& sl : old)
      if (sl.key) table_[probe(sl.key)] = sl;
  }
  std::vector<Slot> table_;
  std::vector<NodeState> states_;
};

// A node ready to run: its sequence_nr (the priority, kept here so that ordering the queue
// reads no node) and its state.
struct Ready {
  uint64_t sequence_nr;
  uint32_t state;
  bool operator<(const Ready& o) const { return sequence_nr < o.sequence_nr; }
};

void add_to_buffer(variable_list& buffer, size_t slot, size_t size, Tensor grad) {
  if (buffer.size() < size) buffer.resize(size);
  Tensor& cur = buffer[slot];
  if (!cur.defined())
    cur = std::move(grad);
  else
    cur = detail::grad_arithmetic().add(cur,
                                        grad);  // out of place: either may be referenced elsewhere
}

// Passes output i of a node (of `outputs`) to slot `slot` of the next node's state. In a
// chain (one output, a next node with one slot and nothing received yet) the vector
// itself moves on and becomes that node's inputs.
void add_to_buffer(NodeState& next, uint32_t slot, variable_list&& outputs, size_t i) {
  if (outputs.size() == 1 && next.buffer.empty() && next.node->num_inputs() == 1) {
    if (outputs[0].defined()) next.buffer = std::move(outputs);
  } else if (outputs[i].defined()) {
    add_to_buffer(next.buffer, slot, next.node->num_inputs(), std::move(outputs[i]));
  }
}

void check_anomaly(Node& node, const variable_list& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || !g.is_floating_point() || g.numel() == 0) continue;
    if (!detail::grad_arithmetic().all_finite(g)) {
      NABLA_CHECK(false, "Function '", node.name(), "' returned nan values in its ", i,
                  "th output.",
                  node.creation_trace().empty() ? "" : "\nThe forward op was created at:\n",
                  node.creation_trace());
    }
  }
}

// What anomaly mode says before a backward node's error propagates: the forward call that
// created the node, then those of the nodes whose backward created it.
void warn_anomaly_traces(const Node& node) {
  auto trace = [](const Node& n) -> std::string {
    return n.creation_trace().empty() ? "  (no trace: the node was made outside anomaly mode)\n"
                                      : n.creation_trace();
  };
  NABLA_WARN("Error detected in ", node.name(),
             ". Traceback of forward call that caused the error:\n", trace(node));
  for (auto p = node.anomaly_parent(); p; p = p->anomaly_parent())
    NABLA_WARN("\n\nPrevious calculation was induced by ", p->name(),
               ". Traceback of forward call that induced the previous calculation:\n", trace(*p));
}

void validate_outputs(Node& node, variable_list& outputs) {
  NABLA_CHECK(outputs.size() == node.num_outputs(), "Function ", node.name(), " returned ",
              outputs.size(), " gradients, but expected ", node.num_outputs());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Edge& e = node.next_edge(i);
    if (!e.is_valid() || !outputs[i].defined()) continue;
    const InputMetadata& meta = e.function->input_metadata(e.input_nr);
    Tensor& g = outputs[i];
    NABLA_CHECK(g.sizes() == IntArrayRef(meta.shape), "Function ", node.name(),
                " returned an invalid gradient at index ", i, " - got ", g.sizes(),
                " but expected shape compatible with ", IntArrayRef(meta.shape));
    if (g.scalar_type() != meta.dtype) g = detail::grad_arithmetic().to(g, meta.dtype);
  }
}

}  // namespace

bool AnomalyMode::is_enabled() { return t_anomaly; }
void AnomalyMode::set_enabled(bool enabled, bool check_nan) {
  t_anomaly = enabled;
  t_anomaly_check_nan = check_nan;
}
bool AnomalyMode::should_check_nan() { return t_anomaly_check_nan; }

Node* detail::anomaly_running_node() { return t_running_node; }

// Note [Gradient sinks]
// A product's backward makes a fresh gradient for its weight, which AccumulateGrad then
// adds into the weight's .grad: one more write, and a read-read-write pass over every
// parameter (GPT-2 124M: 1.5 GB per step, about a tenth of a 1-thread step), plus, for a
// weight used twice (GPT-2's tied embedding), the input buffer's out-of-place sum. When
// the gradient would only be added to an existing .grad, the formula can add it there
// itself (a gemm with beta = 1, index_put_ with accumulate) and send nothing along the
// edge: detail::add_to_leaf_grad offers the .grad when that changes nothing observable:
//  * no create_graph (the sum would have to be differentiable), no captured edges
//    (autograd::grad and backward with `inputs` return gradients instead of
//    accumulating), no anomaly mode (it checks each node's outputs);
//  * the leaf's .grad is defined, contiguous and has no history (after zero_grad() it
//    is: the first backward, or one after zero_grad(set_to_none = true), takes the usual
//    path and keeps the fresh gradient as .grad);
//  * no hooks on the way: the accumulator's pre-hooks, the leaf's tensor and
//    post-accumulate hooks, and the pre-hooks and retain_grad of a t() in between
//    (linear's weight.t(): the formula then adds the transposed product).
// The nodes on the way still run when other edges bring them gradients, and add those as
// usual. Sums are associated differently ((grad + a) + b rather than grad + (a + b)):
// after zero_grad() both give a + b exactly; accumulating over several backward calls
// can differ in the last bits, as LibTorch's CPU and CUDA results do.
// With captured edges (autograd::grad) nothing is accumulated into .grad; a captured
// leaf's gradient may go into the tensor detail::grad_into_sinks names for it instead (the
// static graph's backward passes a parameter's .grad), under the same conditions.
bool detail::add_to_leaf_grad(const Edge& e, bool through,
                              const std::function<bool(const Tensor& grad)>& add) {
  Graph* const graph = t_task_graph;
  if (graph == nullptr || !graph->allow_sinks || !e.is_valid() || t_anomaly ||
      GradMode::is_enabled())
    return false;
  Node* n = e.function.get();
  const bool capturing = graph->capture_sinks != nullptr;
  if (through) {
    if (n->num_inputs() != 1 || n->num_outputs() != 1 || n->has_pre_hooks() ||
        !n->next_edge(0).is_valid())
      return false;
    if (capturing) {
      const uint32_t i = graph->find(n);
      if (i == kNoState || !(*graph)[i].captures.empty()) return false;
    }
    n = n->next_edge(0).function.get();
  }
  auto* acc = dynamic_cast<AccumulateGrad*>(n);
  if (acc == nullptr || acc->has_pre_hooks()) return false;
  if (!capturing) return acc->add_in_place(add);
  const uint32_t i = graph->find(n);
  if (i == kNoState || (*graph)[i].captures.size() != 1) return false;
  const Tensor& sink = (*graph->capture_sinks)[(*graph)[i].captures[0]];
  return acc->can_add_into(sink) && add(sink);
}

bool detail::task_needs_edge(const Edge& e) {
  if (!e.is_valid()) return false;
  if (t_task_graph == nullptr) return true;
  const uint32_t i = t_task_graph->find(e.function.get());
  return i != kNoState && ((*t_task_graph)[i].needed || !(*t_task_graph)[i].captures.empty());
}

void queue_callback(std::function<void()> callback) {
  NABLA_CHECK(!t_callbacks.empty(),
              "queue_callback: no backward pass is running on this thread (call it from a hook)");
  t_callbacks.back().push_back(std::move(callback));
}

Edge gradient_edge(const Tensor& t) {
  auto* meta = t.unsafeGetTensorImpl()->autograd_meta();
  if (meta && meta->grad_fn) return Edge(meta->grad_fn, meta->output_nr);
  if (meta && meta->requires_grad) return Edge(grad_accumulator(t), 0);
  return Edge();
}

// Runs the graph behind `roots`. With `capture` non-empty, returns the gradients that
// reach those edges instead of running them (autograd::grad), and only runs the nodes
// that lead to them.
variable_list run_backward_here(const edge_list& roots, const variable_list& root_grads,
                                bool keep_graph, bool create_graph, const edge_list& capture,
                                const variable_list& sinks) {
  Graph::Lease lease;
  Graph& graph = *lease;
  CallbackFrame callbacks;
  // 1. Discover the graph (iteratively), count dependencies and index the next edges.
  std::vector<uint32_t> stack;
  for (const Edge& r : roots) {
    auto [index, fresh] = graph.emplace(r.function.get());
    if (fresh) stack.push_back(index);
  }
  while (!stack.empty()) {
    const uint32_t index = stack.back();
    stack.pop_back();
    graph[index].next_begin = static_cast<uint32_t>(graph.next.size());
    for (const Edge& e : graph[index].node->next_edges()) {
      uint32_t next = kNoState;
      if (e.is_valid()) {
        bool fresh;
        std::tie(next, fresh) = graph.emplace(e.function.get());
        graph[next].dependencies++;
        if (fresh) stack.push_back(next);
      }
      graph.next.push_back(next);
    }
  }
  // 2. With captures, a node runs only if a captured edge is reachable from it.
  variable_list captured(capture.size());
  if (!capture.empty()) {
    std::vector<bool> target(graph.size(), false);
    for (size_t i = 0; i < capture.size(); ++i) {
      uint32_t index = graph.find(capture[i].function.get());
      if (index == kNoState) continue;
      graph[index].captures.push_back(i);
      target[index] = true;
    }
    // Successors have smaller topological_nr, so one pass in that order suffices.
    std::vector<uint32_t> order(graph.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return graph[a].node->topological_nr() < graph[b].node->topological_nr();
    });
    for (uint32_t index : order) {
      NodeState& s = graph[index];
      s.needed = false;
      for (size_t i = 0; i < s.node->num_outputs() && !s.needed; ++i) {
        uint32_t next = graph.next[s.next_begin + i];
        s.needed = next != kNoState && (graph[next].needed || target[next]);
      }
    }
  }
  // Note [Gradient sinks]: with captures, only into the tensors given for them.
  graph.allow_sinks = !create_graph && (capture.empty() || !sinks.empty());
  graph.capture_sinks = capture.empty() ? nullptr : &sinks;
  // 3. Seed the roots.
  Graph* const outer_task = t_task_graph;
  t_task_graph = &graph;
  struct RestoreTask {
    Graph* outer;
    ~RestoreTask() { t_task_graph = outer; }
  } restore_task{outer_task};
  std::priority_queue<Ready> ready;
  for (size_t i = 0; i < roots.size(); ++i) {
    Node* n = roots[i].function.get();
    add_to_buffer(graph[graph.find(n)].buffer, roots[i].input_nr, n->num_inputs(), root_grads[i]);
  }
  {
    std::vector<bool> queued(graph.size(), false);
    for (const Edge& r : roots) {
      uint32_t index = graph.find(r.function.get());
      if (graph[index].dependencies == 0 && !queued[index]) {
        queued[index] = true;
        ready.push({r.function->sequence_nr(), index});
      }
    }
  }
  // 4. Run.
  AutoGradMode grad_mode(create_graph);
  while (!ready.empty()) {
    const uint32_t index = ready.top().state;
    ready.pop();
    NodeState& s = graph[index];
    Node* n = s.node;
    variable_list inputs = std::move(s.buffer);
    inputs.resize(n->num_inputs());
    if (n->has_pre_hooks()) n->run_pre_hooks(inputs);
    for (size_t ci : s.captures) captured[ci] = inputs[capture[ci].input_nr];
    variable_list outputs;
    if (s.needed) {
      bool any =
          std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.defined(); });
      if (any) {
        {
          profiler::RecordFunction record(profiler::EventKind::Backward, [&] {
            return n->name();
          });  // Note [Profiler cost when disabled]
          if (t_anomaly) [[unlikely]] {
            Node* const outer = t_running_node;
            t_running_node = n;
            try {
              outputs = n->apply(std::move(inputs));
              validate_outputs(*n, outputs);
              if (t_anomaly_check_nan) check_anomaly(*n, outputs);
            } catch (...) {
              t_running_node = outer;
              warn_anomaly_traces(*n);
              throw;
            }
            t_running_node = outer;
          } else {
            outputs = n->apply(std::move(inputs));
          }
        }
        if (!t_anomaly) validate_outputs(*n, outputs);
      }
      if (!keep_graph) n->release_variables();
    }
    outputs.resize(n->num_outputs());
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      const uint32_t next = graph.next[s.next_begin + i];
      if (next == kNoState) continue;
      NodeState& ns = graph[next];
      add_to_buffer(ns, n->next_edge(i).input_nr, std::move(outputs), i);
      if (--ns.dependencies == 0) ready.push({ns.node->sequence_nr(), next});
    }
  }
  callbacks.run();
  return captured;
}

// Note [Reentrant backward]
// A custom Function's backward may itself call backward (or grad), which runs a whole
// engine pass inside the outer one, on the same stack. Chains of such calls thousands deep
// would overflow it, so every kReentrantDepthPerThread nested passes the next one runs on
// a fresh thread (with this thread's grad, inference, anomaly and warning settings) while
// this one waits: each thread's stack holds a bounded number of passes, as LibTorch's
// reentrant workers do.
namespace {
constexpr int kReentrantDepthPerThread = 32;
thread_local int t_backward_depth = 0;
}  // namespace

variable_list run_backward(const edge_list& roots, const variable_list& root_grads, bool keep_graph,
                           bool create_graph, const edge_list& capture,
                           const variable_list& sinks = {}) {
  if (t_backward_depth < kReentrantDepthPerThread) {
    ++t_backward_depth;
    struct Leave {
      ~Leave() { --t_backward_depth; }
    } leave;
    return run_backward_here(roots, root_grads, keep_graph, create_graph, capture, sinks);
  }
  const bool grad = GradMode::is_enabled(), anomaly = t_anomaly, check_nan = t_anomaly_check_nan;
  const bool inference = ::nabla::detail::inference_mode_enabled();
  WarningHandler* const handler = Warning::get_warning_handler();
  variable_list result;
  std::exception_ptr error;
  std::thread worker([&] {
    GradMode::set_enabled(grad);
    AnomalyMode::set_enabled(anomaly, check_nan);
    ::nabla::detail::inference_mode_enabled() = inference;
    Warning::set_warning_handler(handler);
    try {
      result = run_backward(roots, root_grads, keep_graph, create_graph, capture, sinks);
    } catch (...) {
      error = std::current_exception();
    }
  });
  worker.join();
  if (error) std::rethrow_exception(error);
  return result;
}

namespace {

variable_list make_root_grads(const variable_list& outputs, const variable_list& grads,
                              const char* op) {
  NABLA_CHECK(grads.empty() || grads.size() == outputs.size(), op, ": got ", grads.size(),
              " gradients for ", outputs.size(), " tensors");
  variable_list out;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    if (!grads.empty() && grads[i].defined()) {
      NABLA_CHECK(grads[i].sizes() == t.sizes(), op, ": Mismatch in shape: grad_output[", i,
                  "] has a shape of ", grads[i].sizes(), " and output[", i, "] has a shape of ",
                  t.sizes(), ".");
      out.push_back(grads[i]);
    } else {
      NABLA_CHECK(t.numel() == 1, "grad can be implicitly created only for scalar outputs (", op,
                  " got an output of shape ", t.sizes(), "; pass a gradient)");
      out.push_back(detail::grad_arithmetic().ones_like(t));
    }
  }
  return out;
}

edge_list root_edges(const variable_list& outputs, const char* op) {
  edge_list roots;
  for (size_t i = 0; i < outputs.size(); ++i) {
    NABLA_CHECK(outputs[i].defined(), op, ": output ", i, " is an undefined tensor");
    Edge e = gradient_edge(outputs[i]);
    NABLA_CHECK(e.is_valid(), "element ", i,
                " of tensors does not require grad and does not have a grad_fn");
    roots.push_back(std::move(e));
  }
  return roots;
}

}  // namespace

void detail::backward_pass(const variable_list& tensors, const variable_list& grad_tensors,
                           optional<bool> retain_graph, bool create_graph,
                           const variable_list& inputs) {
  edge_list roots = root_edges(tensors, "backward");
  variable_list grads = make_root_grads(tensors, grad_tensors, "backward");
  bool keep = retain_graph.value_or(create_graph);
  if (inputs.empty()) {
    if (create_graph)
      NABLA_WARN_ONCE(
          "Using backward() with create_graph=True makes each parameter's gradient refer to "
          "the parameter through its graph: a reference cycle that leaks memory unless the "
          ".grad fields are reset after use. autograd::grad (or backward with inputs) "
          "avoids it.");
    run_backward(roots, grads, keep, create_graph, {});
    return;
  }
  edge_list targets;
  for (const Tensor& in : inputs) {
    Edge e = gradient_edge(in);
    NABLA_CHECK(e.is_valid(), "backward: one of the given inputs does not require grad");
    targets.push_back(std::move(e));
  }
  variable_list got = run_backward(roots, grads, keep, create_graph, targets);
  AutoGradMode mode(create_graph);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (got[i].defined()) accumulate_grad(inputs[i], got[i]);
}

namespace {

// autograd::grad's inputs as the edges to capture.
edge_list grad_targets(const variable_list& inputs) {
  NABLA_CHECK(!inputs.empty(), "grad: grad requires non-empty inputs.");
  edge_list targets;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NABLA_CHECK(inputs[i].defined() && inputs[i].requires_grad(), "grad: input ", i,
                " does not require grad (One of the differentiated Tensors does not require grad)");
    targets.push_back(gradient_edge(inputs[i]));
  }
  return targets;
}

}  // namespace

variable_list detail::grad_into_sinks_pass(const variable_list& outputs,
                                           const variable_list& inputs,
                                           const variable_list& grad_outputs,
                                           const variable_list& sinks) {
  NABLA_CHECK(sinks.size() == inputs.size(), "grad_into_sinks: got ", sinks.size(), " sinks for ",
              inputs.size(), " inputs");
  edge_list targets = grad_targets(inputs);
  return run_backward(root_edges(outputs, "grad"), make_root_grads(outputs, grad_outputs, "grad"),
                      /*keep_graph=*/true, /*create_graph=*/false, targets, sinks);
}

variable_list detail::grad_pass(const variable_list& outputs, const variable_list& inputs,
                                const variable_list& grad_outputs, optional<bool> retain_graph,
                                bool create_graph, bool allow_unused) {
  edge_list targets = grad_targets(inputs);
  edge_list roots = root_edges(outputs, "grad");
  variable_list grads = make_root_grads(outputs, grad_outputs, "grad");
  variable_list got =
      run_backward(roots, grads, retain_graph.value_or(create_graph), create_graph, targets);
  for (size_t i = 0; i < got.size(); ++i) {
    NABLA_CHECK(
        got[i].defined() || allow_unused, "grad: One of the differentiated Tensors (input ", i,
        ") appears to not have been used in the graph. Set allow_unused=True (the allow_unused "
        "argument, true) if this is the desired behavior.");
  }
  return got;
}

}  // namespace nabla::autograd
