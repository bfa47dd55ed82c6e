// Graphviz text of a static graph (Graph::to_dot).
#include <sstream>

#include "graph/graph_state.h"

namespace nabla::graph {

namespace {

// Graphviz wants quotes and backslashes escaped inside a quoted string.
std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string Graph::to_dot() const {
  std::ostringstream out;
  out << "digraph nabla_graph {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n";
  const auto& nodes = state_->nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const detail::Node& n = nodes[i];
    if (n.removed) continue;
    const std::string what = n.kind == detail::NodeKind::Op ? n.op : detail::kind_name(n.kind);
    out << "  n" << i << " [label=\"" << escaped(n.name) << "\\n"
        << escaped(what) << (n.detached ? " (detached)" : "") << "\\nvalue_version "
        << n.value_version << "\"" << (n.kind == detail::NodeKind::Op ? "" : ", shape=ellipse")
        << "];\n";
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const detail::Node& n = nodes[i];
    if (n.removed) continue;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      out << "  n" << n.inputs[k].node << " -> n" << i;
      if (n.inputs.size() > 1 || n.inputs[k].output > 0) {
        out << " [label=\"" << k;
        if (n.inputs[k].output > 0) out << " (output " << n.inputs[k].output << ")";
        out << "\"]";
      }
      out << ";\n";
    }
  }
  out << "}\n";
  return out.str();
}

}  // namespace nabla::graph
