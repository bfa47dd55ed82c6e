// Soak: W2 and W3 trained for many steps on Fashion-MNIST through the threaded
// DataLoader (2 workers), with a checkpoint of model and optimizer every 500 steps. At each
// checkpoint it prints the process's resident memory, open file descriptors and threads
// (from /proc/self) and, at the end, checks that after warm-up the memory stays within 5%
// of its first reading and the descriptor and thread counts do not change; the last
// checkpoint must load back equal to the model; once idle, the process must not spin.
// Exit status 1 when a check fails.
// Run by hand (minutes, not in CI): scripts/soak.sh, or
//   bench_soak [--w2-steps 10000] [--w3-steps 2000] [--every 500] [--threads 2]
#include <nabla/nabla.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "w2_nabla.h"
#include "w3_nabla.h"

namespace {

namespace data = nabla::data;
namespace fs = std::filesystem;

struct Reading {
  int64_t step;
  double rss_mib;
  int64_t fds, threads;
};

Reading read_proc(int64_t step) {
  Reading r{step, 0, 0, 0};
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) r.rss_mib = std::stod(line.substr(6)) / 1024.0;
    if (line.rfind("Threads:", 0) == 0) r.threads = std::stoll(line.substr(8));
  }
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++r.fds;
  return r;
}

void save(const nabla::nn::Module& net, const nabla::optim::Optimizer& opt,
          const std::string& path) {
  nabla::serialize::OutputArchive archive, model, optim;
  net.save(model);
  opt.save(optim);
  archive.write("model", model);
  archive.write("optimizer", optim);
  archive.save_to(path);
}

// The last checkpoint, loaded into a fresh copy of the model, equals the model.
bool loads_back(const nabla::nn::Sequential& net, nabla::nn::Sequential fresh,
                const std::string& path) {
  nabla::serialize::InputArchive archive, model;
  archive.load_from(path);
  archive.read("model", model);
  fresh->load(model);
  auto want = net->parameters(), got = fresh->parameters();
  if (want.size() != got.size()) return false;
  for (size_t i = 0; i < want.size(); ++i)
    if (!want[i].equal(got[i])) return false;
  return true;
}

// Trains `w` (NablaW2 or NablaW3) for `steps` steps on Fashion-MNIST batches reshaped by
// `shape`; returns the readings taken at each checkpoint.
template <class W, class Shape>
std::vector<Reading> soak(const char* name, W& w, W& fresh, int64_t batch, int64_t steps,
                          int64_t every, const std::string& dir, Shape shape, bool& ok) {
  auto loader = data::make_data_loader(
      data::datasets::MNIST(data::fashion_mnist_root(), data::datasets::MNIST::Mode::kTrain)
          .map(data::transforms::Stack<>()),
      data::DataLoaderOptions(static_cast<size_t>(batch)).workers(2));
  const std::string path = dir + "/" + name + ".safetensors";
  std::vector<Reading> readings;
  std::printf("%s: %lld steps, batch %lld, checkpoint every %lld\n", name,
              static_cast<long long>(steps), static_cast<long long>(batch),
              static_cast<long long>(every));
  std::printf("%8s %10s %6s %8s %8s\n", "step", "RSS MiB", "fds", "threads", "loss");
  int64_t step = 0;
  while (step < steps) {
    for (auto& b : *loader) {
      if (step == steps) break;
      w.opt.zero_grad();
      auto loss = nabla::nn::functional::cross_entropy(w.net->forward(shape(b.data)), b.target);
      loss.backward();
      w.opt.step();
      if (++step % every == 0) {
        save(*w.net, w.opt, path);
        readings.push_back(read_proc(step));
        const Reading& r = readings.back();
        std::printf("%8lld %10.1f %6lld %8lld %8.4f\n", static_cast<long long>(r.step), r.rss_mib,
                    static_cast<long long>(r.fds), static_cast<long long>(r.threads),
                    loss.template item<double>());
      }
    }
  }
  if (!loads_back(w.net, fresh.net, path)) {
    std::printf("%s: FAIL: the last checkpoint does not load back equal to the model\n", name);
    ok = false;
  }
  return readings;
}

// After the first `warmup` readings: RSS within 5% of the first, fds and threads constant.
bool flat(const char* name, const std::vector<Reading>& rs, size_t warmup) {
  if (rs.size() <= warmup + 1) {
    std::printf("%s: too few checkpoints after warm-up to judge\n", name);
    return false;
  }
  const Reading& base = rs[warmup];
  double worst = 0;
  bool ok = true;
  for (size_t i = warmup; i < rs.size(); ++i) {
    worst = std::max(worst, std::abs(rs[i].rss_mib / base.rss_mib - 1));
    ok = ok && rs[i].fds == base.fds && rs[i].threads == base.threads;
  }
  ok = ok && worst <= 0.05;
  std::printf(
      "%s: after warm-up (step %lld): RSS %.1f MiB, largest change %.1f%% (limit 5%%); fds %lld, "
      "threads %lld, %s -> %s\n",
      name, static_cast<long long>(base.step), base.rss_mib, 100 * worst,
      static_cast<long long>(base.fds), static_cast<long long>(base.threads),
      ok ? "constant" : "changed or grew", ok ? "PASS" : "FAIL");
  return ok;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Idle after training, no thread of the process may spin (nabla's pool, the loader's
// workers, OpenBLAS's and oneDNN's threads): under 50 ms of CPU in one idle second.
bool idle_is_idle() {
  const double before = cpu_seconds();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const double used = cpu_seconds() - before;
  const bool ok = used < 0.05;
  std::printf("idle: %.1f ms of CPU in 1 s of sleep after training (limit 50) -> %s\n", 1000 * used,
              ok ? "PASS" : "FAIL");
  return ok;
}

int64_t flag(int argc, char** argv, const std::string& name, int64_t fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return std::stoll(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t w2_steps = flag(argc, argv, "--w2-steps", 10000);
  const int64_t w3_steps = flag(argc, argv, "--w3-steps", 2000);
  const int64_t every = flag(argc, argv, "--every", 500);
  nabla::set_num_threads(static_cast<int>(flag(argc, argv, "--threads", 2)));
  std::printf("%s\n", nabla::show_config().c_str());  // the CPU and kernel paths
  const std::string dir = (fs::temp_directory_path() / "nabla_soak").string();
  fs::create_directories(dir);
  bool ok = true;
  {
    NablaW2 w2, fresh;
    auto rs = soak(
        "W2", w2, fresh, kW2Batch, w2_steps, every, dir,
        [](const nabla::Tensor& x) {
          return x.reshape({x.size(0), 784});
        },
        ok);
    ok = flat("W2", rs, 2) && ok;
  }
  {
    NablaW3 w3, fresh;
    auto rs = soak(
        "W3", w3, fresh, kBatch, w3_steps, every, dir, [](const nabla::Tensor& x) { return x; },
        ok);
    ok = flat("W3", rs, 1) && ok;
  }
  ok = idle_is_idle() && ok;
  fs::remove_all(dir);
  std::printf("soak: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
