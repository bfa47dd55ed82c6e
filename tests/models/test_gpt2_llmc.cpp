// llm.c's files (models::load_llmc_checkpoint, load_llmc_tokens), written here in llm.c's
// layout (train_gpt2.py's write_model, dev/data's write_datafile): a checkpoint of a small
// GPT-2 with a padded vocabulary loads into the same weights; bad headers and lengths are
// errors naming the file.
#include <nabla/models.h>

#include "test_util.h"

namespace nabla::testing {
namespace {

using models::GPT2;
using models::GPT2BlockImpl;

void write_ints(std::ofstream& out, std::vector<int32_t> header) {
  header.resize(256, 0);
  out.write(reinterpret_cast<const char*>(header.data()), 256 * 4);
}

void write_floats(std::ofstream& out, const Tensor& t) {
  const Tensor c = t.detach().to(kFloat).contiguous();
  out.write(reinterpret_cast<const char*>(c.data_ptr<float>()), c.numel() * 4);
}

// model in llm.c's float32 checkpoint layout, wte padded to vp rows with junk; `header`
// overrides the first header words.
std::string write_llmc_checkpoint(const GPT2& model, int32_t vp, const std::string& name,
                                  std::vector<int32_t> header = {}) {
  const auto& c = model->config();
  std::vector<int32_t> words = {20240326,
                                3,
                                int32_t(c.block_size),
                                int32_t(c.vocab_size),
                                int32_t(c.n_layer),
                                int32_t(c.n_head),
                                int32_t(c.n_embd),
                                vp};
  for (size_t i = 0; i < header.size(); ++i) words[i] = header[i];
  const std::string path = temp_path(name);
  std::ofstream out(path, std::ios::binary);
  write_ints(out, words);
  const auto& t = *model->transformer;
  write_floats(out, t.wte->weight);
  if (vp > c.vocab_size) write_floats(out, full({vp - c.vocab_size, c.n_embd}, 123.0));
  write_floats(out, t.wpe->weight);
  for (const char* kind :
       {"ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight",
        "attn.c_proj.bias", "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias",
        "mlp.c_proj.weight", "mlp.c_proj.bias"})
    for (size_t i = 0; i < t.h->size(); ++i)
      write_floats(out, t.h->ptr<GPT2BlockImpl>(i)->named_parameters()[kind]);
  write_floats(out, t.ln_f->weight);
  write_floats(out, t.ln_f->bias);
  return path;
}

TEST(LlmC, CheckpointLoadsTheSameWeights) {
  manual_seed(0);
  GPT2 source(models::GPT2Config{2, 2, 32, 65, 16});
  for (auto& p : source->parameters()) {
    NoGradGuard no_grad;
    p.uniform_(-1, 1);  // LayerNorms and biases away from 1 and 0 as well
  }
  GPT2 model = models::load_llmc_checkpoint(write_llmc_checkpoint(source, 128, "llmc.bin"));
  EXPECT_EQ(model->config().vocab_size, 65);  // V, not the padded 128
  EXPECT_EQ(model->config().block_size, 16);
  const auto mine = model->named_parameters();
  for (const auto& item : source->named_parameters())
    EXPECT_TRUE(mine[item.key()].equal(item.value())) << item.key();
  NoGradGuard no_grad;
  const Tensor idx = randint(0, 65, {2, 9});
  EXPECT_TRUE(model(idx).equal(source(idx)));
}

TEST(LlmC, CheckpointErrorsNameTheFileAndTheProblem) {
  GPT2 source(models::GPT2Config{1, 2, 8, 10, 4});
  expect_error(
      [&] { models::load_llmc_checkpoint(write_llmc_checkpoint(source, 16, "m.bin", {1})); },
      {"m.bin", "magic number 1, expected 20240326"});
  expect_error(
      [&] {
        models::load_llmc_checkpoint(write_llmc_checkpoint(source, 16, "v.bin", {20240326, 5}));
      },
      {"v.bin", "version 5, expected 3"});
  // A header that promises more layers than the file holds.
  expect_error(
      [&] {
        models::load_llmc_checkpoint(
            write_llmc_checkpoint(source, 16, "l.bin", {20240326, 3, 4, 10, 2}));
      },
      {"l.bin", "bytes, but its header", "L 2"});
  expect_error([&] { models::load_llmc_checkpoint(write_llmc_checkpoint(source, 8, "p.bin")); },
               {"p.bin", "invalid header", "Vp 8"});
  expect_error([&] { models::load_llmc_checkpoint(temp_path("absent.bin")); }, {"absent.bin"});
}

std::string write_llmc_tokens(const std::vector<uint16_t>& tokens, const std::string& name,
                              std::vector<int32_t> header) {
  const std::string path = temp_path(name);
  std::ofstream out(path, std::ios::binary);
  write_ints(out, header);
  out.write(reinterpret_cast<const char*>(tokens.data()), tokens.size() * 2);
  return path;
}

TEST(LlmC, TokensAsInt64) {
  const std::vector<uint16_t> tokens = {50256, 0, 7, 65535, 12};
  const Tensor t = models::load_llmc_tokens(write_llmc_tokens(tokens, "t.bin", {20240520, 1, 5}));
  EXPECT_EQ(t.scalar_type(), kLong);
  EXPECT_EQ(values(t), (std::vector<double>{50256, 0, 7, 65535, 12}));
  EXPECT_EQ(models::load_llmc_tokens(write_llmc_tokens({}, "e.bin", {20240520, 1, 0})).numel(), 0);
  expect_error(
      [&] {
        models::load_llmc_tokens(write_llmc_tokens(tokens, "tm.bin", {20240326, 1, 5}));
      },
      {"tm.bin", "magic number 20240326, expected 20240520"});
  expect_error(
      [&] {
        models::load_llmc_tokens(write_llmc_tokens(tokens, "tv.bin", {20240520, 7, 5}));
      },
      {"tv.bin", "version 7, expected 1"});
  expect_error(
      [&] {
        models::load_llmc_tokens(write_llmc_tokens(tokens, "tn.bin", {20240520, 1, 6}));
      },
      {"tn.bin", "6 uint16 tokens"});
}

}  // namespace
}  // namespace nabla::testing
