// nabla::models::GPT2 against nanoGPT: its state_dict keys, loading nanoGPT's files (the
// tied lm_head.weight and the attn.bias masks), and, with python3-torch, a small GPT-2
// written in plain PyTorch (tests/models/gpt2_torch.py): the loss, every gradient and ten
// AdamW steps agree, and nabla's saved weights load back into PyTorch. Generation with the
// key/value cache gives the tokens of recomputing the whole prefix.
#include <nabla/models.h>

#include <cstdlib>

#include "test_util.h"

namespace nabla::testing {
namespace {

using models::GPT2;
using models::GPT2Config;

// 2 layers, 2 heads, 32 channels, vocabulary 65, block 16: gpt2_torch.py's model.
const GPT2Config kSmall{2, 2, 32, 65, 16};

// nanoGPT's parameter names, in its order (its state_dict less lm_head and the masks).
std::vector<std::string> nanogpt_parameter_names(int64_t n_layer) {
  std::vector<std::string> names = {"transformer.wte.weight", "transformer.wpe.weight"};
  for (int64_t i = 0; i < n_layer; ++i)
    for (const char* p :
         {"ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias",
          "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight",
          "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"})
      names.push_back(str("transformer.h.", i, ".", p));
  names.push_back("transformer.ln_f.weight");
  names.push_back("transformer.ln_f.bias");
  return names;
}

// An archive of the model's parameters as nanoGPT's torch.save(state_dict) holds them,
// with its tied head and causal masks where asked.
serialize::OutputArchive nanogpt_state(const GPT2& model, bool head, bool masks) {
  serialize::OutputArchive archive;
  for (const auto& item : model->named_parameters()) archive.write(item.key(), item.value());
  if (head) archive.write("lm_head.weight", model->transformer->wte->weight);
  const int64_t t = model->config().block_size;
  if (masks)
    for (int64_t i = 0; i < model->config().n_layer; ++i)
      archive.write(str("transformer.h.", i, ".attn.bias"), ones({t, t}).tril().view({1, 1, t, t}),
                    /*is_buffer=*/true);
  return archive;
}

void expect_same_parameters(const GPT2& a, const GPT2& b) {
  const auto mine = a->named_parameters();
  const auto theirs = b->named_parameters();
  ASSERT_EQ(mine.size(), theirs.size());
  for (const auto& item : mine) EXPECT_TRUE(item.value().equal(theirs[item.key()])) << item.key();
}

TEST(GPT2, ParameterNamesAreNanoGPTs) {
  GPT2 model(kSmall);
  EXPECT_EQ(model->named_parameters().keys(), nanogpt_parameter_names(2));
  EXPECT_TRUE(model->named_buffers().is_empty());
  // The tied head is wte itself: counted once, as PyTorch's parameters() counts it.
  int64_t count = 0;
  for (const auto& p : model->parameters()) count += p.numel();
  const int64_t c = 32;
  EXPECT_EQ(count, 65 * c + 16 * c + 2 * (12 * c * c + 13 * c) + 2 * c);
  EXPECT_EQ(shape(model->transformer->h->ptr<models::GPT2BlockImpl>(1)->attn->c_attn->weight),
            (std::vector<int64_t>{3 * c, c}));
}

TEST(GPT2, ConfigDefaultsAreGPT2Small) {
  const GPT2Config config;
  EXPECT_EQ(config.n_layer, 12);
  EXPECT_EQ(config.n_head, 12);
  EXPECT_EQ(config.n_embd, 768);
  EXPECT_EQ(config.vocab_size, 50257);
  EXPECT_EQ(config.block_size, 1024);
  EXPECT_EQ(config.dropout, 0.0);
  expect_error([] { GPT2(GPT2Config{2, 3, 32, 65, 16}); }, {"multiple of n_head"});
}

TEST(GPT2, InitialisationIsNanoGPTs) {
  manual_seed(0);
  GPT2 model(GPT2Config{4, 2, 64, 500, 64});
  auto std_of = [&](const std::string& name) {
    return model->named_parameters()[name].std().item<double>();
  };
  EXPECT_NEAR(std_of("transformer.wte.weight"), 0.02, 0.001);
  EXPECT_NEAR(std_of("transformer.h.0.mlp.c_fc.weight"), 0.02, 0.001);
  EXPECT_NEAR(std_of("transformer.h.3.mlp.c_proj.weight"), 0.02 / std::sqrt(8.0), 0.001);
  EXPECT_NEAR(std_of("transformer.h.2.attn.c_proj.weight"), 0.02 / std::sqrt(8.0), 0.001);
  EXPECT_TRUE(
      model->named_parameters()["transformer.h.1.attn.c_attn.bias"].eq(0).all().item<bool>());
  EXPECT_TRUE(model->named_parameters()["transformer.h.1.ln_2.weight"].eq(1).all().item<bool>());
}

TEST(GPT2, ForwardShapesAndLengthLimit) {
  GPT2 model(kSmall);
  EXPECT_EQ(shape(model(randint(0, 65, {3, 16}))), (std::vector<int64_t>{3, 16, 65}));
  EXPECT_EQ(shape(model(randint(0, 65, {1, 1}))), (std::vector<int64_t>{1, 1, 65}));
  expect_error([&] { model(randint(0, 65, {1, 17})); }, {"sequence length 17", "block_size 16"});
  expect_error([&] { model(randn({1, 4})); }, {"int64 token ids"});
}

TEST(GPT2, LoadsNanoGPTFilesWithAndWithoutTiedHeadAndMasks) {
  manual_seed(0);
  GPT2 source(kSmall);
  for (bool head : {false, true})
    for (bool masks : {false, true}) {
      const std::string path = temp_path(str("nanogpt_", head, masks, ".pt"));
      nanogpt_state(source, head, masks).save_to(path);
      GPT2 model(kSmall);
      nabla::load(model, path);  // strict
      expect_same_parameters(model, source);
    }
  // A head that is not wte cannot be tied.
  serialize::OutputArchive bad;
  for (const auto& item : source->named_parameters()) bad.write(item.key(), item.value());
  bad.write("lm_head.weight", source->transformer->wte->weight + 1);
  bad.save_to(temp_path("nanogpt_untied.pt"));
  GPT2 model(kSmall);
  expect_error([&] { nabla::load(model, temp_path("nanogpt_untied.pt")); },
               {"lm_head.weight", "transformer.wte.weight", "tied"});
}

TEST(GPT2, SaveWritesTheTiedHeadAndLoadsBack) {
  manual_seed(0);
  GPT2 source(kSmall);
  const std::string path = temp_path("gpt2_saved.pt");
  nabla::save(source, path);
  serialize::InputArchive archive;
  archive.load_from(path);
  auto keys = nanogpt_parameter_names(2);
  keys.push_back("lm_head.weight");
  EXPECT_EQ(archive.keys(), keys);
  GPT2 model(kSmall);
  nabla::load(model, path);
  expect_same_parameters(model, source);
  // clone() copies every tensor too.
  auto copy = std::dynamic_pointer_cast<models::GPT2Impl>(source->clone());
  ASSERT_NE(copy, nullptr);
  expect_same_parameters(GPT2(copy), source);
  EXPECT_FALSE(copy->transformer->wte->weight.is_same(source->transformer->wte->weight));
}

// Greedy decoding as nanoGPT's generate: the whole (cropped) context every step.
Tensor greedy_without_cache(GPT2& model, Tensor idx, int64_t steps) {
  NoGradGuard no_grad;
  const int64_t block = model->config().block_size;
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t t = idx.size(1);
    const Tensor logits = model(t > block ? idx.narrow(1, t - block, block) : idx);
    idx = cat({idx, logits.select(1, logits.size(1) - 1).argmax(-1, true)}, 1);
  }
  return idx;
}

TEST(GPT2, CachedGenerationEqualsRecomputingThePrefix) {
  manual_seed(0);
  GPT2 model(kSmall);
  model->eval();
  const Tensor prompt = randint(0, 65, {2, 5});
  // 5 + 30 tokens pass block_size 16: the cache is rebuilt from the cropped context there.
  const Tensor cached = model->generate(prompt, 30, /*temperature=*/0);
  EXPECT_EQ(shape(cached), (std::vector<int64_t>{2, 35}));
  EXPECT_TRUE(cached.equal(greedy_without_cache(model, prompt, 30)));
  EXPECT_TRUE(cached.narrow(1, 0, 5).equal(prompt));
  // Only the most likely token is left with top_k = 1: sampling gives the greedy tokens.
  EXPECT_TRUE(model->generate(prompt, 30, 1.0, 1).equal(cached));
  EXPECT_TRUE(model->generate(prompt, 0).equal(prompt));
}

TEST(GPT2, SamplingDrawsFromTheDefaultGenerator) {
  GPT2 model(kSmall);
  model->eval();
  const Tensor prompt = zeros({3, 2}, kLong);
  manual_seed(7);
  const Tensor a = model->generate(prompt, 12, 1.5, 10);
  manual_seed(7);
  const Tensor b = model->generate(prompt, 12, 1.5, 10);
  EXPECT_TRUE(a.equal(b));
  EXPECT_TRUE(a.ge(0).all().item<bool>() && a.lt(65).all().item<bool>());
  expect_error([&] { model->generate(prompt, 2, -1.0); }, {"temperature"});
  expect_error([&] { model->generate(prompt, 2, 1.0, 0); }, {"top_k"});
}

// ---- Against PyTorch (gpt2_torch.py) ----

std::string run_gpt2_torch(const std::string& mode) {
  const std::string dir = temp_path("gpt2_torch");
  std::filesystem::create_directories(dir);
  const std::string cmd =
      torch_python() + " " + NABLA_TEST_SOURCE_DIR + "/models/gpt2_torch.py " + mode + " " + dir;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return dir;
}

Tensor read_entry(serialize::InputArchive& archive, const std::string& key) {
  Tensor t;
  archive.read(key, t);
  return t;
}

// max |a - b| relative to b's largest magnitude.
double gpt2_relative_error(const Tensor& a, const Tensor& b) {
  return (a - b).abs().max().item<double>() / b.abs().max().item<double>();
}

Tensor gpt2_loss(GPT2& model, const Tensor& x, const Tensor& y) {
  return nn::functional::cross_entropy(model(x).view({-1, model->config().vocab_size}),
                                       y.view({-1}));
}

TEST(GPT2FromPyTorch, LossGradientsAdamWAndSaveBack) {
  NABLA_REQUIRE_TORCH_PYTHON();
  const std::string dir = run_gpt2_torch("make");
  GPT2 model(kSmall);
  nabla::load(model, dir + "/gpt2.pt");  // with lm_head.weight and the attn.bias masks
  serialize::InputArchive ref;
  ref.load_from(dir + "/gpt2_ref.pt");
  const Tensor x = read_entry(ref, "x"), y = read_entry(ref, "y");

  const Tensor loss = gpt2_loss(model, x, y);
  const double loss_error =
      std::abs(loss.item<double>() / read_entry(ref, "loss").item<double>() - 1);
  EXPECT_LT(loss_error, 1e-4);
  loss.backward();
  double grad_error = 0;
  for (const auto& item : model->named_parameters()) {
    const Tensor want = read_entry(ref, "grads." + item.key());
    ASSERT_TRUE(item.value().grad().defined()) << item.key();
    const double err = gpt2_relative_error(item.value().grad(), want);
    EXPECT_LT(err, 1e-4) << item.key();
    grad_error = std::max(grad_error, err);
  }

  optim::AdamW opt(model->parameters(),
                   optim::AdamWOptions(1e-3).betas({0.9, 0.95}).weight_decay(0.1));
  const Tensor want_losses = read_entry(ref, "losses");
  double step_error = 0;
  for (int64_t step = 0; step < 10; ++step) {
    opt.zero_grad();
    const Tensor step_loss = gpt2_loss(model, x, y);
    step_loss.backward();
    opt.step();
    const double err = std::abs(step_loss.item<double>() / want_losses[step].item<double>() - 1);
    EXPECT_LT(err, 1e-4) << "step " << step;
    step_error = std::max(step_error, err);
  }
  std::cout << "gpt2 vs PyTorch, relative: loss " << loss_error << ", gradients (max over "
            << "parameters) " << grad_error << ", ten AdamW losses " << step_error << "\n";

  // The trained weights back into PyTorch: strictly into a model without mask buffers,
  // and with masks reported missing only.
  nabla::save(model, dir + "/nabla_gpt2.pt");
  NoGradGuard no_grad;
  nabla::save(model(x), dir + "/nabla_gpt2_logits.pt");
  run_gpt2_torch("check");
}

}  // namespace
}  // namespace nabla::testing
