// W7 (bench/README.md): one training step of the pytorch-cpp tutorial's recurrent network
// (tutorials/intermediate/recurrent_neural_network): a 2-layer LSTM (input 28, hidden 128,
// batch_first) over batch 100 x 28 steps, Linear(128 -> 10) on the last step's output,
// cross-entropy, Adam lr 1e-3. Also the tutorial's bidirectional variant (the forward
// direction's last step and the backward direction's first, Linear(256 -> 10)) and the
// same network with a GRU. ms per step, median over --runs steps after warm-up, nabla and
// LibTorch in the same process at the same thread count.
#include <torch/torch.h>

#include <nabla/nabla.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "malloc_setting.h"
#include "median_ms.h"

namespace {

constexpr int64_t kBatch = 100, kSteps = 28, kInput = 28, kHidden = 128, kLayers = 2, kClasses = 10;

enum class Kind { Lstm, BiLstm, Gru };
const char* kind_name(Kind k) {
  return k == Kind::Lstm ? "lstm" : k == Kind::BiLstm ? "bilstm" : "gru";
}

struct TorchW7 {
  explicit TorchW7(Kind k) : kind(k) {
    namespace nn = torch::nn;
    std::vector<torch::Tensor> params;
    if (k == Kind::Gru) {
      gru = nn::GRU(nn::GRUOptions(kInput, kHidden).num_layers(kLayers).batch_first(true));
      params = gru->parameters();
    } else {
      lstm = nn::LSTM(nn::LSTMOptions(kInput, kHidden)
                          .num_layers(kLayers)
                          .batch_first(true)
                          .bidirectional(k == Kind::BiLstm));
      params = lstm->parameters();
    }
    fc = nn::Linear((k == Kind::BiLstm ? 2 : 1) * kHidden, kClasses);
    for (const auto& p : fc->parameters()) params.push_back(p);
    opt = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(1e-3));
  }
  torch::Tensor forward(const torch::Tensor& in) {
    if (kind == Kind::Gru) return fc(std::get<0>(gru(in)).select(1, -1));
    torch::Tensor out = std::get<0>(lstm(in));  // [N, T, dirs * H]
    if (kind == Kind::Lstm) return fc(out.select(1, -1));
    return fc(torch::cat(
        {out.select(1, -1).narrow(1, 0, kHidden), out.select(1, 0).narrow(1, kHidden, kHidden)},
        1));
  }
  void step() {
    opt->zero_grad();
    auto loss = torch::nn::functional::cross_entropy(forward(x), y);
    loss.backward();
    opt->step();
  }
  Kind kind;
  torch::nn::LSTM lstm{nullptr};
  torch::nn::GRU gru{nullptr};
  torch::nn::Linear fc{nullptr};
  std::unique_ptr<torch::optim::Adam> opt;
  torch::Tensor x = torch::rand({kBatch, kSteps, kInput});
  torch::Tensor y = torch::randint(0, kClasses, {kBatch}, torch::kLong);
};

struct NablaW7 {
  explicit NablaW7(Kind k) : kind(k) {
    namespace nn = nabla::nn;
    std::vector<nabla::Tensor> params;
    if (k == Kind::Gru) {
      gru = nn::GRU(nn::GRUOptions(kInput, kHidden).num_layers(kLayers).batch_first(true));
      params = gru->parameters();
    } else {
      lstm = nn::LSTM(nn::LSTMOptions(kInput, kHidden)
                          .num_layers(kLayers)
                          .batch_first(true)
                          .bidirectional(k == Kind::BiLstm));
      params = lstm->parameters();
    }
    fc = nn::Linear((k == Kind::BiLstm ? 2 : 1) * kHidden, kClasses);
    for (const auto& p : fc->parameters()) params.push_back(p);
    opt = std::make_unique<nabla::optim::Adam>(params, nabla::optim::AdamOptions(1e-3));
  }
  nabla::Tensor forward(const nabla::Tensor& in) {
    if (kind == Kind::Gru) return fc(std::get<0>(gru(in)).select(1, -1));
    nabla::Tensor out = std::get<0>(lstm(in));  // [N, T, dirs * H]
    if (kind == Kind::Lstm) return fc(out.select(1, -1));
    return fc(nabla::cat(
        {out.select(1, -1).narrow(1, 0, kHidden), out.select(1, 0).narrow(1, kHidden, kHidden)},
        1));
  }
  void step() {
    opt->zero_grad();
    auto loss = nabla::nn::functional::cross_entropy(forward(x), y);
    loss.backward();
    opt->step();
  }
  Kind kind;
  nabla::nn::LSTM lstm{nullptr};
  nabla::nn::GRU gru{nullptr};
  nabla::nn::Linear fc{nullptr};
  std::unique_ptr<nabla::optim::Adam> opt;
  nabla::Tensor x = nabla::rand({kBatch, kSteps, kInput});
  nabla::Tensor y = nabla::randint(0, kClasses, {kBatch}, nabla::kLong);
};

}  // namespace

int main(int argc, char** argv) {
  benchmark_malloc_setting(argc, argv);
  std::vector<int> threads = {1, 2};
  std::vector<Kind> kinds = {Kind::Lstm, Kind::BiLstm, Kind::Gru};
  int runs = 21;
  std::string lib;  // --lib nabla|libtorch: time one library only (for a profile)
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = {std::stoi(argv[++i])};
    } else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = std::stoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      const std::string k = argv[++i];
      kinds = {k == "gru" ? Kind::Gru : k == "bilstm" ? Kind::BiLstm : Kind::Lstm};
    } else if (!std::strcmp(argv[i], "--lib") && i + 1 < argc) {
      lib = argv[++i];
    }
  }
  std::printf("%s\n", nabla::show_config().c_str());  // the CPU and kernel paths
  std::printf(
      "W7 2-layer RNN (input 28, hidden 128, batch_first), batch 100 x 28 steps, fc -> 10, "
      "cross-entropy, Adam: ms per training step\n");
  std::printf("%-8s %-8s %12s %14s %8s\n", "model", "threads", "nabla ms", "libtorch ms", "ratio");
  for (Kind k : kinds) {
    NablaW7 n(k);
    TorchW7 t(k);
    for (int th : threads) {
      nabla::set_num_threads(th);
      torch::set_num_threads(th);
      const bool run_n = lib != "libtorch", run_t = lib != "nabla";
      for (int w = 0; w < 3; ++w) {
        if (run_n) n.step();
        if (run_t) t.step();
      }
      const double nm = run_n ? median_ms([&] { n.step(); }, runs) : 0;
      const double tm = run_t ? median_ms([&] { t.step(); }, runs) : 0;
      std::printf("%-8s %-8d %12.2f %14.2f %8.3f\n", kind_name(k), th, nm, tm, nm / tm);
      std::fflush(stdout);
    }
  }
  return 0;
}
