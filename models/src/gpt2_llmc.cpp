// llm.c's binary files (github.com/karpathy/llm.c): the float32 GPT-2 checkpoint that
// train_gpt2.py's write_model writes and train_gpt2.c reads, and the uint16 token files of
// dev/data (write_datafile). Both start with 256 little-endian int32.
#include <array>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "nabla/core/error.h"
#include "nabla/models/gpt2.h"
#include "nabla/ops/factories.h"

namespace nabla::models {
namespace {

constexpr int32_t kCheckpointMagic = 20240326;
constexpr int32_t kCheckpointVersion = 3;  // float32, padded vocabulary (5 is bfloat16)
constexpr int32_t kTokensMagic = 20240520;
constexpr int32_t kTokensVersion = 1;  // uint16 tokens (7 is llama-3's uint32)
constexpr int64_t kHeaderBytes = 256 * 4;

// An open file of a known size, read front to back; every problem names the file.
class Reader {
 public:
  Reader(const std::string& path, const char* op) : path_(path), op_(op) {
    // The files are raw little-endian words, read straight into tensors.
    NABLA_CHECK(std::endian::native == std::endian::little, op_,
                ": llm.c's files are little-endian; this machine is not");
    std::error_code ec;
    size_ = static_cast<int64_t>(std::filesystem::file_size(path, ec));
    NABLA_CHECK(!ec, op_, ": cannot read '", path, "': ", ec.message());
    in_.open(path, std::ios::binary);
    NABLA_CHECK(in_.good(), op_, ": cannot open '", path, "'");
    NABLA_CHECK(size_ >= kHeaderBytes, op_, ": '", path, "' is ", size_,
                " bytes, shorter than llm.c's 1024-byte header");
    read(header_.data(), kHeaderBytes);
  }

  int32_t header(size_t i) const { return header_[i]; }
  int64_t size() const { return size_; }

  // Fails unless the header's magic and version are the expected ones.
  void expect(int32_t magic, int32_t version, const char* what) const {
    NABLA_CHECK(header_[0] == magic, op_, ": '", path_, "' is not ", what, ": magic number ",
                header_[0], ", expected ", magic);
    NABLA_CHECK(header_[1] == version, op_, ": '", path_, "' has version ", header_[1],
                ", expected ", version, " (", what, ")");
  }

  // Fails unless the file holds exactly `expected` bytes (`layout` says why).
  void expect_size(int64_t expected, const std::string& layout) const {
    NABLA_CHECK(size_ == expected, op_, ": '", path_, "' is ", size_, " bytes, but its header (",
                layout, ") makes it ", expected);
  }

  void read(void* dst, int64_t bytes) {
    in_.read(static_cast<char*>(dst), bytes);
    NABLA_CHECK(in_.gcount() == bytes, op_, ": reading '", path_, "' failed");
  }
  void skip(int64_t bytes) {
    in_.seekg(bytes, std::ios::cur);
    NABLA_CHECK(in_.good(), op_, ": reading '", path_, "' failed");
  }
  // The next tensor.numel() float32 values into `tensor` (a contiguous float32 parameter).
  void read_into(const Tensor& tensor) {
    read(tensor.data_ptr<float>(), tensor.numel() * static_cast<int64_t>(sizeof(float)));
  }

 private:
  std::string path_;
  const char* op_;
  int64_t size_ = 0;
  std::ifstream in_;
  std::array<int32_t, 256> header_{};
};

// n += a * b * c ..., false on int64 overflow (a header of absurd sizes).
bool add_product(int64_t& n, std::initializer_list<int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims)
    if (__builtin_mul_overflow(product, d, &product)) return false;
  return !__builtin_add_overflow(n, product, &n);
}

}  // namespace

