#pragma once
// The gpt2 example's data: token streams for training and validation, batches drawn from
// them, and turning tokens back into text.
#include <nabla/nabla.h>

#include <string>
#include <utility>
#include <vector>

struct TokenData {
  nabla::Tensor train, val;  // int64 [n] token streams
  int64_t vocab_size = 0;
  std::string description;
};

/// Byte-level tokens (vocabulary 256) of the files, concatenated; the last tenth of the
/// bytes is the validation stream. No files: every file of /usr/share/common-licenses.
TokenData load_text(std::vector<std::string> files);

/// llm.c token files (GPT-2's vocabulary, 50,257 tokens).
TokenData load_token_files(const std::string& train, const std::string& val);

/// `batch` windows of block + 1 tokens at offsets drawn from the default generator:
/// inputs [batch, block] and next-token targets [batch, block].
std::pair<nabla::Tensor, nabla::Tensor> random_batch(const nabla::Tensor& tokens, int64_t batch,
                                                     int64_t block);

/// The i-th of consecutive non-overlapping batches of `tokens` (wrapping around), for a
/// validation loss that is the same every time it is measured.
std::pair<nabla::Tensor, nabla::Tensor> fixed_batch(const nabla::Tensor& tokens, int64_t i,
                                                    int64_t batch, int64_t block);

/// Turns tokens into text: bytes (vocabulary 256) as they are, GPT-2 tokens through llm.c's
/// tokenizer file when one is given, else as numbers.
class Detokenizer {
 public:
  Detokenizer(int64_t vocab_size, const std::string& tokenizer_file);
  std::string decode(const nabla::Tensor& tokens) const;
  /// The prompt's tokens ([1, n] int64): its bytes for byte-level text; GPT-2's
  /// end-of-text token otherwise (the example does not encode text into GPT-2 tokens).
  nabla::Tensor encode_prompt(const std::string& prompt) const;

 private:
  int64_t vocab_size_;
  std::vector<std::string> pieces_;  // llm.c's token table, when read
  int64_t eot_ = 50256;
};
