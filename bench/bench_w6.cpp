// W6 (bench/README.md): one GPT-2 training step (forward, cross-entropy over the vocabulary,
// backward, AdamW), nabla::models::GPT2 against the same model in LibTorch's C++ API
// (w6_gpt2_libtorch.h) in one process at the same thread count; ms per step (median of
// --runs after two warm-up steps), the step's FLOP rate and its fraction of the machine's
// sgemm rate (2048^3 through each library, measured in the same run), system allocations
// per step after warm-up and, with --only, peak resident memory of one library alone.
//
//   bench_w6 [--config 124m|long|small] [--threads N] [--runs R] [--only nabla|libtorch]
//   bench_w6 --only graph       the step traced into a static graph against eager nabla,
//                               steps alternating, --runs pairs
//   bench_w6 --write-llmc DIR   writes DIR/gpt2_124M.bin (nabla's initial weights in llm.c's
//                               fp32 checkpoint layout) and DIR/dev/data/tinyshakespeare/
//                               tiny_shakespeare_{train,val}.bin (random tokens) for
//                               bench/w6_llmc.sh
//
// Configurations: 124m = GPT-2 124M (12 layers, 12 heads, 768 channels, vocabulary 50,257),
// batch 4 x 64 tokens; long = 6 layers, 6 heads, 384 channels, batch 4 x 1024 tokens
// (attention dominates); small = 2 layers, 2 heads, 64 channels, 4 x 32 (a quick check).
#include <torch/torch.h>

#include <nabla/graph.h>
#include <nabla/models.h>
#include <nabla/nabla.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "malloc_setting.h"
#include "median_ms.h"
#include "peak_rss.h"
#include "w6_gpt2_libtorch.h"

namespace {

struct Config {
  const char* name;
  int64_t n_layer, n_head, n_embd, vocab, block, batch, seq;
};

Config config_named(const std::string& name) {
  if (name == "long") return {"long", 6, 6, 384, 50257, 1024, 4, 1024};
  if (name == "small") return {"small", 2, 2, 64, 50257, 64, 4, 32};
  return {"124m", 12, 12, 768, 50257, 1024, 4, 64};
}

// Training FLOPs of one step: 6 per parameter of every product per token (the embedding
// lookups are not products; the tied output projection is), plus the attention's two
// products (q k^T and weights v: 4 B T^2 C forward, three times that with the backward).
double step_flops(const Config& c) {
  const double tokens = double(c.batch) * double(c.seq);
  const double products = 12.0 * c.n_layer * c.n_embd * c.n_embd + double(c.vocab) * c.n_embd;
  const double attention = 3.0 * c.n_layer * 4.0 * c.batch * double(c.seq) * c.seq * c.n_embd;
  return 6.0 * products * tokens + attention;
}

// The q-quantile (0.5: the median) of v, by position in sorted order.
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * double(v.size() - 1) + 0.5)];
}

struct NablaStep {
  nabla::models::GPT2 model;
  nabla::optim::AdamW opt;
  nabla::Tensor x, y;
  explicit NablaStep(const Config& c)
      : model(nabla::models::GPT2Config{c.n_layer, c.n_head, c.n_embd, c.vocab, c.block}),
        opt(model->parameters(), nabla::optim::AdamWOptions(1e-4).weight_decay(0.1)) {
    x = nabla::randint(0, c.vocab, {c.batch, c.seq}, nabla::kLong);
    y = nabla::randint(0, c.vocab, {c.batch, c.seq}, nabla::kLong);
  }
  void step() {
    opt.zero_grad();
    nabla::Tensor logits = model->forward(x);
    auto loss =
        nabla::nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}), y.view({-1}));
    loss.backward();
    opt.step();
  }
};

// The same step through a static graph traced from the eager forward and loss (the trace
// should cost nothing over eager). It shares the eager step's model and
// AdamW, so both train the same parameters.
struct GraphStep {
  NablaStep& eager;
  nabla::graph::Graph graph;
  nabla::graph::Value x, y, loss;
  explicit GraphStep(NablaStep& e)
      : eager(e),
        graph(nabla::graph::trace(
            [&e](const std::vector<nabla::Tensor>& in) {
              nabla::Tensor logits = e.model->forward(in[0]);
              return nabla::nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}),
                                                          in[1].view({-1}));
            },
            {e.x, e.y})) {
    x = graph.inputs()[0];
    y = graph.inputs()[1];
    loss = graph.outputs()[0];
  }
  void step() {
    graph.zero_grad(/*set_to_none=*/false);  // as the eager step's opt.zero_grad()
    graph.set_value(x, eager.x);
    graph.set_value(y, eager.y);
    graph.forward(loss);
    graph.backward(loss);
    eager.opt.step();
  }
};

