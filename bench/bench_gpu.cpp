// nabla's training steps and products on a GPU (bench/gpu_torch.py times the same in
// PyTorch; scripts/gpu_check.sh runs both and prints the table). Per workload: the median
// step time in ms over CUDA events (after warm-up), cudaMalloc calls and host waits during
// the timed steps (both should be 0: Note [Current stream], the caching allocator), and
// for the products the rate against the matrix units' float32 path (cuBLAS, no TF32).
// Output: one "name value" line per figure, for the script to read.
#include <nabla/nabla.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "w2_nabla.h"
#include "w3_nabla.h"

namespace {

// Median ms of `runs` calls of step(), each timed by events on the current stream.
template <class F>
double median_event_ms(F&& step, int runs, int warmup) {
  for (int i = 0; i < warmup; ++i) step();
  nabla::cuda::synchronize();
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    nabla::cuda::CUDAEvent a(true), b(true);
    a.record();
    step();
    b.record();
    b.synchronize();
    t.push_back(a.elapsed_time(b));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Steps of a workload on the GPU: its time, and the cudaMalloc calls and host waits of
// 20 steps after warm-up (the event waits of the timing are not among them).
template <class W>
void workload(const char* name, W& w) {
  w.net->to(nabla::kCUDA);  // the optimizer holds the same parameters, its state not made yet
  w.x = w.x.cuda();
  w.y = w.y.cuda();
  for (int i = 0; i < 10; ++i) w.step();
  nabla::cuda::synchronize();
  const size_t mallocs = nabla::cuda::device_allocations();
  const size_t syncs = nabla::cuda::host_synchronizations();
  for (int i = 0; i < 20; ++i) w.step();
  const size_t new_mallocs = nabla::cuda::device_allocations() - mallocs;
  const size_t new_syncs = nabla::cuda::host_synchronizations() - syncs;
  const double ms = median_event_ms([&] { w.step(); }, 50, 5);
  std::printf("%s_step_ms %.4f\n%s_mallocs_per_20_steps %zu\n%s_host_syncs_per_20_steps %zu\n",
              name, ms, name, new_mallocs, name, new_syncs);
}

void product(int64_t m, int64_t k, int64_t n) {
  nabla::manual_seed(1);
  nabla::Tensor a = nabla::randn({m, k}, nabla::device(nabla::kCUDA));
  nabla::Tensor b = nabla::randn({k, n}, nabla::device(nabla::kCUDA));
  nabla::Tensor c;
  const double ms = median_event_ms([&] { c = a.matmul(b); }, 20, 3);
  std::printf("matmul_%lldx%lldx%lld_tflops %.3f\n", static_cast<long long>(m),
              static_cast<long long>(k), static_cast<long long>(n),
              2.0 * m * k * n / (ms * 1e-3) / 1e12);
}

}  // namespace

int main() {
  if (!nabla::cuda::is_available()) {
    std::printf("bench_gpu: no CUDA device\n");
    return 1;
  }
  std::printf("# %s", nabla::show_config().c_str());
  nabla::manual_seed(0);
  {
    NablaW2 w2;
    workload("w2", w2);
  }
  {
    NablaW3 w3;
    workload("w3", w3);
  }
  product(4096, 4096, 4096);
  product(256, 768, 3072);  // a GPT-2 MLP product at batch 4 x 64 tokens
  return 0;
}
