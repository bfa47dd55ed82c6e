// The main job: train an MLP or a CNN on Fashion-MNIST with a progress bar, evaluate on
// the test set after every epoch, save a checkpoint (model + optimizer + RNG state, one
// safetensors file) every epoch, draw the loss/accuracy curves as SVG, print a summary.
//   fashion_mnist --model cnn --epochs 3          (see --help for the flags)
//   fashion_mnist --resume runs/fashion_mnist/checkpoint-epoch2.safetensors --epochs 3
//   fashion_mnist --eval-only runs/fashion_mnist/checkpoint-epoch3.safetensors
//   fashion_mnist --device cuda                   (train on the GPU; batches pinned)
#include <nabla/nabla.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "args.h"
#include "models.h"

namespace data = nabla::data;
namespace nn = nabla::nn;
namespace F = nabla::nn::functional;
using nabla::Tensor;

namespace {

// Fashion-MNIST's training-set pixel mean and standard deviation.
constexpr double kMean = 0.2860, kStd = 0.3530;

struct Model {
  std::shared_ptr<nn::Module> module;
  std::function<Tensor(const Tensor&)> forward;
};

Model make_model(const std::string& kind) {
  if (kind == "mlp") {
    Mlp m;
    return {m.ptr(), [m](const Tensor& x) mutable { return m(x); }};
  }
  Cnn c;
  return {c.ptr(), [c](const Tensor& x) mutable { return c(x); }};
}

auto load_split(const std::string& root, data::datasets::MNIST::Mode mode) {
  return data::datasets::MNIST(root, mode)
      .map(data::transforms::Normalize<>(kMean, kStd))
      .map(data::transforms::Stack<>());
}

struct EvalResult {
  double loss = 0, accuracy = 0;
};

// Sums on the device, read once at the end (on a GPU, each item() waits for it).
EvalResult evaluate(Model& model, const std::string& root, nabla::Device device) {
  nabla::NoGradGuard no_grad;
  model.module->eval();
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      load_split(root, data::datasets::MNIST::Mode::kTest), data::DataLoaderOptions(1000));
  Tensor loss_sum = nabla::zeros({}, nabla::TensorOptions(nabla::kDouble).device(device));
  Tensor correct = nabla::zeros({}, nabla::TensorOptions(nabla::kLong).device(device));
  int64_t seen = 0;
  for (auto& batch : *loader) {
    Tensor x = batch.data.to(device), y = batch.target.to(device);
    Tensor logits = model.forward(x);
    loss_sum += F::cross_entropy(logits, y, F::CrossEntropyFuncOptions().reduction(nabla::kSum));
    correct += logits.argmax(1).eq(y).sum();
    seen += y.size(0);
  }
  model.module->train();
  return {loss_sum.item<double>() / static_cast<double>(seen),
          static_cast<double>(correct.item<int64_t>()) / static_cast<double>(seen)};
}

void save_checkpoint(const std::string& path, const Args& args, const Model& model,
                     const nabla::optim::Optimizer& optimizer, int epoch) {
  nabla::serialize::OutputArchive archive, model_archive, optim_archive;
  model.module->save(model_archive);
  optimizer.save(optim_archive);
  archive.write("model", model_archive);
  archive.write("optimizer", optim_archive);
  archive.write("epoch", static_cast<int64_t>(epoch));
  // The generator state, so a resumed run shuffles exactly as an uninterrupted one.
  archive.write("rng.state", nabla::default_generator().get_state());
  archive.write_metadata("model", args.model);
  archive.save_to(path);
}