struct TorchStep {
  w6::TorchGPT2 model;
  torch::optim::AdamW opt;
  torch::Tensor x, y;
  explicit TorchStep(const Config& c)
      : model(c.n_layer, c.n_head, c.n_embd, c.vocab, c.block),
        opt(model->parameters(), torch::optim::AdamWOptions(1e-4).weight_decay(0.1)) {
    x = torch::randint(0, c.vocab, {c.batch, c.seq}, torch::kLong);
    y = torch::randint(0, c.vocab, {c.batch, c.seq}, torch::kLong);
  }
  void step() {
    opt.zero_grad();
    torch::Tensor logits = model->forward(x);
    auto loss =
        torch::nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}), y.view({-1}));
    loss.backward();
    opt.step();
  }
};

// GFLOP/s of a 2048^3 float32 product in each library (median of 5).
std::pair<double, double> sgemm_rates() {
  const int64_t n = 2048;
  nabla::Tensor a = nabla::randn({n, n}), b = nabla::randn({n, n});
  torch::Tensor ta = torch::randn({n, n}), tb = torch::randn({n, n});
  const double flops = 2.0 * n * n * n;
  const double nm = median_ms([&] { (void)nabla::matmul(a, b); }, 5, 1);
  const double tm = median_ms([&] { (void)torch::mm(ta, tb); }, 5, 1);
  return {flops / nm / 1e6, flops / tm / 1e6};
}

