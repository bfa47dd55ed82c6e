#pragma once
// The backward graph as Graphviz DOT (docs/autograd.md), for `dot -Tsvg graph.dot`:
//
//   digraph backward {
//     node [shape=box, fontname="Helvetica"];
//     t [label="tensor\n[2, 3]", shape=ellipse, style=filled, fillcolor=lightblue];
//     n0 [label="MulBackward0"];
//     n1 [label="AccumulateGrad\n[2, 3]", style=filled, fillcolor=lightgray];
//     t -> n0;
//     n0 -> n1;
//   }
#include <string>

#include "nabla/core/tensor.h"

namespace nabla::utils {

/// The graph behind `t`: the tensor itself (its shape), then every node reachable from
/// t.grad_fn() through next_edges, each once, labelled with its name (AccumulateGrad
/// with its leaf's shape), with an edge from each node to each valid next edge's node.
/// Nodes are numbered in breadth-first order from grad_fn, so output is deterministic.
/// Iterative: a 100,000-node chain does not deepen the stack. A tensor without grad_fn
/// gives the tensor alone.
std::string to_dot(const Tensor& t);

/// Writes to_dot(t) to `path` atomically (temporary file in the same directory, fsync,
/// rename); a nabla::Error naming the path if it cannot.
void save_dot(const Tensor& t, const std::string& path);

}  // namespace nabla::utils
