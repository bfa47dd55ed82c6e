// nabla::models from the installed package: a tiny GPT-2, one forward and greedy tokens.
#include <nabla/models.h>
#include <nabla/nabla.h>

#include <iostream>

int main() {
  nabla::manual_seed(0);
  nabla::models::GPT2 model(nabla::models::GPT2Config{2, 2, 16, 11, 8});
  model->eval();
  const auto idx = nabla::zeros({1, 3}, nabla::kLong);
  const auto logits = model(idx);
  const auto out = model->generate(idx, 4, /*temperature=*/0);
  std::cout << "gpt2 ok: logits " << logits.sizes() << " tokens " << out.size(1) << "\n";
}
