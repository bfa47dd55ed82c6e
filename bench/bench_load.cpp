// Loading resnet18's weights: nabla::load of PyTorch's .pt file and of
// the same weights as safetensors, each timed over several loads into one ResNet-18, with
// the peak memory the first load adds (resident set, and nabla's allocator).
//   bench_load FILE [runs] [--save OUT]   (bench/load_resnet18.sh makes resnet18.pt, runs
//                                          torch.load beside it, and with --save writes
//                                          the weights again as OUT, e.g. safetensors)
#include <nabla/models.h>
#include <nabla/nabla.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

double max_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_load FILE.pt|FILE.safetensors [runs] [--save OUT]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int runs = argc > 2 ? std::stoi(argv[2]) : 20;
  const std::string save_as = argc > 4 && std::string(argv[3]) == "--save" ? argv[4] : "";
  nabla::models::ResNet18 model;
  int64_t weight_bytes = 0;
  for (const auto& t : model->parameters()) weight_bytes += static_cast<int64_t>(t.nbytes());
  for (const auto& t : model->buffers()) weight_bytes += static_cast<int64_t>(t.nbytes());
  // The first load: how much memory it adds at its peak.
  const double rss_before = max_rss_mb();
  nabla::reset_peak_memory();
  const size_t allocated_before = nabla::cpu_memory_allocated();
  auto start = std::chrono::steady_clock::now();
  nabla::load(model, path);
  const double first_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double rss_added = max_rss_mb() - rss_before;
  const double allocator_added = (nabla::cpu_memory_peak() - allocated_before) / 1048576.0;
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    start = std::chrono::steady_clock::now();
    nabla::load(model, path);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "%s: weights %.1f MB; first load %.1f ms; load min %.1f / median %.1f / max %.1f ms "
      "(%d runs); peak added by the first load: resident %.1f MB, nabla allocator %.1f MB\n",
      path.c_str(), weight_bytes / 1048576.0, first_ms, ms.front(), ms[ms.size() / 2], ms.back(),
      runs, rss_added, allocator_added);
  if (!save_as.empty()) nabla::save(model, save_as);
}
