#pragma once
// Command-line flags of the gpt2 example.
#include <cstdint>
#include <string>
#include <vector>

struct Args {
  // Data: byte-level text (default: the licence texts Debian's base-files ships), or llm.c
  // token files (GPT-2's 50,257-token vocabulary) when --train-tokens is given.
  std::vector<std::string> text;  // files; empty: /usr/share/common-licenses/*
  std::string train_tokens, val_tokens;
  std::string tokenizer;  // llm.c's gpt2_tokenizer.bin, to print samples of token files
  // Model (a new run; a resumed one takes the checkpoint's).
  int64_t layers = 4, heads = 4, channels = 128, block = 128;
  double dropout = 0.0;
  // Training.
  int64_t batch = 16, steps = 1000;
  double lr = 1e-3, weight_decay = 0.1;
  int64_t warmup = 100;      // linear warm-up steps, then cosine decay to lr / 10
  int64_t eval_every = 200;  // validation loss and checkpoint every N steps (and at the end)
  int64_t eval_batches = 20;
  int64_t sample_tokens = 300;  // generated after training; 0: none
  double temperature = 0.8;
  int64_t top_k = 40;
  std::string prompt = "The ";
  int threads = 0;  // 0: all cores
  uint64_t seed = 0;
  std::string out = "runs/gpt2";
  std::string resume;       // checkpoint to continue from
  std::string sample_from;  // checkpoint to evaluate and sample from, without training
};

/// Parses argv; prints usage and exits on --help or a bad flag.
Args parse_args(int argc, char** argv);
