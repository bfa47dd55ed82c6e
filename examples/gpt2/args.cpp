#include "args.h"

#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>

namespace {

[[noreturn]] void usage(int code) {
  std::cerr
      << "usage: gpt2 [--text FILE]... | [--train-tokens BIN --val-tokens BIN [--tokenizer BIN]]\n"
         "            [--layers N] [--heads N] [--channels N] [--block N] [--dropout X]\n"
         "            [--batch N] [--steps N] [--lr X] [--weight-decay X] [--warmup N]\n"
         "            [--eval-every N] [--eval-batches N] [--sample-tokens N]\n"
         "            [--temperature X] [--top-k N] [--prompt TEXT] [--threads N] [--seed N]\n"
         "            [--out DIR] [--resume CKPT] [--sample-from CKPT]\n"
         "Trains a GPT-2 (nabla::models::GPT2) on byte-level text (by default the licence\n"
         "texts in /usr/share/common-licenses, shipped by Debian's base-files) or on llm.c\n"
         "token files, with AdamW; reports the validation loss and saves OUT/checkpoint.\n"
         "safetensors (model, AdamW state, step, generator) every --eval-every steps, then\n"
         "OUT/model.pt (PyTorch's state_dict format) and prints a sample.\n";
  std::exit(code);
}

}  // namespace

Args parse_args(int argc, char** argv) {
  Args a;
  using Setter = std::function<void(const std::string&)>;
  auto int_flag = [](int64_t& field) {
    return Setter([&field](const std::string& v) { field = std::stoll(v); });
  };
  auto real_flag = [](double& field) {
    return Setter([&field](const std::string& v) { field = std::stod(v); });
  };
  auto text_flag = [](std::string& field) {
    return Setter([&field](const std::string& v) { field = v; });
  };
  const std::map<std::string, Setter> flags = {
      {"--text", [&a](const std::string& v) { a.text.push_back(v); }},
      {"--train-tokens", text_flag(a.train_tokens)},
      {"--val-tokens", text_flag(a.val_tokens)},
      {"--tokenizer", text_flag(a.tokenizer)},
      {"--layers", int_flag(a.layers)},
      {"--heads", int_flag(a.heads)},
      {"--channels", int_flag(a.channels)},
      {"--block", int_flag(a.block)},
      {"--dropout", real_flag(a.dropout)},
      {"--batch", int_flag(a.batch)},
      {"--steps", int_flag(a.steps)},
      {"--lr", real_flag(a.lr)},
      {"--weight-decay", real_flag(a.weight_decay)},
      {"--warmup", int_flag(a.warmup)},
      {"--eval-every", int_flag(a.eval_every)},
      {"--eval-batches", int_flag(a.eval_batches)},
      {"--sample-tokens", int_flag(a.sample_tokens)},
      {"--temperature", real_flag(a.temperature)},
      {"--top-k", int_flag(a.top_k)},
      {"--prompt", text_flag(a.prompt)},
      {"--threads", [&a](const std::string& v) { a.threads = std::stoi(v); }},
      {"--seed", [&a](const std::string& v) { a.seed = std::stoull(v); }},
      {"--out", text_flag(a.out)},
      {"--resume", text_flag(a.resume)},
      {"--sample-from", text_flag(a.sample_from)},
  };
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") usage(0);
    auto it = flags.find(flag);
    if (it == flags.end()) {
      std::cerr << "gpt2: unknown flag " << flag << "\n";
      usage(2);
    }
    if (i + 1 >= argc) {
      std::cerr << "gpt2: " << flag << " needs a value\n";
      usage(2);
    }
    const std::string v = argv[++i];
    try {
      it->second(v);
    } catch (const std::exception&) {
      std::cerr << "gpt2: bad value '" << v << "' for " << flag << "\n";
      usage(2);
    }
  }
  if (a.train_tokens.empty() != a.val_tokens.empty()) {
    std::cerr << "gpt2: --train-tokens and --val-tokens go together\n";
    usage(2);
  }
  if (!a.text.empty() && !a.train_tokens.empty()) {
    std::cerr << "gpt2: --text or --train-tokens, not both\n";
    usage(2);
  }
  if (a.batch <= 0 || a.steps < 0 || a.lr <= 0 || a.eval_every <= 0 || a.eval_batches <= 0 ||
      a.warmup < 0 || a.sample_tokens < 0 || a.temperature < 0 || a.top_k < 0) {
    std::cerr << "gpt2: --batch, --lr, --eval-every and --eval-batches must be positive;\n"
                 "      --steps, --warmup, --sample-tokens, --temperature and --top-k >= 0\n";
    usage(2);
  }
  return a;
}
