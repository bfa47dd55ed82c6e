// The backward engine (SPEC.md §5.3, seed 002 "Engine"): count each node's
// dependencies, seed the roots' gradients, then run ready nodes in sequence_nr order
// from a priority queue, summing the gradients that reach one input slot by several
// edges (the input buffer). No recursion: a 100,000-node chain runs in a loop.
#include <algorithm>
#include <cmath>
#include <memory>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/accumulate_grad.h"
#include "nabla/autograd/autograd.h"
#include "nabla/autograd/profiler.h"
#include "nabla/core/autograd_meta.h"

namespace nabla::autograd {
namespace {

thread_local bool t_anomaly = false;

struct NodeState {
  int dependencies = 0;
  variable_list buffer;          // gradients received so far, one per input slot
  bool needed = true;            // runs apply(); false when pruned by `inputs`
  std::vector<size_t> captures;  // indices into the capture list, for this node's slots
};

// Node* -> NodeState, open addressing over a vector: one backward touches each node a
// few times, and std::unordered_map's per-entry allocation showed in profiles. States
// live in a vector: no pointer to one is kept across an insertion. Each thread keeps one
// map between backward calls (Lease), so a backward of n nodes after the first neither
// grows the table nor allocates the states again.
class NodeStateMap {
 public:
  NodeStateMap() { table_.assign(64, Slot{}); }
  std::pair<NodeState*, bool> emplace(Node* key) {
    size_t i = probe(key);
    if (table_[i].key == key) return {&states_[table_[i].index], false};
    if ((states_.size() + 1) * 2 > table_.size()) {
      grow();
      i = probe(key);
    }
    table_[i] = {key, static_cast<uint32_t>(states_.size())};
    states_.emplace_back();
    return {&states_.back(), true};
  }
  NodeState* find(Node* key) {
    size_t i = probe(key);
    return table_[i].key == key ? &states_[table_[i].index] : nullptr;
  }
  NodeState& operator[](Node* key) { return *emplace(key).first; }
  /// Empties the map for the next backward, keeping its memory unless this one was
  /// much larger than what it held.
  void clear() {
    const size_t used = states_.size();
    states_.clear();
    if (table_.size() > 64 && table_.size() > 16 * used) {
      table_.assign(64, Slot{});
      states_.shrink_to_fit();
    } else {
      std::fill(table_.begin(), table_.end(), Slot{});
    }
  }

