#include "nabla/autograd/graph_export.h"

#include <deque>
#include <sstream>
#include <unordered_map>

#include "autograd/accumulate_grad.h"
#include "nabla/autograd/node.h"
#include "nabla/core/detail/atomic_file.h"

namespace nabla::utils {
namespace {

// A DOT quoted string: quotes and backslashes escaped; "\n" is passed through as DOT's
// own line-break escape, so callers write it as the two characters '\' 'n'.
std::string quoted(const std::string& label) {
  std::string out = "\"";
  for (size_t i = 0; i < label.size(); ++i) {
    char c = label[i];
    if (c == '\\' && i + 1 < label.size() && label[i + 1] == 'n') {
      out += "\\n";
      ++i;
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string shape_text(IntArrayRef sizes) {
  std::ostringstream os;
  os << sizes;
  return os.str();
}

std::string node_label(const autograd::Node& node) {
  std::string label = node.name();
  if (auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(&node))
    if (acc->variable().defined()) label += "\\n" + shape_text(acc->variable().sizes());
  return label;
}

}  // namespace

std::string to_dot(const Tensor& t) {
  NABLA_CHECK(t.defined(), "to_dot: got an undefined tensor, expected a defined one");
  std::string out = "digraph backward {\n  node [shape=box, fontname=\"Helvetica\"];\n";
  out += "  t [label=" + quoted("tensor\\n" + shape_text(t.sizes())) +
         ", shape=ellipse, style=filled, fillcolor=lightblue];\n";
  const std::shared_ptr<autograd::Node>& root = t.grad_fn();
  if (!root) return out + "}\n";

  // Breadth-first with an explicit queue; ids in discovery order.
  std::unordered_map<const autograd::Node*, size_t> id;
  std::deque<const autograd::Node*> queue;
  std::string edges = "  t -> n0;\n";
  id.emplace(root.get(), 0);
  queue.push_back(root.get());
  while (!queue.empty()) {
    const autograd::Node* n = queue.front();
    queue.pop_front();
    size_t from = id.at(n);
    bool leaf = dynamic_cast<const autograd::AccumulateGrad*>(n) != nullptr;
    out += "  n" + std::to_string(from) + " [label=" + quoted(node_label(*n)) +
           (leaf ? ", style=filled, fillcolor=lightgray" : "") + "];\n";
    for (const autograd::Edge& e : n->next_edges()) {
      if (!e.is_valid()) continue;
      auto [it, fresh] = id.emplace(e.function.get(), id.size());
      if (fresh) queue.push_back(e.function.get());
      edges += "  n" + std::to_string(from) + " -> n" + std::to_string(it->second) + ";\n";
    }
  }
  return out + edges + "}\n";
}

void save_dot(const Tensor& t, const std::string& path) {
  detail::write_file_atomically(path, to_dot(t), "save_dot");
}

}  // namespace nabla::utils
