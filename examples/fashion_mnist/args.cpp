#include "args.h"

#include <cstdlib>
#include <iostream>

namespace {

[[noreturn]] void usage(int code) {
  std::cerr << "usage: fashion_mnist [--model mlp|cnn] [--epochs N] [--batch-size N] [--lr X]\n"
               "                     [--threads N] [--data DIR] [--out DIR] [--resume CKPT]\n"
               "                     [--eval-only CKPT] [--seed N] [--limit N]\n"
               "                     [--device cpu|cuda|cuda:N]\n"
               "Trains on Fashion-MNIST (Debian's dataset-fashion-mnist by default), evaluates on\n"
               "the test set after each epoch, saves OUT/checkpoint-epochN.safetensors and\n"
               "OUT/curves.svg.\n";
  std::exit(code);
}

}  // namespace

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") usage(0);
    if (i + 1 >= argc) {
      std::cerr << "fashion_mnist: " << flag << " needs a value\n";
      usage(2);
    }
    std::string v = argv[++i];
    try {
      if (flag == "--model")
        a.model = v;
      else if (flag == "--epochs")
        a.epochs = std::stoi(v);
      else if (flag == "--batch-size")
        a.batch_size = std::stoll(v);
      else if (flag == "--lr")
        a.lr = std::stod(v);
      else if (flag == "--threads")
        a.threads = std::stoi(v);
      else if (flag == "--data")
        a.data = v;
      else if (flag == "--out")
        a.out = v;
      else if (flag == "--resume")
        a.resume = v;
      else if (flag == "--eval-only")
        a.eval_only = v;
      else if (flag == "--seed")
        a.seed = std::stoull(v);
      else if (flag == "--limit")
        a.limit = std::stoll(v);
      else if (flag == "--device")
        a.device = v;
      else {
        std::cerr << "fashion_mnist: unknown flag " << flag << "\n";
        usage(2);
      }
    } catch (const std::exception&) {
      std::cerr << "fashion_mnist: bad value '" << v << "' for " << flag << "\n";
      usage(2);
    }
  }
  if (a.model != "mlp" && a.model != "cnn") {
    std::cerr << "fashion_mnist: --model must be mlp or cnn, got " << a.model << "\n";
    usage(2);
  }
  if (a.epochs < 0 || a.batch_size <= 0 || a.lr <= 0) {
    std::cerr << "fashion_mnist: --epochs must be >= 0, --batch-size and --lr positive\n";
    usage(2);
  }
  return a;
}