GPT2 load_llmc_checkpoint(const std::string& path) {
  const char* op = "load_llmc_checkpoint";
  Reader file(path, op);
  file.expect(kCheckpointMagic, kCheckpointVersion, "an llm.c float32 GPT-2 checkpoint");
  const int64_t max_t = file.header(2), v = file.header(3), l = file.header(4), nh = file.header(5),
                c = file.header(6), vp = file.header(7);
  const std::string layout =
      str("maxT ", max_t, ", V ", v, ", L ", l, ", NH ", nh, ", C ", c, ", Vp ", vp);
  NABLA_CHECK(max_t >= 1 && v >= 1 && l >= 1 && nh >= 1 && c >= 1 && vp >= v && c % nh == 0, op,
              ": '", path, "' has an invalid header: ", layout,
              " (all >= 1, Vp >= V, C a multiple of NH)");
  // wte, wpe, per layer: ln_1 (2C), c_attn (3C^2 + 3C), attn.c_proj (C^2 + C), ln_2 (2C),
  // c_fc (4C^2 + 4C), mlp.c_proj (4C^2 + C); ln_f (2C).
  int64_t floats = 0;
  const bool fits = add_product(floats, {vp, c}) && add_product(floats, {max_t, c}) &&
                    add_product(floats, {l, 12, c, c}) && add_product(floats, {l, 13, c}) &&
                    add_product(floats, {2, c});
  int64_t bytes = kHeaderBytes;
  NABLA_CHECK(fits && add_product(bytes, {floats, 4}), op, ": '", path,
              "' has an invalid header: ", layout, " (too large)");
  file.expect_size(bytes, layout);

  GPT2 model(GPT2Config{l, nh, c, v, max_t});
  GPT2TransformerImpl& t = *model->transformer;
  file.read_into(t.wte->weight);
  file.skip((vp - v) * c * static_cast<int64_t>(sizeof(float)));  // padding rows
  file.read_into(t.wpe->weight);
  // Then each kind of block tensor for all L layers before the next kind.
  using Pick = Tensor (*)(GPT2BlockImpl&);
  const std::array<Pick, 12> kinds = {
      [](GPT2BlockImpl& b) { return b.ln_1->weight; },
      [](GPT2BlockImpl& b) { return b.ln_1->bias; },
      [](GPT2BlockImpl& b) { return b.attn->c_attn->weight; },  // [3C, C]
      [](GPT2BlockImpl& b) { return b.attn->c_attn->bias; },
      [](GPT2BlockImpl& b) { return b.attn->c_proj->weight; },  // [C, C]
      [](GPT2BlockImpl& b) { return b.attn->c_proj->bias; },
      [](GPT2BlockImpl& b) { return b.ln_2->weight; },
      [](GPT2BlockImpl& b) { return b.ln_2->bias; },
      [](GPT2BlockImpl& b) { return b.mlp->c_fc->weight; },  // [4C, C]
      [](GPT2BlockImpl& b) { return b.mlp->c_fc->bias; },
      [](GPT2BlockImpl& b) { return b.mlp->c_proj->weight; },  // [C, 4C]
      [](GPT2BlockImpl& b) { return b.mlp->c_proj->bias; },
  };
  for (Pick pick : kinds)
    for (size_t i = 0; i < t.h->size(); ++i) file.read_into(pick(*t.h->ptr<GPT2BlockImpl>(i)));
  file.read_into(t.ln_f->weight);
  file.read_into(t.ln_f->bias);
  return model;
}

Tensor load_llmc_tokens(const std::string& path) {
  const char* op = "load_llmc_tokens";
  Reader file(path, op);
  file.expect(kTokensMagic, kTokensVersion, "an llm.c GPT-2 token file (uint16 tokens)");
  const int64_t count = file.header(2);
  NABLA_CHECK(count >= 0, op, ": '", path, "' has a negative token count ", count);
  file.expect_size(kHeaderBytes + 2 * count, str(count, " uint16 tokens"));
  std::vector<uint16_t> tokens(static_cast<size_t>(count));
  file.read(tokens.data(), 2 * count);
  Tensor out = empty({count}, kLong);
  int64_t* dst = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) dst[i] = tokens[static_cast<size_t>(i)];
  return out;
}

}  // namespace nabla::models
