// Runs a model exported by another tool as a nabla static graph (docs/import.md):
//   import_model MODEL.onnx [--input 1x3x224x224] [--runs N] [--threads N]
//   import_model MODEL.pnnx.param [--bin MODEL.pnnx.bin] [--input ...] ...
// prints the graph (operators and how often each occurs, parameters and their shapes: the
// first few, all with --params), runs it on a random
// input of the given shape (default: the file's input shape; a model with dynamic sizes
// is imported for the shape given) and times a forward pass. With --finetune [--data DIR]
// [--limit N] [--test-limit N] [--lr LR] it trains a Fashion-MNIST classifier one epoch
// instead and reports its test accuracy before and after (finetune.h).
// run.sh exports a torchvision resnet18 with python3-torch and runs this on it;
// finetune.sh fine-tunes a W3 CNN that PyTorch trained briefly.
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

#include "finetune.h"

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
  std::string path, bin, input;
  int runs = 20;
  bool tune = false, all_params = false;
  FinetuneOptions tuning{nabla::data::fashion_mnist_root()};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--input" && has_value)
      input = argv[++i];
    else if (a == "--bin" && has_value)
      bin = argv[++i];
    else if (a == "--finetune")
      tune = true;
    else if (a == "--params")
      all_params = true;
    else if (a == "--data" && has_value)
      tuning.data = argv[++i];
    else if (a == "--limit" && has_value)
      tuning.limit = std::stoll(argv[++i]);
    else if (a == "--test-limit" && has_value)
      tuning.test_limit = std::stoll(argv[++i]);
    else if (a == "--lr" && has_value)
      tuning.lr = std::stod(argv[++i]);
    else if (a == "--runs" && has_value)
      runs = std::max(1, std::stoi(argv[++i]));
    else if (a == "--threads" && has_value)
      nabla::set_num_threads(std::stoi(argv[++i]));
    else
      path = a;
  }
  if (path.empty()) {
    std::cerr << "usage: import_model MODEL.onnx|MODEL.pnnx.param [--bin MODEL.pnnx.bin] "
                 "[--input 1x3x224x224] [--params] [--runs N] [--threads N]\n"
                 "       import_model MODEL --finetune [--data DIR] [--limit N] [--test-limit N] "
                 "[--lr LR]\n";
    return 2;
  }
  try {
    std::cout << nabla::show_config();
    std::vector<std::vector<int64_t>> shapes;
    if (!input.empty()) shapes.push_back(parse_shape(input));
    const bool pnnx = path.ends_with(".param");
    if (pnnx && bin.empty()) bin = path.substr(0, path.size() - 6) + ".bin";
    g::Graph graph = pnnx ? g::load_pnnx(path, bin, shapes) : g::load_onnx(path, shapes);
    int64_t weights = 0;
    for (const auto& p : graph.parameters()) weights += p.value().numel();
    std::cout << path << ": " << graph.size() << " nodes, " << graph.parameters().size()
              << " parameters (" << weights << " weights), " << graph.inputs().size()
              << " input(s), " << graph.outputs().size() << " output(s)\n  ops:";
    for (const auto& [op, n] : count_ops(graph)) std::cout << " " << op << " x" << n;
    std::cout << "\n  parameters:";
    const auto params = graph.parameters();
    const size_t listed = all_params ? params.size() : std::min<size_t>(params.size(), 6);
    for (size_t i = 0; i < listed; ++i)
      std::cout << " " << params[i].name() << params[i].value().sizes();
    if (listed < params.size())
      std::cout << " ... (" << params.size() - listed << " more: --params lists all)";
    std::cout << "\n";
    if (tune) return finetune(graph, tuning);
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
