// The static graph's forward: the dirty check, cycles, edits, errors.
#include <nabla/graph.h>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::values;
namespace g = nabla::graph;

namespace {

// y = w x + b.4, in float64.
struct Affine {
  g::Graph graph;
  g::Value x = graph.input("x");
  g::Value w = graph.parameter("w", randn({3, 3}, kDouble));
  g::Value b = graph.parameter("b", randn({3}, kDouble));
  g::Value wx = graph.call("matmul", {x, w}, {}, "wx");
  g::Value y = graph.call("add", {wx, b}, {}, "y");
};

}  // namespace

TEST(GraphForward, OnlyTheChangedPathIsComputed) {
  Affine a;
  Tensor x1 = randn({2, 3}, kDouble);
  a.graph.set_value(a.x, x1);
  Tensor y1 = a.graph.forward(a.y);
  EXPECT_EQ(a.graph.last_forward_computed(), 2);  // matmul, add
  EXPECT_TRUE(allclose(y1, x1.matmul(a.w.value()) + a.b.value()));
  const uint64_t wx_version = a.wx.value_version();

  // Nothing changed: nothing computed, the cached tensor is served.
  Tensor again = a.graph.forward(a.y);
  EXPECT_EQ(a.graph.last_forward_computed(), 0);
  EXPECT_TRUE(again.is_same(y1));
  EXPECT_EQ(a.wx.value_version(), wx_version);

  // Only x changed: exactly the multiplication and the addition.
  Tensor x2 = randn({2, 3}, kDouble);
  const uint64_t x_version = a.x.value_version();
  a.graph.set_value(a.x, x2);
  EXPECT_EQ(a.x.value_version(), x_version + 1);
  Tensor y2 = a.graph.forward(a.y);
  EXPECT_EQ(a.graph.last_forward_computed(), 2);
  EXPECT_EQ(a.wx.value_version(), wx_version + 1);
  EXPECT_TRUE(allclose(y2, x2.matmul(a.w.value()) + a.b.value()));

  // Asking for wx alone after b changed computes nothing: wx does not depend on b.
  a.graph.set_value(a.b, randn({3}, kDouble));
  a.graph.forward(a.wx);
  EXPECT_EQ(a.graph.last_forward_computed(), 0);
  a.graph.forward(a.y);
  EXPECT_EQ(a.graph.last_forward_computed(), 1);  // add only
}

TEST(GraphForward, InPlaceChangesOfAParameterAreSeen) {
  // An optimizer changes parameters in place: the tensor's version counter tells.
  Affine a;
  a.graph.set_value(a.x, randn({2, 3}, kDouble));
  a.graph.forward(a.y);
  {
    NoGradGuard no_grad;
    a.w.value().add_(1.0);
  }
  Tensor y = a.graph.forward(a.y);
  EXPECT_EQ(a.graph.last_forward_computed(), 2);
  EXPECT_TRUE(allclose(y, a.x.value().matmul(a.w.value()) + a.b.value()));
}

// Graph::fix_shape: an input fixed to a shape refuses values of another, by name.
TEST(GraphForward, AFixedShapeInputRefusesOtherShapes) {
  graph::Graph g;
  graph::Value x = g.input("x"), w = g.parameter("w", ones({3, 2}));
  graph::Value y = graph::matmul(x, w);
  g.set_value(x, ones({4, 3}));
  g.fix_shape(x, {4, 3});
  expect_error(
      [&] {
        g.set_value(x, ones({5, 3}));
      },
      {"set_value('x')", "shape [5, 3]", "built for [4, 3]"});
  g.set_value(x, zeros({4, 3}));
  EXPECT_EQ(g.forward(y).sizes().vec(), (std::vector<int64_t>{4, 2}));
  expect_error([&] { g.fix_shape(w, {3, 2}); }, {"fix_shape", "'w' is not an input"});
  expect_error([&] { g.fix_shape(x, {2, 3}); }, {"fix_shape('x')", "[4, 3]", "not [2, 3]"});
}

TEST(GraphForward, SharedNodesAreComputedOnce) {
  g::Graph graph;
  g::Value x = graph.input("x");
  g::Value h = g::tanh(x);
  g::Value u = h * h, v = h + h;
  graph.set_value(x, randn({4}, kDouble));
  std::vector<Tensor> out = graph.forward({u, v});
  EXPECT_EQ(graph.last_forward_computed(), 3);
  Tensor t = x.value().tanh();
  EXPECT_TRUE(allclose(out[0], t * t));
  EXPECT_TRUE(allclose(out[1], t + t));
}

TEST(GraphForward, ACycleNamesItsNodesInOrder) {
  g::Graph graph;
  g::Value x = graph.input("x");
  g::Value a = graph.call("relu", {x}, {}, "A");
  g::Value b = graph.call("neg", {a}, {}, "B");
  g::Value c = graph.call("exp", {b}, {}, "C");
  graph.set_value(x, randn({3}));
  graph.forward(c);
  graph.set_input(a, 0, c);  // A -> B -> C -> A
  expect_error([&] { graph.forward(c); }, {"cycle", "'A' -> 'B' -> 'C' -> 'A'"});
  expect_error([&] { graph.forward(b); }, {"cycle", "'A' -> 'B' -> 'C' -> 'A'"});
  // Undoing the edit makes the graph usable again; A is recomputed.
  graph.set_input(a, 0, x);
  Tensor y = graph.forward(c);
  EXPECT_EQ(graph.last_forward_computed(), 3);
  EXPECT_TRUE(allclose(y, (-x.value().relu()).exp()));
}

