#pragma once
// Command-line flags of the fashion_mnist example.
#include <cstdint>
#include <string>

struct Args {
  std::string model = "cnn";  // mlp | cnn
  int epochs = 3;
  int64_t batch_size = 64;
  double lr = 1e-3;
  int threads = 0;   // 0: all cores
  std::string data;  // default: Debian's dataset-fashion-mnist
  std::string out = "runs/fashion_mnist";
  std::string resume;     // checkpoint to continue from
  std::string eval_only;  // checkpoint to evaluate
  uint64_t seed = 0;
  int64_t limit = 0;           // train on the first N examples per epoch (0: all); for smoke tests
  std::string device = "cpu";  // cpu | cuda | cuda:N
};

/// Parses argv; prints usage and exits on --help or a bad flag.
Args parse_args(int argc, char** argv);
