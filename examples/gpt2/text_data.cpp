#include "text_data.h"

#include <nabla/models.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>

using nabla::Tensor;

TokenData load_text(std::vector<std::string> files) {
  std::string source = "text files";
  if (files.empty()) {
    const std::string dir = "/usr/share/common-licenses";
    NABLA_CHECK(std::filesystem::is_directory(dir), "gpt2: ", dir,
                " is missing (Debian's base-files ships it); give text with --text FILE");
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.is_regular_file()) files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());  // directory order is not stable
    source = dir;
  }
  std::string bytes;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    NABLA_CHECK(in.good(), "gpt2: cannot read '", f, "'");
    bytes.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto n = static_cast<int64_t>(bytes.size());
  NABLA_CHECK(n >= 1000, "gpt2: the text has ", n, " bytes; at least 1000 are needed");
  Tensor all = nabla::empty({n}, nabla::kLong);
  auto* p = all.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(bytes[size_t(i)]);
  const int64_t n_val = n / 10;
  return {all.narrow(0, 0, n - n_val), all.narrow(0, n - n_val, n_val), 256,
          std::to_string(files.size()) + " files of " + source + ", " + std::to_string(n) +
              " bytes (byte-level tokens)"};
}

TokenData load_token_files(const std::string& train, const std::string& val) {
  Tensor t = nabla::models::load_llmc_tokens(train), v = nabla::models::load_llmc_tokens(val);
  return {t, v, 50257,
          "llm.c token files " + train + " (" + std::to_string(t.numel()) + " tokens) and " + val +
              " (" + std::to_string(v.numel()) + ")"};
}

namespace {

// Windows of block + 1 tokens starting at `starts`: (inputs, targets).
std::pair<Tensor, Tensor> windows(const Tensor& tokens, const std::vector<int64_t>& starts,
                                  int64_t block) {
  std::vector<Tensor> rows;
  rows.reserve(starts.size());
  for (int64_t s : starts) rows.push_back(tokens.narrow(0, s, block + 1));
  Tensor w = nabla::stack(rows);
  return {w.narrow(1, 0, block), w.narrow(1, 1, block)};
}

void check_length(const Tensor& tokens, int64_t block) {
  NABLA_CHECK(tokens.numel() > block + 1, "gpt2: ", tokens.numel(),
              " tokens are too few for windows of ", block + 1, " (reduce --block)");
}

}  // namespace

std::pair<Tensor, Tensor> random_batch(const Tensor& tokens, int64_t batch, int64_t block) {
  check_length(tokens, block);
  Tensor offsets = nabla::randint(0, tokens.numel() - block, {batch});
  const auto* o = offsets.data_ptr<int64_t>();
  return windows(tokens, std::vector<int64_t>(o, o + batch), block);
}

std::pair<Tensor, Tensor> fixed_batch(const Tensor& tokens, int64_t i, int64_t batch,
                                      int64_t block) {
  check_length(tokens, block);
  const int64_t per_stream = (tokens.numel() - 1) / block;  // whole windows in the stream
  std::vector<int64_t> starts;
  for (int64_t b = 0; b < batch; ++b) starts.push_back(((i * batch + b) % per_stream) * block);
  return windows(tokens, starts, block);
}

Detokenizer::Detokenizer(int64_t vocab_size, const std::string& tokenizer_file)
    : vocab_size_(vocab_size) {
  if (tokenizer_file.empty()) return;
  // llm.c's tokenizer file: 256 uint32 (magic 20240328, version 1 or 2, vocabulary size,
  // end-of-text id for version 2), then per token a length byte and that many bytes.
  std::ifstream in(tokenizer_file, std::ios::binary);
  NABLA_CHECK(in.good(), "gpt2: cannot read the tokenizer '", tokenizer_file, "'");
  uint32_t header[256] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  NABLA_CHECK(in.good() && header[0] == 20240328 && (header[1] == 1 || header[1] == 2), "gpt2: '",
              tokenizer_file, "' is not an llm.c tokenizer file (magic 20240328, ",
              "version 1 or 2)");
  NABLA_CHECK(header[2] == uint32_t(vocab_size), "gpt2: the tokenizer has ", header[2],
              " tokens, the data ", vocab_size);
  if (header[1] == 2) eot_ = header[3];
  pieces_.resize(header[2]);
  for (auto& piece : pieces_) {
    unsigned char length = 0;
    in.read(reinterpret_cast<char*>(&length), 1);
    piece.resize(length);
    in.read(piece.data(), length);
    NABLA_CHECK(in.good() && length > 0, "gpt2: the tokenizer '", tokenizer_file, "' is truncated");
  }
}

std::string Detokenizer::decode(const Tensor& tokens) const {
  Tensor flat = tokens.contiguous().view({-1});
  const auto* t = flat.data_ptr<int64_t>();
  std::string out;
  for (int64_t i = 0; i < flat.numel(); ++i) {
    if (vocab_size_ == 256) {
      const auto c = static_cast<unsigned char>(t[i]);
      out += (std::isprint(c) || std::isspace(c)) ? static_cast<char>(c) : '?';
    } else if (!pieces_.empty()) {
      out += pieces_[size_t(t[i])];
    } else {
      out += "[" + std::to_string(t[i]) + "]";
    }
  }
  return out;
}

Tensor Detokenizer::encode_prompt(const std::string& prompt) const {
  if (vocab_size_ != 256) return nabla::full({1, 1}, eot_, nabla::kLong);
  if (prompt.empty()) return nabla::full({1, 1}, int64_t('\n'), nabla::kLong);
  Tensor t = nabla::empty({1, int64_t(prompt.size())}, nabla::kLong);
  for (size_t i = 0; i < prompt.size(); ++i)
    t.data_ptr<int64_t>()[i] = static_cast<unsigned char>(prompt[i]);
  return t;
}