TEST(GraphForward, EditsMakeNodesDirty) {
  g::Graph graph;
  g::Value x = graph.input("x"), z = graph.input("z");
  g::Value s = graph.call("sin", {x}, {}, "s");
  g::Value y = graph.call("mul", {s, x}, {}, "y");
  graph.set_value(x, randn({5}, kDouble));
  graph.set_value(z, randn({5}, kDouble));
  graph.forward(y);
  graph.set_input(y, 1, z);
  Tensor out = graph.forward(y);
  EXPECT_EQ(graph.last_forward_computed(), 1);  // y only: s is unchanged
  EXPECT_TRUE(allclose(out, x.value().sin() * z.value()));

  // A node in use cannot be removed; once unused it can, and its handle is refused.
  expect_error([&] { graph.remove(s); }, {"remove", "'s'", "input 0 of node 'y'"});
  g::Value c = graph.call("cos", {x}, {}, "c");
  graph.set_input(y, 0, c);
  graph.remove(s);
  EXPECT_EQ(graph.size(), 4);  // x, z, y, c
  expect_error([&] { (void)s.value_version(); }, {"'s' was removed"});
  EXPECT_TRUE(allclose(graph.forward(y), x.value().cos() * z.value()));
  expect_error([&] { graph.find("s"); }, {"no node named 's'"});
  EXPECT_TRUE(graph.find("c") == c);
}

TEST(GraphForward, AttributesAndSeveralOutputs) {
  g::Graph graph;
  g::Value x = graph.input("x");
  g::Value m = graph.call("max", {x}, {{"dim", 1}, {"keepdim", false}}, "m");
  graph.set_value(x, randn({3, 4}, kDouble));
  Tensor values_out = graph.forward(m);
  Tensor indices = graph.forward(m.output(1));
  auto [mv, mi] = x.value().max(1);
  EXPECT_TRUE(allclose(values_out, mv));
  EXPECT_TRUE(indices.equal(mi));
  expect_error([&] { graph.forward(m.output(2)); }, {"'m'", "2 output(s)", "output 2"});
  g::Value s = x.sum(1, true);
  EXPECT_TRUE(allclose(graph.forward(s), x.value().sum(1, true)));
}

TEST(GraphForward, BadInputGivesClearErrors) {
  g::Graph graph;
  g::Value x = graph.input("x");
  expect_error([&] { graph.call("no_such_op", {x}); }, {"no op named 'no_such_op'"});
  expect_error([&] { graph.call("matmul", {x}); },
               {"graph.call('matmul')", "got 1 inputs", "expected 2"});
  expect_error([&] { graph.call("sum", {x}, {{"dimension", 1}}); }, {"sum", "dimension"});
  expect_error([&] { graph.input("x"); }, {"a node named 'x' already exists"});
  g::Value y = g::matmul(x, graph.parameter("w", randn({3, 2})));
  expect_error([&] { graph.forward(y); }, {"input 'x' has no value", "set_value"});
  graph.set_value(x, randn({4, 5}));  // 5 != 3: the shape is checked at forward
  expect_error([&] { graph.forward(y); }, {"node 'matmul_0' (matmul)"});
  graph.set_value(x, randn({4, 3}));
  EXPECT_EQ(graph.forward(y).sizes().vec(), (std::vector<int64_t>{4, 2}));

  g::Graph other;
  g::Value o = other.input("o");
  expect_error([&] { (void)(x + o); }, {"belongs to another graph"});
  expect_error([&] { graph.set_value(y, randn({2})); }, {"set_value", "only inputs"});
  expect_error([&] { graph.set_input(x, 0, y); }, {"set_input", "'x'", "no inputs"});
  expect_error([&] { graph.set_input(y, 2, x); }, {"set_input", "has 2 inputs", "index 2"});
  expect_error([&] { graph.forward(g::Value()); }, {"undefined graph::Value"});
}

TEST(GraphForward, ALongChainNeedsNoRecursion) {
  // 100,000 nodes: forward walks with an explicit stack.
  g::Graph graph;
  g::Value x = graph.input("x");
  g::Value v = x;
  constexpr int kNodes = 100000;
  for (int i = 0; i < kNodes; ++i) v = graph.call("mul", {v}, {{"other", 1.0000001}});
  graph.set_value(x, ones({2}, kDouble));
  Tensor y = graph.forward(v);
  EXPECT_EQ(graph.last_forward_computed(), kNodes);
  EXPECT_NEAR(values(y)[0], std::pow(1.0000001, kNodes), 1e-9);
  graph.forward(v);
  EXPECT_EQ(graph.last_forward_computed(), 0);
}

TEST(GraphForward, DotShowsNodesVersionsAndEdges) {
  Affine a;
  a.graph.set_value(a.x, randn({2, 3}, kDouble));
  a.graph.forward(a.y);
  const std::string dot = a.graph.to_dot();
  EXPECT_NE(dot.find("digraph"), std::string::npos);
  EXPECT_NE(dot.find("wx\\nmatmul\\nvalue_version 1"), std::string::npos) << dot;
  EXPECT_NE(dot.find("x\\ninput\\nvalue_version 1"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n3 -> n4"), std::string::npos) << dot;  // wx feeds y
}
