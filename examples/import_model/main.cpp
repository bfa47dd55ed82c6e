// Runs a model exported to ONNX by another tool as a nabla static graph (docs/import.md):
//   import_model model.onnx [--input 1x3x224x224] [--runs N] [--threads N]
// prints the graph (operators and how often each occurs, parameters), runs it on a random
// input of the given shape (default: the file's input shape) and times a forward pass.
// run.sh exports a torchvision resnet18 with python3-torch and runs this on it.
#include <nabla/graph.h>
#include <nabla/nabla.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace g = nabla::graph;

namespace {

std::vector<int64_t> parse_shape(const std::string& text) {
  std::vector<int64_t> shape;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t x = text.find('x', at);
    shape.push_back(std::stoll(text.substr(at, x == std::string::npos ? x : x - at)));
    if (x == std::string::npos) break;
    at = x + 1;
  }
  return shape;
}

// Every node the outputs depend on, by walking their inputs (no recursion).
std::map<std::string, int> count_ops(const g::Graph& graph) {
  std::map<std::string, int> counts;
  std::set<std::string> seen;
  std::vector<g::Value> stack(graph.outputs().begin(), graph.outputs().end());
  while (!stack.empty()) {
    g::Value v = stack.back();
    stack.pop_back();
    if (!seen.insert(v.name()).second) continue;
    ++counts[v.op().empty() ? "(leaf)" : v.op()];
    for (const auto& in : v.inputs()) stack.push_back(in);
  }
  return counts;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path, input;
  int runs = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--input" && has_value)
      input = argv[++i];
    else if (a == "--runs" && has_value)
      runs = std::max(1, std::stoi(argv[++i]));
    else if (a == "--threads" && has_value)
      nabla::set_num_threads(std::stoi(argv[++i]));
    else
      path = a;
  }
  if (path.empty()) {
    std::cerr << "usage: import_model MODEL.onnx [--input 1x3x224x224] [--runs N] [--threads N]\n";
    return 2;
  }
  try {
    std::cout << nabla::show_config();
    g::Graph graph = g::load_onnx(path);
    int64_t weights = 0;
    for (const auto& p : graph.parameters()) weights += p.value().numel();
    std::cout << path << ": " << graph.size() << " nodes, " << graph.parameters().size()
              << " parameters (" << weights << " weights), " << graph.inputs().size()
              << " input(s), " << graph.outputs().size() << " output(s)\n  ops:";
    for (const auto& [op, n] : count_ops(graph)) std::cout << " " << op << " x" << n;
    std::cout << "\n";
    const g::Value in = graph.inputs().at(0);
    // The importer sets each input to zeros of the file's shape when the file fixes it.
    NABLA_CHECK(!input.empty() || in.value().defined(), "import_model: '", path,
                "' does not fix its input's shape; pass --input, e.g. --input 1x3x224x224");
    const std::vector<int64_t> shape =
        input.empty() ? in.value().sizes().vec() : parse_shape(input);
    nabla::manual_seed(0);
    graph.set_value(in, nabla::rand(shape));
    nabla::NoGradGuard no_grad;
    std::vector<double> ms;
    nabla::Tensor out;
    for (int r = 0; r <= runs; ++r) {
      graph.set_value(in, nabla::rand(shape));  // a new input: every node recomputes
      const auto start = std::chrono::steady_clock::now();
      out = graph.forward(graph.outputs().at(0));
      const double t =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      if (r > 0) ms.push_back(t);  // the first run warms up
    }
    std::sort(ms.begin(), ms.end());
    std::cout << "input " << nabla::IntArrayRef(shape) << " -> output " << out.sizes() << "\n";
    std::printf("forward: min %.2f / median %.2f / max %.2f ms over %d runs, %d thread(s)\n",
                ms.front(), ms[ms.size() / 2], ms.back(), runs, nabla::get_num_threads());
  } catch (const nabla::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
