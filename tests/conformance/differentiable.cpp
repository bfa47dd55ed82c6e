// Which inputs of a sample the gradient checks and bench_ops differentiate (conformance.h).
#include <algorithm>

#include "conformance.h"
#include "libtorch_checks.h"

namespace conform {

namespace {

// Without LibTorch, nabla's forward is the judge: an input counts when nabla accepts it
// requiring grad (the rule LibTorch's refusals are written into nabla's ops with).
bool nabla_accepts_grad(const OpEntry& e, const std::vector<nabla::Tensor>& inputs,
                        const std::vector<size_t>& wanted) {
  std::vector<nabla::Tensor> nin;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool want = std::find(wanted.begin(), wanted.end(), i) != wanted.end();
    nin.push_back(inputs[i].detach().requires_grad_(want));
  }
  try {
    e.nabla_fn(nin);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::vector<size_t> differentiable_inputs(const OpEntry& e,
                                          const std::vector<nabla::Tensor>& inputs) {
  std::vector<size_t> floats;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].is_floating_point()) floats.push_back(i);
  auto accepts = [&](const std::vector<size_t>& wanted) {
    if constexpr (kWithLibTorch)
      return libtorch_accepts_grad(e, inputs, wanted);
    else
      return nabla_accepts_grad(e, inputs, wanted);
  };
  if (accepts(floats)) return floats;
  if (!accepts({})) return {};  // an error sample: the value check covers it
  std::vector<size_t> accepted;
  for (size_t i : floats)
    if (accepts({i})) accepted.push_back(i);
  return accepted;
}

}  // namespace conform
