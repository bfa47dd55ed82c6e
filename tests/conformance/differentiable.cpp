// Which inputs of a sample the gradient checks and bench_ops differentiate (conformance.h).
#include <algorithm>

#include "conformance.h"

namespace conform {

std::vector<size_t> differentiable_inputs(const OpEntry& e,
                                          const std::vector<nabla::Tensor>& inputs) {
  std::vector<size_t> floats;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].is_floating_point()) floats.push_back(i);
  auto torch_accepts = [&](const std::vector<size_t>& wanted) {
    std::vector<at::Tensor> tin;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const bool want = std::find(wanted.begin(), wanted.end(), i) != wanted.end();
      tin.push_back(to_torch(inputs[i]).detach().requires_grad_(want));
    }
    try {
      e.torch_fn(tin);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  };
  if (torch_accepts(floats)) return floats;
  if (!torch_accepts({})) return {};  // an error sample: the value check covers it
  std::vector<size_t> accepted;
  for (size_t i : floats)
    if (torch_accepts({i})) accepted.push_back(i);
  return accepted;
}

}  // namespace conform