/// Loads a checkpoint into model (and optimizer, if given); returns its epoch.
int load_checkpoint(const std::string& path, const std::string& model_kind, Model& model,
                    nabla::optim::Optimizer* optimizer) {
  nabla::serialize::InputArchive archive;
  archive.load_from(path);
  const std::string saved_kind = archive.read_metadata("model").value_or("?");
  NABLA_CHECK(saved_kind == model_kind, "checkpoint '", path, "' holds a ", saved_kind,
              " model, not a ", model_kind, " (pass --model ", saved_kind, ")");
  nabla::serialize::InputArchive model_archive, optim_archive;
  archive.read("model", model_archive);
  model.module->load(model_archive);
  int64_t epoch = 0;
  archive.read("epoch", epoch);
  if (optimizer) {
    archive.read("optimizer", optim_archive);
    optimizer->load(optim_archive);
    nabla::Tensor rng_state;
    archive.read("rng.state", rng_state);
    nabla::default_generator().set_state(rng_state);
  }
  return static_cast<int>(epoch);
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

int run(const Args& args) {
  if (args.threads > 0) nabla::set_num_threads(args.threads);
  nabla::manual_seed(args.seed);
  std::cout << nabla::show_config();
  const std::string root = args.data.empty() ? data::fashion_mnist_root() : args.data;
  const nabla::Device device(args.device);
  Model model = make_model(args.model);
  model.module->to(device);  // before the optimizer: its state follows the parameters
  std::cout << "model on " << device << ":\n" << *model.module << "\n";

  if (!args.eval_only.empty()) {
    const int epoch = load_checkpoint(args.eval_only, args.model, model, nullptr);
    const auto r = evaluate(model, root, device);
    std::cout << "checkpoint " << args.eval_only << " (epoch " << epoch << "): test loss "
              << fmt("%.4f", r.loss) << ", test accuracy " << fmt("%.4f", r.accuracy) << "\n";
    return 0;
  }

  nabla::optim::Adam optimizer(model.module->parameters(), nabla::optim::AdamOptions(args.lr));
  // Built before a resume restores the generator: its sampler draws a permutation now,
  // as it did in the run that wrote the checkpoint.
  auto loader = data::make_data_loader(load_split(root, data::datasets::MNIST::Mode::kTrain),
                                       data::DataLoaderOptions(static_cast<size_t>(args.batch_size))
                                           .workers(2)
                                           .pin_memory(device.is_cuda()));
  int first_epoch = 1;
  if (!args.resume.empty()) {
    first_epoch = load_checkpoint(args.resume, args.model, model, &optimizer) + 1;
    std::cout << "resumed from " << args.resume << ": continuing at epoch " << first_epoch << "\n";
  }
  std::filesystem::create_directories(args.out);

  const int64_t train_size = 60000;
  const int64_t examples = args.limit > 0 ? std::min(args.limit, train_size) : train_size;
  const int64_t steps = (examples + args.batch_size - 1) / args.batch_size;
  std::vector<double> train_losses, test_losses, test_accs, epoch_seconds;
  std::string last_checkpoint;
  EvalResult last{};
  for (int epoch = first_epoch; epoch <= args.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    nabla::utils::ProgressBar bar(
        steps, "epoch " + std::to_string(epoch) + "/" + std::to_string(args.epochs));
    // The running loss stays on the device; the bar reads it every 20 steps, so a GPU is
    // not made to wait after each one.
    Tensor loss_acc = nabla::zeros({}, nabla::TensorOptions(nabla::kDouble).device(device));
    double loss_sum = 0;
    int64_t step = 0;
    for (auto& batch : *loader) {
      if (step == steps) break;
      Tensor x = batch.data.to(device, batch.data.scalar_type(), /*non_blocking=*/true);
      Tensor y = batch.target.to(device, batch.target.scalar_type(), /*non_blocking=*/true);
      optimizer.zero_grad();
      Tensor loss = F::cross_entropy(model.forward(x), y);
      loss.backward();
      optimizer.step();
      loss_acc += loss.detach();
      ++step;
      if (step % 20 == 0 || step == steps) {
        loss_sum = loss_acc.item<double>();
        bar.set_postfix("loss=" + fmt("%.4f", loss_sum / static_cast<double>(step)));
      }
      bar.update();
    }
    loss_sum = loss_acc.item<double>();
    bar.close();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    last = evaluate(model, root, device);
    train_losses.push_back(loss_sum / static_cast<double>(std::max<int64_t>(step, 1)));
    test_losses.push_back(last.loss);
    test_accs.push_back(last.accuracy);
    epoch_seconds.push_back(seconds);
    last_checkpoint = args.out + "/checkpoint-epoch" + std::to_string(epoch) + ".safetensors";
    save_checkpoint(last_checkpoint, args, model, optimizer, epoch);
    std::cout << "epoch " << epoch << ": train loss " << fmt("%.4f", train_losses.back())
              << ", test loss " << fmt("%.4f", last.loss) << ", test accuracy "
              << fmt("%.4f", last.accuracy) << ", " << fmt("%.1f", seconds) << " s ("
              << fmt("%.2f", 1000 * seconds / static_cast<double>(step)) << " ms/step), saved "
              << last_checkpoint << "\n";
    nabla::utils::plot_svg(args.out + "/curves.svg",
                           {{"train loss", train_losses},
                            {"test loss", test_losses},
                            {"test accuracy", test_accs, true}},
                           nabla::utils::PlotOptions()
                               .title("Fashion-MNIST, " + args.model)
                               .x_label("epoch")
                               .y_label("loss")
                               .right_label("accuracy"));
  }
  if (last_checkpoint.empty()) {
    std::cout << "nothing to train (epoch " << first_epoch << " > --epochs " << args.epochs
              << ")\n";
    return 0;
  }
  double total = 0;
  for (double s : epoch_seconds) total += s;
  std::cout << "\nsummary: " << args.model << ", " << epoch_seconds.size()
            << " epochs, final test accuracy " << fmt("%.4f", last.accuracy) << ", "
            << fmt("%.1f", total / static_cast<double>(epoch_seconds.size()))
            << " s/epoch\n  checkpoint: " << last_checkpoint << "\n  curves: " << args.out
            << "/curves.svg\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  try {
    return run(args);
  } catch (const nabla::Error& e) {
    std::cerr << "fashion_mnist: " << e.what() << "\n";
    return 1;
  }
}
