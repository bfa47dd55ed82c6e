#pragma once
// The training loop shared by the crash test (tests/io/crash_safe/test_crash_safe_save.cpp)
// and the writer it kills (checkpoint_writer.cpp): a tiny model and its Adam state,
// trained by a deterministic step, so the test can recompute what any step saved and
// compare a checkpoint bit for bit.
#include <nabla/nabla.h>

#include <cstdint>
#include <string>

namespace crash_safe {

struct Trainer {
  Trainer()
      : model(init_model()), optimizer(model->parameters(), nabla::optim::AdamOptions(0.01)) {}

  nabla::nn::Linear model;
  nabla::optim::Adam optimizer;
  int64_t step = 0;

 private:
  // float64: float32 products take oneDNN, whose kernel JIT costs each fresh process
  // more than the rest of its run.
  static nabla::nn::Linear init_model() {
    nabla::manual_seed(7);
    nabla::nn::Linear linear(4, 3);
    linear->to(nabla::kDouble);
    return linear;
  }
};

/// One optimizer step; its data depends only on the step number.
inline void train_step(Trainer& t) {
  ++t.step;
  const double s = static_cast<double>(t.step % 11) - 5;
  nabla::Tensor x = nabla::arange(8, nabla::kDouble).view({2, 4}) * (0.1 * s);
  nabla::Tensor y = nabla::arange(6, nabla::kDouble).view({2, 3}) * 0.05 - s * 0.01;
  t.optimizer.zero_grad();
  nabla::mse_loss(t.model(x), y).backward();
  t.optimizer.step();
}

/// The checkpoint of `t`, laid out as the training example writes one (model, optimizer
/// and step in one file).
inline nabla::serialize::OutputArchive checkpoint_of(const Trainer& t) {
  nabla::serialize::OutputArchive archive, model_archive, optim_archive;
  t.model->save(model_archive);
  t.optimizer.save(optim_archive);
  archive.write("model", model_archive);
  archive.write("optimizer", optim_archive);
  archive.write("step", t.step);
  return archive;
}

inline void load_checkpoint(Trainer& t, const std::string& path) {
  nabla::serialize::InputArchive archive, model_archive, optim_archive;
  archive.load_from(path);
  archive.read("model", model_archive);
  t.model->load(model_archive);
  archive.read("optimizer", optim_archive);
  t.optimizer.load(optim_archive);
  archive.read("step", t.step);
}

}  // namespace crash_safe
