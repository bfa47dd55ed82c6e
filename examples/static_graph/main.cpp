// NEAT-style evolution on nabla's static graph (docs/graph.md): a network for XOR grows
// by edits (add-connection, add-node, weight mutations) and each generation's forward
// recomputes only what the edit made dirty; the program prints how many nodes that was.
// At the end the evolved network is fine-tuned by gradient descent through the graph.
//   static_graph [--generations N] [--seed S]
//
// A neuron is act = tanh(sum(stack(terms))), one term src_act * weight per incoming
// connection; the bias is a neuron whose activation is constant ones.
#include <nabla/graph.h>
#include <nabla/nabla.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace g = nabla::graph;

namespace {

struct Neuron {
  g::Value act, sum, stack;
  std::vector<g::Value> terms, sources, weights;  // per connection
};

class Network {
 public:
  explicit Network(unsigned seed) : rng_(seed) {
    x_ = graph_.input("x");
    target_ = graph_.input("target");
    graph_.set_value(x_, xor_inputs());
    graph_.set_value(target_,
                     nabla::tensor({-1.0, 1.0, 1.0, -1.0}).to(nabla::kDouble).view({4, 1}));
    for (int i = 0; i < 2; ++i)  // input neurons: the columns of x
      add_fixed(graph_.call("narrow", {x_}, {{"dim", 1}, {"start", i}, {"length", 1}},
                            "in" + std::to_string(i)));
    add_fixed(graph_.constant(nabla::ones({4, 1}, nabla::kDouble), "bias"));
    output_ = add_neuron({0, 1, 2});
    loss_ = g::mse_loss(neurons_[static_cast<size_t>(output_)].act, target_);
  }

  double evaluate() { return graph_.forward(loss_).item<double>(); }
  int64_t computed() const { return graph_.last_forward_computed(); }
  int64_t size() const { return graph_.size(); }
  size_t neurons() const { return neurons_.size(); }

  // Perturbs one weight; returns an undo.
  std::function<void()> mutate_weight() {
    Neuron& n = neurons_[pick_neuron()];
    g::Value w = n.weights[std::uniform_int_distribution<size_t>(0, n.weights.size() - 1)(rng_)];
    nabla::Tensor old = w.value();
    graph_.set_value(w, old + 0.5 * nabla::randn({1}, nabla::kDouble));
    return [this, w, old] { graph_.set_value(w, old); };
  }

  // A connection from a random neuron into a random non-input one; returns an undo. One
  // that closes a loop is found by the next forward (a nabla::Error naming the cycle).
  std::function<void()> add_connection(std::string& what) {
    const size_t dst = pick_neuron();
    const size_t src = std::uniform_int_distribution<size_t>(0, neurons_.size() - 1)(rng_);
    connect(src, dst, 0.5 * nabla::randn({1}, nabla::kDouble));
    what = "connection " + name(src) + " -> " + name(dst);
    return [this, dst] { disconnect_last(dst); };
  }

  // Splits a connection src -> dst (weight w) into src -> new (1.0) -> dst (w).
  std::string add_node() {
    const size_t dst = pick_neuron();
    Neuron& d = neurons_[dst];
    const size_t k = std::uniform_int_distribution<size_t>(0, d.terms.size() - 1)(rng_);
    const size_t src = index_of(d.sources[k]);
    const size_t mid = static_cast<size_t>(add_neuron({}));
    connect(src, mid, nabla::ones({1}, nabla::kDouble));
    replace_source(dst, k, mid);
    return "node " + name(mid) + " on " + name(src) + " -> " + name(dst);
  }

  // Fine-tunes every weight by gradient descent through the graph.
  double train(int steps, double lr) {
    for (int s = 0; s < steps; ++s) {
      graph_.zero_grad();
      evaluate();
      graph_.backward(loss_);
      nabla::NoGradGuard no_grad;
      for (g::Value p : graph_.parameters()) p.value().sub_(lr * p.grad());
    }
    return evaluate();
  }

  void print_predictions() {
    nabla::Tensor out = graph_.forward(neurons_[static_cast<size_t>(output_)].act);
    std::printf("XOR outputs: %+.3f %+.3f %+.3f %+.3f (targets -1 +1 +1 -1)\n",
                out[0].item<double>(), out[1].item<double>(), out[2].item<double>(),
                out[3].item<double>());
  }

 private:
  static nabla::Tensor xor_inputs() {
    return nabla::tensor({0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0}).to(nabla::kDouble).view({4, 2});
  }

  void add_fixed(g::Value act) { neurons_.push_back(Neuron{act, {}, {}, {}, {}, {}}); }

  // A tanh neuron fed by `sources` (random weights); returns its index.
  int add_neuron(const std::vector<size_t>& sources) {
    const size_t id = neurons_.size();
    neurons_.push_back({});
    for (size_t s : sources) attach(id, s, 0.5 * nabla::randn({1}, nabla::kDouble));
    if (sources.empty()) return static_cast<int>(id);  // connected by the caller
    rebuild(id);
    return static_cast<int>(id);
  }

