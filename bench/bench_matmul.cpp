// W4 (bench/README.md): sgemm N x N x N in float32 through nabla::matmul, against
// cblas_sgemm called directly on the same input buffers, at 1 and 2 threads.
// The nabla timing includes everything a user pays: argument checks, allocating the
// output and the BLAS call. It is taken in the steady state of a loop that drops the
// previous result before computing the next (as a training step does), so the
// allocator can hand back the same block; the "prev alive" column keeps the previous
// result alive instead, which makes glibc map fresh pages for every output (the
// page faults cost a few percent at this size). Runs alternate between the variants
// (in ABBA order) so that background load hits all alike; medians are reported.
//
// Usage: bench_matmul [--threads N] [--size N] [--runs N] [--warmup N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nabla/nabla.h>

#include NABLA_CBLAS_HEADER

namespace {

struct Options {
  std::vector<int> threads{1, 2};
  int64_t size = 1024;
  int runs = 21;
  int warmup = 3;
};

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--threads N] [--size N] [--runs N] [--warmup N]\n"
               "  --threads N  run with N threads only (default: 1 and 2)\n"
               "  --size N     matrix size, N x N x N (default 1024)\n"
               "  --runs N     timed runs per variant; the median is reported (default 21)\n"
               "  --warmup N   untimed runs first (default 3)\n",
               argv0);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") usage(argv[0]);
    if (i + 1 >= argc) usage(argv[0]);
    long v = std::strtol(argv[++i], nullptr, 10);
    if (v < 1) usage(argv[0]);
    if (arg == "--threads")
      o.threads = {static_cast<int>(v)};
    else if (arg == "--size")
      o.size = v;
    else if (arg == "--runs")
      o.runs = static_cast<int>(v);
    else if (arg == "--warmup")
      o.warmup = static_cast<int>(v);
    else
      usage(argv[0]);
  }
  return o;
}

template <class F>
double seconds(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt = parse(argc, argv);
  const int64_t n = opt.size;
  const double flop = 2.0 * static_cast<double>(n) * n * n;

  nabla::manual_seed(0);
  nabla::Tensor a = nabla::randn({n, n});
  nabla::Tensor b = nabla::randn({n, n});
  nabla::Tensor c_blas = nabla::empty({n, n});
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  float* pc = c_blas.data_ptr<float>();
  const int ni = static_cast<int>(n);
  auto run_blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, pa, ni, pb, ni, 0.0f,
                pc, ni);
  };
  nabla::Tensor c_nabla;
  auto run_nabla = [&] {
    c_nabla = nabla::Tensor();
    c_nabla = nabla::matmul(a, b);
  };
  auto run_nabla_prev_alive = [&] { c_nabla = nabla::matmul(a, b); };

  std::printf("W4: sgemm %lldx%lldx%lld float32, median of %d runs after %d warm-up runs\n",
              static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(n),
              opt.runs, opt.warmup);
  std::printf("%-7s | %8s | %11s | %13s | %16s | %7s | %s\n", "threads", "nabla ms", "OpenBLAS ms",
              "nabla GFLOP/s", "OpenBLAS GFLOP/s", "ratio", "nabla ms, previous result alive");
  std::printf(
      "--------+----------+-------------+---------------+------------------+---------+-----"
      "---------------------------\n");
  bool all_ok = true;
  for (int t : opt.threads) {
    nabla::set_num_threads(t);  // sets OpenBLAS's thread count too
    for (int i = 0; i < opt.warmup; ++i) {
      run_nabla();
      run_blas();
    }
    // The two must agree (same library, same inputs).
    run_nabla();
    run_blas();
    double max_diff = 0;
    const float* pn = c_nabla.data_ptr<float>();
    for (int64_t i = 0; i < n * n; ++i)
      max_diff = std::max(max_diff, static_cast<double>(std::fabs(pn[i] - pc[i])));
    if (max_diff > 1e-3) {
      std::fprintf(stderr, "mismatch between nabla and OpenBLAS: max |diff| = %g\n", max_diff);
      all_ok = false;
    }
    std::vector<double> tn, tb, tp;
    for (int i = 0; i < opt.runs; ++i) {
      if (i % 2 == 0) {
        tn.push_back(seconds(run_nabla));
        tb.push_back(seconds(run_blas));
      } else {
        tb.push_back(seconds(run_blas));
        tn.push_back(seconds(run_nabla));
      }
    }
    for (int i = 0; i < opt.runs; ++i) tp.push_back(seconds(run_nabla_prev_alive));
    double mn = median(tn), mb = median(tb), mp = median(tp);
    std::printf("%-7d | %8.2f | %11.2f | %13.1f | %16.1f | %6.3fx | %.2f\n", t, mn * 1e3, mb * 1e3,
                flop / mn * 1e-9, flop / mb * 1e-9, mb / mn, mp * 1e3);
  }
  std::printf("ratio = nabla GFLOP/s / OpenBLAS GFLOP/s (goal >= 0.95x)\n");
  return all_ok ? 0 : 1;
}