// llm.c's files: the checkpoint (header of 256 int32, then every parameter in its order,
// the embedding padded to a multiple of 128 rows) and two token files.
void write_llmc(const std::string& dir) {
  const Config c = config_named("124m");
  nabla::manual_seed(1337);
  nabla::models::GPT2 model(
      nabla::models::GPT2Config{c.n_layer, c.n_head, c.n_embd, c.vocab, c.block});
  auto params = model->named_parameters();
  const int64_t L = c.n_layer, C = c.n_embd, Vp = (c.vocab + 127) / 128 * 128;
  std::filesystem::create_directories(dir + "/dev/data/tinyshakespeare");
  std::ofstream out(dir + "/gpt2_124M.bin", std::ios::binary);
  std::vector<int32_t> header(256, 0);
  header[0] = 20240326, header[1] = 3, header[2] = int32_t(c.block), header[3] = int32_t(c.vocab);
  header[4] = int32_t(L), header[5] = int32_t(c.n_head), header[6] = int32_t(C),
  header[7] = int32_t(Vp);
  out.write(reinterpret_cast<const char*>(header.data()), 256 * sizeof(int32_t));
  auto put = [&](const nabla::Tensor& t) {
    nabla::Tensor f = t.detach().to(nabla::kFloat).contiguous();
    out.write(reinterpret_cast<const char*>(f.data_ptr<float>()),
              std::streamsize(f.numel() * sizeof(float)));
  };
  auto per_layer = [&](const std::string& suffix) {
    for (int64_t l = 0; l < L; ++l)
      put(params["transformer.h." + std::to_string(l) + "." + suffix]);
  };
  nabla::Tensor wte = params["transformer.wte.weight"];
  put(nabla::cat({wte, nabla::zeros({Vp - c.vocab, C})}));
  put(params["transformer.wpe.weight"]);
  for (const char* s : {"ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias",
                        "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight", "ln_2.bias",
                        "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"})
    per_layer(s);
  put(params["transformer.ln_f.weight"]);
  put(params["transformer.ln_f.bias"]);
  for (const char* split : {"train", "val"}) {
    std::ofstream tok(dir + "/dev/data/tinyshakespeare/tiny_shakespeare_" + split + ".bin",
                      std::ios::binary);
    const int64_t n = 65536;
    std::vector<int32_t> th(256, 0);
    th[0] = 20240520, th[1] = 1, th[2] = int32_t(n);
    tok.write(reinterpret_cast<const char*>(th.data()), 256 * sizeof(int32_t));
    nabla::Tensor ids = nabla::randint(0, c.vocab, {n}, nabla::kInt);
    std::vector<uint16_t> u(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) u[size_t(i)] = uint16_t(ids.data_ptr<int32_t>()[i]);
    tok.write(reinterpret_cast<const char*>(u.data()), std::streamsize(n * sizeof(uint16_t)));
  }
  std::printf("wrote llm.c files under %s\n", dir.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  benchmark_malloc_setting(argc, argv);
  std::vector<int> threads = {1, 2};
  int runs = 5;
  std::string only, config = "124m";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = {std::stoi(argv[++i])};
    } else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = std::stoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--config") && i + 1 < argc) {
      config = argv[++i];
    } else if (!std::strcmp(argv[i], "--write-llmc") && i + 1 < argc) {
      write_llmc(argv[++i]);
      return 0;
    }
  }
  const Config c = config_named(config);
  const double gflop = step_flops(c) / 1e9;
  if (!only.empty()) {
    const int t = threads.back();
    nabla::set_num_threads(t);
    torch::set_num_threads(t);
    double ms = 0;
    if (only == "graph") {  // the traced step against eager, both nabla
      NablaStep n(c);
      GraphStep gs(n);
      // Steps alternate (eager, traced, eager, ...) so that drifts in the machine's speed
      // fall on both alike; the figure is the median of each pair's ratio.
      for (int w = 0; w < 2; ++w) n.step(), gs.step();
      const size_t a0 = nabla::cpu_system_allocations();
      std::vector<double> te, tg, ratio;
      for (int r = 0; r < runs; ++r) {
        te.push_back(median_ms([&] { n.step(); }, 1));
        tg.push_back(median_ms([&] { gs.step(); }, 1));
        ratio.push_back(tg.back() / te.back());
      }
      const double allocs = double(nabla::cpu_system_allocations() - a0) / runs;
      std::printf(
          "W6 %s, %d threads, %d step pairs: traced %.1f ms, eager %.1f ms (medians), traced / "
          "eager %.3f (median of the pairs; quartiles %.3f, %.3f); system allocations per pair "
          "%.1f\n",
          c.name, t, runs, quantile(tg, 0.5), quantile(te, 0.5), quantile(ratio, 0.5),
          quantile(ratio, 0.25), quantile(ratio, 0.75), allocs);
      return 0;
    }
    if (only == "nabla") {
      NablaStep n(c);
      ms = median_ms([&] { n.step(); }, runs, 2);
    } else {
      TorchStep ts(c);
      ms = median_ms([&] { ts.step(); }, runs, 2);
    }
    std::printf("W6 %s %s alone, %d threads: %.1f ms/step, peak RSS %.1f MiB\n", c.name,
                only.c_str(), t, ms, static_cast<double>(peak_rss_kib()) / 1024);
    return 0;
  }
  std::printf("%s\n", nabla::show_config().c_str());  // the CPU and kernel paths
  std::printf(
      "W6 GPT-2 %s: %lld layers, %lld heads, %lld channels, vocabulary %lld, batch %lld x %lld "
      "tokens, AdamW, fp32; %.1f GFLOP per step\n",
      c.name, (long long)c.n_layer, (long long)c.n_head, (long long)c.n_embd, (long long)c.vocab,
      (long long)c.batch, (long long)c.seq, gflop);
  std::printf("%-8s %10s %12s %7s %10s %10s %10s %10s %8s\n", "threads", "nabla ms", "libtorch ms",
              "ratio", "nabla GF/s", "lt GF/s", "sgemm GF/s", "lt sgemm", "allocs");
  NablaStep n(c);
  TorchStep t(c);
  for (int th : threads) {
    nabla::set_num_threads(th);
    torch::set_num_threads(th);
    for (int w = 0; w < 2; ++w) {
      n.step();
      t.step();
    }
    const size_t allocs_before = nabla::cpu_system_allocations();
    const double nm = median_ms([&] { n.step(); }, runs);
    const double allocs = double(nabla::cpu_system_allocations() - allocs_before) / runs;
    const double tm = median_ms([&] { t.step(); }, runs);
    const auto [ns, ts] = sgemm_rates();
    std::printf("%-8d %10.1f %12.1f %7.3f %10.1f %10.1f %10.1f %10.1f %8.1f\n", th, nm, tm, nm / tm,
                gflop / nm * 1e3, gflop / tm * 1e3, ns, ts, allocs);
    std::printf("         nabla's step at %.0f%% of nabla's sgemm rate, LibTorch's at %.0f%%\n",
                100 * gflop / nm * 1e3 / ns, 100 * gflop / tm * 1e3 / ts);
  }
  return 0;
}