  void attach(size_t dst, size_t src, nabla::Tensor weight) {
    Neuron& d = neurons_[dst];
    g::Value w = graph_.parameter("w" + std::to_string(next_weight_++), weight);
    d.sources.push_back(neurons_[src].act);
    d.weights.push_back(w);
    d.terms.push_back(neurons_[src].act * w);
  }

  void connect(size_t src, size_t dst, nabla::Tensor weight) {
    attach(dst, src, std::move(weight));
    rebuild(dst);
  }

  void disconnect_last(size_t dst) {
    Neuron& d = neurons_[dst];
    g::Value term = d.terms.back(), w = d.weights.back();
    d.terms.pop_back();
    d.sources.pop_back();
    d.weights.pop_back();
    rebuild(dst);
    graph_.remove(term);
    graph_.remove(w);
  }

  void replace_source(size_t dst, size_t k, size_t src) {
    Neuron& d = neurons_[dst];
    g::Value old = d.terms[k];
    d.sources[k] = neurons_[src].act;
    d.terms[k] = neurons_[src].act * d.weights[k];
    rebuild(dst);
    graph_.remove(old);
  }

  // New stack and sum over the neuron's terms; the activation is rewired to them and the
  // old ones removed. Only this neuron and what depends on it become dirty.
  void rebuild(size_t id) {
    Neuron& n = neurons_[id];
    g::Value stack = graph_.call("stack", n.terms);
    g::Value sum = graph_.call("sum", {stack}, {{"dim", std::vector<int64_t>{0}}});
    if (!n.act.defined()) {
      n.act = graph_.call("tanh", {sum}, {}, "h" + std::to_string(id));
    } else {
      graph_.set_input(n.act, 0, sum);
      graph_.remove(n.sum);
      graph_.remove(n.stack);
    }
    n.stack = stack;
    n.sum = sum;
  }

  size_t pick_neuron() {  // a neuron with inputs: not x0, x1 or the bias
    return std::uniform_int_distribution<size_t>(3, neurons_.size() - 1)(rng_);
  }
  size_t index_of(const g::Value& act) const {
    for (size_t i = 0; i < neurons_.size(); ++i)
      if (neurons_[i].act == act) return i;
    return 0;
  }
  std::string name(size_t i) const { return neurons_[i].act.name(); }

  g::Graph graph_;
  g::Value x_, target_, loss_;
  int output_ = 0;
  std::vector<Neuron> neurons_;
  int next_weight_ = 0;
  std::mt19937 rng_;
};

}  // namespace

int main(int argc, char** argv) {
  int generations = 300;
  unsigned seed = 1;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--generations")) generations = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--seed")) seed = static_cast<unsigned>(std::stoul(argv[i + 1]));
  }
  nabla::manual_seed(seed);
  Network net(seed);
  double best = net.evaluate();
  std::printf("generation    0: loss %.4f, %lld nodes, all computed\n", best,
              static_cast<long long>(net.size()));
  int64_t computed_total = 0, nodes_total = 0;
  std::mt19937 rng(seed);
  for (int gen = 1; gen <= generations; ++gen) {
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    std::string what;
    double loss;
    if (kind == 0 && net.neurons() < 12) {
      what = net.add_node();
      loss = net.evaluate();
      best = loss;  // structure is kept (NEAT grows complexity); weights evolve after
    } else if (kind == 1) {
      auto undo = net.add_connection(what);
      try {
        loss = net.evaluate();
        best = loss;
      } catch (const nabla::Error& e) {
        const std::string msg = e.what();
        what = "refused " + what + ": " + msg.substr(msg.find("cycle"));
        what = what.substr(0, what.find(" (each"));
        undo();
        loss = net.evaluate();
      }
    } else {
      auto undo = net.mutate_weight();
      loss = net.evaluate();
      what = "weight";
      if (loss > best) {
        computed_total += net.computed();  // and the undo's forward, counted below
        undo();
        net.evaluate();
        what += " (reverted)";
      } else {
        best = loss;
      }
    }
    computed_total += net.computed();
    nodes_total += net.size();
    if (gen % (generations / 15 > 0 ? generations / 15 : 1) == 0 || what.rfind("weight", 0) != 0)
      std::printf("generation %4d: loss %.4f, %3lld of %3lld nodes computed  %s\n", gen, best,
                  static_cast<long long>(net.computed()), static_cast<long long>(net.size()),
                  what.c_str());
  }
  // A reverted weight mutation costs two forwards, both counted.
  std::printf("each generation recomputed %.1f%% of the graph's nodes on average\n",
              100.0 * static_cast<double>(computed_total) / static_cast<double>(nodes_total));
  const double tuned = net.train(300, 0.05);
  std::printf("after 300 gradient steps through the graph: loss %.4f\n", tuned);
  net.print_predictions();
  return tuned < 0.5 ? 0 : 1;
}
