// Trains a GPT-2 (nabla::models::GPT2) from scratch with AdamW, with a progress bar showing
// the loss and tokens per second; measures the validation loss and saves a checkpoint
// (model, AdamW state, step and generator: one safetensors file) every --eval-every steps;
// then saves the model in PyTorch's state_dict format (OUT/model.pt, which a nanoGPT-style
// model loads) and prints a sample.
//   gpt2                                       byte-level text from /usr/share/common-licenses
//   gpt2 --text book.txt --steps 5000          any text, byte-level tokens
//   gpt2 --train-tokens tiny_shakespeare_train.bin --val-tokens tiny_shakespeare_val.bin
//        --tokenizer gpt2_tokenizer.bin        llm.c's files: GPT-2's 50,257 tokens
//   gpt2 --resume runs/gpt2/checkpoint.safetensors --steps 2000
//   gpt2 --sample-from runs/gpt2/checkpoint.safetensors --prompt "The "
#include <nabla/models.h>
#include <nabla/nabla.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "args.h"
#include "text_data.h"

namespace F = nabla::nn::functional;
using nabla::Tensor;
using nabla::models::GPT2;
using nabla::models::GPT2Config;

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

Tensor lm_loss(GPT2& model, const Tensor& x, const Tensor& y) {
  Tensor logits = model(x);
  return F::cross_entropy(logits.view({-1, logits.size(-1)}), y.reshape({-1}));
}

double validation_loss(GPT2& model, const TokenData& data, const Args& args) {
  nabla::NoGradGuard no_grad;
  model->eval();
  const int64_t block = model->config().block_size;
  double sum = 0;
  for (int64_t i = 0; i < args.eval_batches; ++i) {
    auto [x, y] = fixed_batch(data.val, i, args.batch, block);
    sum += lm_loss(model, x, y).item<double>();
  }
  model->train();
  return sum / static_cast<double>(args.eval_batches);
}

// Warm-up, then cosine decay to a tenth of the peak at the last step (nanoGPT's schedule).
double learning_rate(const Args& args, int64_t step) {
  if (step < args.warmup) return args.lr * static_cast<double>(step + 1) / double(args.warmup);
  const double span = std::max<double>(1.0, double(args.steps - args.warmup));
  const double progress = std::min(1.0, double(step - args.warmup) / span);
  return args.lr * (0.1 + 0.9 * 0.5 * (1.0 + std::cos(M_PI * progress)));
}

const char* const kConfigKeys[] = {"n_layer", "n_head", "n_embd", "vocab_size", "block_size"};

void save_checkpoint(const std::string& path, GPT2& model, const nabla::optim::AdamW& optimizer,
                     int64_t step) {
  nabla::serialize::OutputArchive archive, model_archive, optim_archive;
  model->save(model_archive);
  optimizer.save(optim_archive);
  archive.write("model", model_archive);
  archive.write("optimizer", optim_archive);
  archive.write("step", step);
  const GPT2Config& c = model->config();
  const int64_t values[] = {c.n_layer, c.n_head, c.n_embd, c.vocab_size, c.block_size};
  for (size_t i = 0; i < 5; ++i) archive.write(std::string("config.") + kConfigKeys[i], values[i]);
  archive.write("config.dropout", c.dropout);
  // The generator, so a resumed run draws the batches an uninterrupted one would.
  archive.write("rng.state", nabla::default_generator().get_state());
  archive.save_to(path);
}

// The checkpoint's model; with `optimizer`, its AdamW state and the generator too. Returns
// the step it was saved at.
int64_t load_checkpoint(const std::string& path, GPT2& model,
                        std::unique_ptr<nabla::optim::AdamW>* optimizer,
                        const std::function<std::unique_ptr<nabla::optim::AdamW>(GPT2&)>& make) {
  nabla::serialize::InputArchive archive;
  archive.load_from(path);
  GPT2Config c;
  int64_t* fields[] = {&c.n_layer, &c.n_head, &c.n_embd, &c.vocab_size, &c.block_size};
  for (size_t i = 0; i < 5; ++i) archive.read(std::string("config.") + kConfigKeys[i], *fields[i]);
  archive.read("config.dropout", c.dropout);
  model = GPT2(c);
  nabla::serialize::InputArchive model_archive;
  archive.read("model", model_archive);
  model->load(model_archive);
  int64_t step = 0;
  archive.read("step", step);
  if (optimizer) {
    *optimizer = make(model);
    nabla::serialize::InputArchive optim_archive;
    archive.read("optimizer", optim_archive);
    (*optimizer)->load(optim_archive);
    Tensor rng_state;
    archive.read("rng.state", rng_state);
    nabla::default_generator().set_state(rng_state);
  }
  return step;
}

// AdamW with nanoGPT's groups: weight decay on matrices (Linear and embedding weights),
// none on biases and LayerNorms.
std::unique_ptr<nabla::optim::AdamW> make_optimizer(GPT2& model, const Args& args) {
  std::vector<Tensor> decay, no_decay;
  for (const auto& p : model->parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
  auto options = [&](double wd) {
    return std::make_unique<nabla::optim::AdamWOptions>(
        nabla::optim::AdamWOptions(args.lr).betas({0.9, 0.95}).weight_decay(wd));
  };
  std::vector<nabla::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, options(args.weight_decay));
  groups.emplace_back(no_decay, options(0.0));
  return std::make_unique<nabla::optim::AdamW>(std::move(groups));
}

