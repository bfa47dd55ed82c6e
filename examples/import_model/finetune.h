#pragma once
// import_model's --finetune: an imported Fashion-MNIST classifier trained one epoch.
#include <nabla/graph.h>

#include <cstdint>
#include <string>

struct FinetuneOptions {
  std::string data;        // Fashion-MNIST's directory
  int64_t limit = 0;       // training images (0: all 60,000)
  int64_t test_limit = 0;  // test images (0: all 10,000)
  double lr = 1e-3;        // Adam's learning rate
};

/// Reports the test accuracy of `graph` (input 0: [N, 1, 28, 28] images normalized as the
/// trainer's, output 0: [N, 10] logits), trains its parameters one epoch with Adam on
/// cross-entropy, reports the accuracy again. Returns 0 if it improved, 1 if not.
int finetune(nabla::graph::Graph& graph, const FinetuneOptions& options);
