#pragma once
// The backward graph: a Node is the backward of one forward op. Its
// next_edges point at the nodes of the op's inputs (Edge{function, input_nr}: which
// gradient slot of that node this contribution fills). Leaves that require grad end in
// an AccumulateGrad node. Nodes are ordered by sequence_nr (creation order) and
// topological_nr (longest path to a leaf).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nabla/core/inline_vector.h"
#include "nabla/core/object_pool.h"
#include "nabla/core/tensor.h"

namespace nabla::autograd {

class Node;
/// LibTorch's name for a tensor in autograd code: the same type.
using Variable = Tensor;
using variable_list = std::vector<Tensor>;

/// A new leaf sharing data's storage (LibTorch's make_variable): no history, and
/// requiring grad as asked.
inline Variable make_variable(const Tensor& data, bool requires_grad = false) {
  Tensor v = data.detach();
  v.requires_grad_(requires_grad);
  return v;
}
using tensor_list = std::vector<Tensor>;

struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> fn, uint32_t nr) : function(std::move(fn)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};
// Graph bookkeeping vectors draw from the object pool (object_pool.h): every op that
// records allocates them, and whole graphs are freed at once.
using edge_list = std::vector<Edge, ::nabla::detail::PoolAllocator<Edge>>;

/// Shape and dtype of one gradient a node receives (one output of its forward op).
struct InputMetadata {
  DimVector shape;
  ScalarType dtype = kFloat;
};

// Note [Node storage]
// Most nodes have one or two next edges and one gradient slot. Both lists live inside the
// node (InlineVector), so recording an op allocates the node alone, and the engine finds
// a node's edges and its slots' metadata on the node's own cache lines (W1, bench/README.md).
using EdgeVector = InlineVector<Edge, 2>;

namespace detail {
/// Whether the backward pass running on this thread wants gradients along `e` (autograd::
/// grad with inputs prunes the edges that reach none of them); any valid edge outside a
/// backward pass.
bool task_needs_edge(const Edge& e);
}  // namespace detail

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// Computes the gradients of the forward inputs (one per next edge) from the
  /// gradients of the forward outputs (one per input slot; undefined = zero).
  virtual variable_list apply(variable_list&& grads) = 0;
  /// PyTorch's name: AddBackward0, MulBackward0, AccumulateGrad, ...
  /// The node's name (grad_fn()->name()); by default its demangled C++ type, as LibTorch.
  virtual std::string name() const;
  /// Frees saved tensors (after a backward without retain_graph).
  virtual void release_variables() {}

  variable_list operator()(variable_list&& grads) { return apply(std::move(grads)); }

  uint64_t sequence_nr() const { return sequence_nr_; }
  uint64_t topological_nr() const { return topological_nr_; }
  const EdgeVector& next_edges() const { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  size_t num_outputs() const { return next_edges_.size(); }
  size_t num_inputs() const { return input_metadata_.size(); }
  void add_next_edge(Edge e);
  void set_next_edges(edge_list edges);
  /// Records the metadata of one gradient slot; returns its index (the output_nr).
  uint32_t add_input_metadata(const Tensor& t);
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }
  /// Whether the gradient of forward input i is wanted (needs_input_grad).
  bool should_compute_output(size_t i) const {
    return i < next_edges_.size() && next_edges_[i].is_valid();
  }
  /// The same, for the backward pass running now: false also when that pass does not
  /// need this input's gradient (LibTorch's task_should_compute_output).
  bool task_should_compute_output(size_t i) const {
    return i < next_edges_.size() && detail::task_needs_edge(next_edges_[i]);
  }

  // ---- Hooks on the gradients this node receives (tensor hooks, retain_grad) ----------
  using TensorHook = std::function<Tensor(const Tensor&)>;
  /// Runs fn on the gradient of slot `input_nr` before apply; a defined result replaces it.
  unsigned add_tensor_pre_hook(uint32_t input_nr, TensorHook fn);
  bool remove_tensor_pre_hook(unsigned id);
  /// After the pre-hooks, stores the gradient of slot `input_nr` into the tensor's .grad().
  void set_retains_grad(uint32_t input_nr, std::weak_ptr<TensorImpl> tensor);
  /// Stops retaining slot `input_nr`'s gradient (an in-place op moved the tensor on).
  void remove_retains_grad(uint32_t input_nr);
  /// Applies the pre-hooks and retain_grad to `grads` (called by the engine).
  void run_pre_hooks(variable_list& grads);
  bool has_pre_hooks() const { return extras_ && extras_->has_hooks(); }

  // ---- Anomaly mode ---------------------------------------------------------------------
  void set_creation_trace(std::string trace) { extras().creation_trace = std::move(trace); }
  const std::string& creation_trace() const;
  /// In anomaly mode, the node whose backward ran while this one was created (a double
  /// backward's nodes come from the first backward's); its trace explains this one's.
  void set_anomaly_parent(std::shared_ptr<Node> parent) {
    extras().anomaly_parent = std::move(parent);
  }
  std::shared_ptr<Node> anomaly_parent() const {
    return extras_ ? extras_->anomaly_parent : nullptr;
  }

 protected:
  uint64_t sequence_nr_;
  uint64_t topological_nr_ = 0;
  EdgeVector next_edges_;
  InlineVector<InputMetadata, 1> input_metadata_;

 private:
  // What few nodes have (hooks, retain_grad, anomaly traces) lives out of line, so a
  // node of the common kind stays small (W1: one node per op).
  struct PreHook {
    unsigned id;
    uint32_t input_nr;
    TensorHook fn;
  };
  struct Extras {
    std::vector<PreHook> pre_hooks;
    std::vector<std::pair<uint32_t, std::weak_ptr<TensorImpl>>> retains;
    std::string creation_trace;
    std::shared_ptr<Node> anomaly_parent;
    bool has_hooks() const { return !pre_hooks.empty() || !retains.empty(); }
  };
  Extras& extras();
  std::unique_ptr<Extras> extras_;
};

/// Releases `node` later if this thread is already destroying a graph, so deleting a
/// chain of 100,000 nodes never recurses (Note [Iterative graph destruction], node.cpp).
void release_node(std::shared_ptr<Node>&& node);

}  // namespace nabla::autograd
