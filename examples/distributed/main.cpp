// Data-parallel training of the W3 CNN (bench/README.md) on Fashion-MNIST over several processes
// (docs/distributed.md): each rank trains on its share of every batch
// (DistributedRandomSampler), DistributedDataParallel averages the gradients, rank 0
// evaluates on the test set.
//   mpirun -np 2 distributed --threads 1                      (MPI)
//   bash examples/distributed/launch_gloo.sh 2 distributed     (Gloo: RANK, WORLD_SIZE, ...)
//   distributed --local                                        (one process, no group)
// Flags: --epochs N, --batch-size B (the global batch, split over the ranks), --lr,
// --threads N, --limit N (examples per epoch), --data DIR, --backend gloo|mpi,
// --bench STEPS (time STEPS steps after 5 warm-up steps and print the figures),
// --bucket-mb MB.
#include <nabla/distributed.h>
#include <nabla/nabla.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "../fashion_mnist/models.h"

namespace data = nabla::data;
namespace dist = nabla::distributed;
namespace F = nabla::nn::functional;
using nabla::Tensor;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  int epochs = 1;
  int64_t batch_size = 64;
  double lr = 1e-3;
  int threads = 0;
  int64_t limit = 0;
  int bench = 0;
  double bucket_mb = 25;
  bool local = false;
  std::string backend;  // default: mpi under mpirun, else gloo
  std::string data;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string f = argv[i];
    auto value = [&]() -> std::string {
      NABLA_CHECK(i + 1 < argc, "distributed: ", f, " needs a value");
      return argv[++i];
    };
    if (f == "--epochs")
      a.epochs = std::stoi(value());
    else if (f == "--batch-size")
      a.batch_size = std::stoll(value());
    else if (f == "--lr")
      a.lr = std::stod(value());
    else if (f == "--threads")
      a.threads = std::stoi(value());
    else if (f == "--limit")
      a.limit = std::stoll(value());
    else if (f == "--bench")
      a.bench = std::stoi(value());
    else if (f == "--bucket-mb")
      a.bucket_mb = std::stod(value());
    else if (f == "--backend")
      a.backend = value();
    else if (f == "--data")
      a.data = value();
    else if (f == "--local")
      a.local = true;
    else
      throw nabla::Error("distributed: unknown flag " + f +
                         " (see the comment at the top of main.cpp)");
  }
  if (a.backend.empty()) a.backend = std::getenv("OMPI_COMM_WORLD_SIZE") ? "mpi" : "gloo";
  return a;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double test_accuracy(Cnn& model, const std::string& root) {
  nabla::NoGradGuard no_grad;
  model->eval();
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      data::datasets::MNIST(root, data::datasets::MNIST::Mode::kTest)
          .map(data::transforms::Normalize<>(0.2860, 0.3530))
          .map(data::transforms::Stack<>()),
      data::DataLoaderOptions(1000));
  int64_t correct = 0, seen = 0;
  for (auto& batch : *loader) {
    correct += model->forward(batch.data).argmax(1).eq(batch.target).sum().item<int64_t>();
    seen += batch.target.size(0);
  }
  model->train();
  return static_cast<double>(correct) / static_cast<double>(seen);
}