void print_sample(GPT2& model, const Detokenizer& tokens, const Args& args) {
  if (args.sample_tokens == 0) return;
  model->eval();
  const Tensor prompt = tokens.encode_prompt(args.prompt);
  const Tensor out =
      model->generate(prompt, args.sample_tokens, args.temperature,
                      args.top_k > 0 ? nabla::optional<int64_t>(args.top_k) : nabla::nullopt);
  model->train();
  std::cout << "---- sample (" << args.sample_tokens << " tokens, temperature " << args.temperature
            << ", top-k " << args.top_k << ") ----\n"
            << tokens.decode(out) << "\n----\n";
}

int run(const Args& args) {
  if (args.threads > 0) nabla::set_num_threads(args.threads);
  nabla::manual_seed(args.seed);
  std::cout << nabla::show_config();
  const TokenData data = args.train_tokens.empty()
                             ? load_text(args.text)
                             : load_token_files(args.train_tokens, args.val_tokens);
  std::cout << "data: " << data.description << "; " << data.train.numel() << " for training, "
            << data.val.numel() << " for validation\n";
  const Detokenizer detokenizer(data.vocab_size, args.tokenizer);
  auto make = [&args](GPT2& m) { return make_optimizer(m, args); };

  GPT2 model(GPT2Config{args.layers, args.heads, args.channels, data.vocab_size, args.block,
                        args.dropout});
  if (!args.sample_from.empty()) {
    const int64_t step = load_checkpoint(args.sample_from, model, nullptr, make);
    NABLA_CHECK(model->config().vocab_size == data.vocab_size,
                "gpt2: the checkpoint's vocabulary (", model->config().vocab_size,
                ") is not the data's (", data.vocab_size, ")");
    std::cout << "checkpoint " << args.sample_from << " (step " << step << "): validation loss "
              << fmt("%.4f", validation_loss(model, data, args)) << "\n";
    print_sample(model, detokenizer, args);
    return 0;
  }
  std::unique_ptr<nabla::optim::AdamW> optimizer;
  int64_t first_step = 0;
  if (!args.resume.empty()) {
    first_step = load_checkpoint(args.resume, model, &optimizer, make);
    std::cout << "resumed from " << args.resume << " at step " << first_step
              << " (its model configuration, not the flags')\n";
  } else {
    optimizer = make(model);
  }
  NABLA_CHECK(model->config().vocab_size == data.vocab_size, "gpt2: the model's vocabulary (",
              model->config().vocab_size, ") is not the data's (", data.vocab_size, ")");
  const GPT2Config& c = model->config();
  int64_t n_params = 0;
  for (const auto& p : model->parameters()) n_params += p.numel();
  std::cout << "GPT-2: " << c.n_layer << " layers, " << c.n_head << " heads, " << c.n_embd
            << " channels, vocabulary " << c.vocab_size << ", block " << c.block_size << "; "
            << n_params << " parameters; batch " << args.batch << " x " << c.block_size
            << " tokens\n";
  std::filesystem::create_directories(args.out);
  const std::string checkpoint = args.out + "/checkpoint.safetensors";

  const int64_t tokens_per_step = args.batch * c.block_size;
  int64_t step = first_step;
  while (step < args.steps) {
    const int64_t stop = std::min(args.steps, (step / args.eval_every + 1) * args.eval_every);
    nabla::utils::ProgressBar bar(stop - step, "steps " + std::to_string(step + 1) + "-" +
                                                   std::to_string(stop) + "/" +
                                                   std::to_string(args.steps));
    const auto start = std::chrono::steady_clock::now();
    Tensor loss_acc = nabla::zeros({}, nabla::kDouble);
    const int64_t first = step;
    for (; step < stop; ++step) {
      for (auto& group : optimizer->param_groups())
        group.options().set_lr(learning_rate(args, step));
      auto [x, y] = random_batch(data.train, args.batch, c.block_size);
      optimizer->zero_grad();
      Tensor loss = lm_loss(model, x, y);
      loss.backward();
      nabla::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
      optimizer->step();
      loss_acc += loss.detach();
      const int64_t done = step + 1 - first;
      if (done % 10 == 0 || step + 1 == stop) {
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        bar.set_postfix("loss=" + fmt("%.3f", loss_acc.item<double>() / double(done)) +
                        " tok/s=" + fmt("%.0f", double(done * tokens_per_step) / seconds));
      }
      bar.update();
    }
    bar.close();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double val = validation_loss(model, data, args);
    save_checkpoint(checkpoint, model, *optimizer, step);
    std::cout << "step " << step << ": train loss "
              << fmt("%.4f", loss_acc.item<double>() / double(step - first)) << ", validation loss "
              << fmt("%.4f", val) << ", "
              << fmt("%.0f", double((step - first) * tokens_per_step) / seconds) << " tokens/s, "
              << fmt("%.1f", 1000 * seconds / double(step - first)) << " ms/step; saved "
              << checkpoint << "\n";
  }
  nabla::save(model, args.out + "/model.pt");
  std::cout << "model saved as " << args.out << "/model.pt (PyTorch's state_dict format)\n";
  print_sample(model, detokenizer, args);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  try {
    return run(args);
  } catch (const nabla::Error& e) {
    std::cerr << "gpt2: " << e.what() << "\n";
    return 1;
  }
}