  /// The calling thread's spare map, or a new one when it is in use (a backward inside
  /// a backward: checkpoint, a hook that calls grad).
  class Lease {
   public:
    Lease() : map_(spare() ? std::move(spare()) : std::make_unique<NodeStateMap>()) {}
    ~Lease() {
      map_->clear();
      if (!spare()) spare() = std::move(map_);
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    NodeStateMap& operator*() { return *map_; }

   private:
    static std::unique_ptr<NodeStateMap>& spare() {
      thread_local std::unique_ptr<NodeStateMap> s;
      return s;
    }
    std::unique_ptr<NodeStateMap> map_;
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

struct ReadyCompare {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

void add_to_buffer(variable_list& buffer, size_t slot, size_t size, Tensor grad) {
  if (buffer.size() < size) buffer.resize(size);
  Tensor& cur = buffer[slot];
  if (!cur.defined())
    cur = std::move(grad);
  else
    cur = cur + grad;  // out of place: either may be referenced elsewhere
}

void check_anomaly(Node& node, const variable_list& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || !g.is_floating_point() || g.numel() == 0) continue;
    if (!g.isfinite().all().item<bool>()) {
      NABLA_CHECK(false, "Function '", node.name(), "' returned nan values in its ", i,
                  "th output.",
                  node.creation_trace().empty() ? "" : "\nThe forward op was created at:\n",
                  node.creation_trace());
    }
  }
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
    if (g.scalar_type() != meta.dtype) g = g.to(meta.dtype);
  }
}

}  // namespace

bool AnomalyMode::is_enabled() { return t_anomaly; }
void AnomalyMode::set_enabled(bool enabled) { t_anomaly = enabled; }

Edge gradient_edge(const Tensor& t) {
  auto* meta = t.unsafeGetTensorImpl()->autograd_meta();
  if (meta && meta->grad_fn) return Edge(meta->grad_fn, meta->output_nr);
  if (meta && meta->requires_grad) return Edge(grad_accumulator(t), 0);
  return Edge();
}

// Runs the graph behind `roots`. With `capture` non-empty, returns the gradients that
// reach those edges instead of running them (autograd::grad), and only runs the nodes
// that lead to them.
variable_list run_backward(const edge_list& roots, const variable_list& root_grads, bool keep_graph,
                           bool create_graph, const edge_list& capture) {
  NodeStateMap::Lease lease;
  NodeStateMap& state = *lease;
  // 1. Discover the graph and count dependencies (iteratively).
  std::vector<Node*> stack;
  std::vector<Node*> order;  // discovery order, for the pruning pass
  for (const Edge& r : roots) {
    if (state.emplace(r.function.get()).second) {
      stack.push_back(r.function.get());
      order.push_back(r.function.get());
    }
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges()) {
      if (!e.is_valid()) continue;
      auto [ps, fresh] = state.emplace(e.function.get());
      ps->dependencies++;
      if (fresh) {
        stack.push_back(e.function.get());
        order.push_back(e.function.get());
      }
    }
  }
  // 2. With captures, a node runs only if a captured edge is reachable from it.
  variable_list captured(capture.size());
  if (!capture.empty()) {
    std::unordered_set<Node*> targets;
    for (size_t i = 0; i < capture.size(); ++i) {
      NodeState* ps = state.find(capture[i].function.get());
      if (!ps) continue;
      ps->captures.push_back(i);
      targets.insert(capture[i].function.get());
    }
    // Successors have smaller topological_nr, so one pass in that order suffices.
    std::sort(order.begin(), order.end(),
              [](Node* a, Node* b) { return a->topological_nr() < b->topological_nr(); });
    for (Node* n : order) {
      NodeState& s = state[n];
      s.needed = false;
      for (const Edge& e : n->next_edges()) {
        if (!e.is_valid()) continue;
        Node* nx = e.function.get();
        if (state[nx].needed || targets.count(nx)) {
          s.needed = true;
          break;
        }
      }
    }
  }
  // 3. Seed the roots.
  std::priority_queue<Node*, std::vector<Node*>, ReadyCompare> ready;
  for (size_t i = 0; i < roots.size(); ++i) {
    Node* n = roots[i].function.get();
    add_to_buffer(state[n].buffer, roots[i].input_nr, n->num_inputs(), root_grads[i]);
  }
  {
    std::unordered_set<Node*> queued;
    for (const Edge& r : roots) {
      Node* n = r.function.get();
      if (state[n].dependencies == 0 && queued.insert(n).second) ready.push(n);
    }
  }
  // 4. Run.
  AutoGradMode grad_mode(create_graph);
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    NodeState& s = state[n];
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
          outputs = n->apply(std::move(inputs));
        }
        validate_outputs(*n, outputs);
        if (t_anomaly) check_anomaly(*n, outputs);
      }
      if (!keep_graph) n->release_variables();
    }
    outputs.resize(n->num_outputs());
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      const Edge& e = n->next_edge(i);
      if (!e.is_valid()) continue;
      Node* nx = e.function.get();
      NodeState& ns = state[nx];
      if (outputs.size() == 1 && ns.buffer.empty() && nx->num_inputs() == 1) {
        ns.buffer = std::move(outputs);  // a chain: the vector itself moves on
        if (!ns.buffer[0].defined()) ns.buffer.clear();
      } else if (outputs[i].defined()) {
        add_to_buffer(ns.buffer, e.input_nr, nx->num_inputs(), std::move(outputs[i]));
      }
      if (--ns.dependencies == 0) ready.push(nx);
    }
  }
  return captured;
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
      out.push_back(t.new_ones(t.sizes()));
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

void backward(const variable_list& tensors, const variable_list& grad_tensors,
              optional<bool> retain_graph, bool create_graph, const variable_list& inputs) {
  edge_list roots = root_edges(tensors, "backward");
  variable_list grads = make_root_grads(tensors, grad_tensors, "backward");
  bool keep = retain_graph.value_or(create_graph);
  if (inputs.empty()) {
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

variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs, optional<bool> retain_graph,
                   bool create_graph, bool allow_unused) {
  edge_list roots = root_edges(outputs, "grad");
  variable_list grads = make_root_grads(outputs, grad_outputs, "grad");
  edge_list targets;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NABLA_CHECK(inputs[i].defined() && inputs[i].requires_grad(), "grad: input ", i,
                " does not require grad (One of the differentiated Tensors does not require grad)");
    targets.push_back(gradient_edge(inputs[i]));
  }
  variable_list got =
      run_backward(roots, grads, retain_graph.value_or(create_graph), create_graph, targets);
  for (size_t i = 0; i < got.size(); ++i) {
    NABLA_CHECK(
        got[i].defined() || allow_unused, "grad: One of the differentiated Tensors (input ", i,
        ") appears to not have been used in the graph. Set allow_unused=true if this is the "
        "desired behavior.");
  }
  return got;
}

}  // namespace nabla::autograd