int run(const Args& args) {
  if (args.threads > 0) nabla::set_num_threads(args.threads);
  std::shared_ptr<dist::ProcessGroup> pg;
  if (!args.local) {
    dist::InitOptions init;
    init.backend = args.backend;
    pg = dist::init_process_group(init);
  }
  const int rank = pg ? pg->getRank() : 0, world = pg ? pg->getSize() : 1;
  const bool lead = rank == 0;
  NABLA_CHECK(args.batch_size % world == 0, "distributed: --batch-size ", args.batch_size,
              " does not split over ", world, " ranks");
  if (lead) {
    std::cout << nabla::show_config();
    std::cout << (pg ? pg->getBackendName() : std::string("local")) << ": " << world
              << " rank(s) x " << nabla::get_num_threads() << " thread(s), global batch "
              << args.batch_size << "\n";
  }
  const std::string root = args.data.empty() ? data::fashion_mnist_root() : args.data;
  nabla::manual_seed(0);
  Cnn model;
  std::unique_ptr<dist::DistributedDataParallel<Cnn>> ddp;
  if (pg) {
    dist::DistributedDataParallelOptions o;
    o.bucket_cap_mb = args.bucket_mb;
    ddp = std::make_unique<dist::DistributedDataParallel<Cnn>>(model, pg, o);
  }
  auto forward = [&](const Tensor& x) { return ddp ? ddp->forward(x) : model->forward(x); };
  nabla::optim::Adam optimizer(model->parameters(), nabla::optim::AdamOptions(args.lr));

  auto train = data::datasets::MNIST(root, data::datasets::MNIST::Mode::kTrain)
                   .map(data::transforms::Normalize<>(0.2860, 0.3530))
                   .map(data::transforms::Stack<>());
  const size_t size = args.limit > 0 ? std::min<size_t>(args.limit, *train.size()) : *train.size();
  data::samplers::DistributedRandomSampler sampler(size, world, rank, /*allow_duplicates=*/false);
  const auto per_rank = static_cast<size_t>(args.batch_size / world);

  // --bench: steps/s and where the all-reduce time went.
  int64_t timed = 0;
  Clock::duration step_time{}, allreduce_time{}, overlapped{};
  for (int epoch = 1; epoch <= args.epochs || args.bench > 0; ++epoch) {
    // Every rank shuffles with the epoch's seed: a new loader over the reseeded sampler.
    sampler.set_epoch(static_cast<size_t>(epoch));
    sampler.reset();
    auto loader =
        data::make_data_loader(train, sampler, data::DataLoaderOptions(per_rank).workers(1));
    const int64_t steps = static_cast<int64_t>(size / world / per_rank);
    std::unique_ptr<nabla::utils::ProgressBar> bar;
    if (lead && !args.bench)
      bar = std::make_unique<nabla::utils::ProgressBar>(
          steps, "epoch " + std::to_string(epoch) + "/" + std::to_string(args.epochs));
    double loss_sum = 0;
    int64_t step = 0;
    for (auto& batch : *loader) {
      const auto start = Clock::now();
      optimizer.zero_grad();
      Tensor loss = F::cross_entropy(forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      const auto end = Clock::now();
      loss_sum += loss.item<double>();
      ++step;
      if (bar) {
        bar->set_postfix("loss=" + fmt("%.4f", loss_sum / static_cast<double>(step)));
        bar->update();
      }
      if (args.bench && step > 5) {  // after warm-up
        step_time += end - start;
        if (ddp) {
          const auto& t = ddp->last_step();
          for (const auto& b : t.buckets) {
            allreduce_time += b.finished - b.started;
            if (t.backward_end > b.started)
              overlapped += std::min(b.finished, t.backward_end) - b.started;
          }
        }
        if (++timed == args.bench) break;
      }
    }
    if (bar) bar->close();
    if (args.bench) {
      if (timed < args.bench) continue;  // another epoch of data
      if (lead) {
        const double per_step = ms(step_time) / static_cast<double>(timed);
        std::cout << "bench: " << world << " rank(s) x " << nabla::get_num_threads()
                  << " thread(s), " << timed << " steps: " << fmt("%.2f", per_step) << " ms/step, "
                  << fmt("%.1f", 1000.0 / per_step) << " steps/s, global "
                  << fmt("%.0f", static_cast<double>(args.batch_size) * 1000.0 / per_step)
                  << " examples/s; all-reduce " << fmt("%.2f", ms(allreduce_time) / timed)
                  << " ms/step, of which " << fmt("%.2f", ms(overlapped) / timed)
                  << " ms overlapped backward\n";
      }
      break;
    }
    if (lead)
      std::cout << "epoch " << epoch << ": train loss (rank 0's share) "
                << fmt("%.4f", loss_sum / static_cast<double>(std::max<int64_t>(step, 1)))
                << ", test accuracy " << fmt("%.4f", test_accuracy(model, root)) << "\n";
  }
  if (pg) pg->barrier()->wait();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const nabla::Error& e) {
    std::cerr << "distributed: " << e.what() << "\n";
    return 1;
  }
}
