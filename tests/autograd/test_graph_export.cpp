#include <nabla/autograd/graph_export.h>
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.h"

using namespace nabla;
namespace fs = std::filesystem;

using nabla::testing::read_text;
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1)) ++n;
  return n;
}

fs::path fresh_dir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("nabla_graph_export_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs fn on a thread with a 256 KiB stack: recursion over a deep graph would overflow it.
template <class F>
void run_on_small_stack(F fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t th;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<F*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&th, &attr, trampoline, &fn), 0);
  pthread_join(th, nullptr);
  pthread_attr_destroy(&attr);
}

}  // namespace

TEST(GraphExport, GoldenSmallGraph) {
  Tensor a = ones({2, 3}).requires_grad_();
  Tensor b = ones({3}).requires_grad_();
  Tensor y = (a * b).tanh() + a;
  const std::string expected =
      "digraph backward {\n"
      "  node [shape=box, fontname=\"Helvetica\"];\n"
      "  t [label=\"tensor\\n[2, 3]\", shape=ellipse, style=filled, fillcolor=lightblue];\n"
      "  n0 [label=\"AddBackward0\"];\n"
      "  n1 [label=\"TanhBackward0\"];\n"
      "  n2 [label=\"AccumulateGrad\\n[2, 3]\", style=filled, fillcolor=lightgray];\n"
      "  n3 [label=\"MulBackward0\"];\n"
      "  n4 [label=\"AccumulateGrad\\n[3]\", style=filled, fillcolor=lightgray];\n"
      "  t -> n0;\n"
      "  n0 -> n1;\n"
      "  n0 -> n2;\n"
      "  n1 -> n3;\n"
      "  n3 -> n2;\n"
      "  n3 -> n4;\n"
      "}\n";
  EXPECT_EQ(utils::to_dot(y), expected);
}

TEST(GraphExport, InputsWithoutGradHaveNoEdge) {
  Tensor a = ones({4}).requires_grad_();
  Tensor c = ones({4});  // no grad: MulBackward0's second edge is invalid
  std::string dot = utils::to_dot(a * c);
  EXPECT_EQ(count(dot, " -> "), 2u) << dot;  // t -> Mul, Mul -> AccumulateGrad
  EXPECT_NE(dot.find("n1 [label=\"AccumulateGrad\\n[4]\""), std::string::npos) << dot;
}

TEST(GraphExport, TensorsWithoutGradFn) {
  const std::string alone =
      "digraph backward {\n"
      "  node [shape=box, fontname=\"Helvetica\"];\n"
      "  t [label=\"tensor\\n[]\", shape=ellipse, style=filled, fillcolor=lightblue];\n"
      "}\n";
  EXPECT_EQ(utils::to_dot(scalar_tensor(2.0)), alone);                       // 0-d, no grad
  EXPECT_EQ(count(utils::to_dot(ones({0, 3}).requires_grad_()), "->"), 0u);  // a leaf
  EXPECT_NE(utils::to_dot(ones({0, 3})).find("[0, 3]"), std::string::npos);  // empty
  Tensor x = ones({0, 3}).requires_grad_();
  EXPECT_NE(utils::to_dot(x * 2).find("AccumulateGrad\\n[0, 3]"), std::string::npos);
  nabla::testing::expect_error([] { utils::to_dot(Tensor()); }, {"to_dot", "undefined"});
}

TEST(GraphExport, HundredThousandNodeChainIsIterative) {
  const int n = 100000;
  Tensor x = ones({1}).requires_grad_();
  Tensor y = x;
  for (int i = 0; i < n; ++i) y = y * 1.0001;
  std::string dot;
  run_on_small_stack([&] { dot = utils::to_dot(y); });
  EXPECT_EQ(count(dot, " -> "), static_cast<size_t>(n) + 1);
  EXPECT_EQ(count(dot, "[label="), static_cast<size_t>(n) + 2);  // tensor, n muls, 1 leaf
  EXPECT_NE(dot.find("n100000 [label=\"AccumulateGrad\\n[1]\""), std::string::npos);
}

TEST(GraphExport, SaveDotIsAtomicAndValid) {
  fs::path dir = fresh_dir("save");
  Tensor a = ones({3, 4}).requires_grad_();
  Tensor y = (a * a).exp();
  fs::path path = dir / "graph.dot";
  {
    std::ofstream old(path);
    old << "old contents";
  }
  utils::save_dot(y, path.string());
  EXPECT_EQ(read_text(path), utils::to_dot(y));
  // Only the final file is left: no temporaries.
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u);
  EXPECT_NE(read_text(path).find("AccumulateGrad\\n[3, 4]"), std::string::npos);
  // x * x gives two edges from MulBackward0 to the same AccumulateGrad.
  EXPECT_EQ(count(read_text(path), "n1 -> n2;"), 2u);

  // Graphviz, when present on the machine, must accept the file.
  if (std::system("command -v dot >/dev/null 2>&1") == 0) {
    std::string cmd = "dot -Tsvg '" + path.string() + "' -o '" + (dir / "graph.svg").string() + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  fs::remove_all(dir);
}

TEST(GraphExport, SaveDotErrors) {
  Tensor y = ones({2}).requires_grad_() * 2;
  nabla::testing::expect_error([&] { utils::save_dot(y, "/nonexistent_dir_nabla/graph.dot"); },
                               {"save_dot", "/nonexistent_dir_nabla/graph.dot"});
  nabla::testing::expect_error([&] { utils::save_dot(y, ""); }, {"save_dot", "empty path"});
}
