// Declared in nabla/autograd/checkpoint.h; defined here, in the ops layer, because it runs ops
// (docs/architecture.md, "Layers").
#include "nabla/autograd/checkpoint.h"

#include "nabla/autograd/autograd.h"
#include "nabla/autograd/record.h"
#include "nabla/core/generator.h"

namespace nabla::utils {
namespace {

using autograd::Node;
using autograd::SavedVariable;

// Backward of a checkpointed segment: recompute the segment with grad mode on from the
// saved inputs, then differentiate the recomputed graph (a reentrant backward).
class CheckpointNode final : public Node {
 public:
  std::function<variable_list(const variable_list&)> fn;
  std::vector<SavedVariable> inputs;
  std::vector<bool> input_requires_grad;
  Tensor rng_state;  // the CPU generator before the forward (Generator::get_state)
  bool released = false;

  std::string name() const override { return "CheckpointFunctionBackward"; }
  void release_variables() override {
    for (auto& s : inputs) s.reset_data();
    fn = nullptr;
    released = true;
  }

  variable_list apply(variable_list&& grads) override {
    NABLA_CHECK(!released,
                "checkpoint: Trying to backward through the graph a second time; "
                "specify retain_graph=true");
    variable_list detached;
    variable_list diff;
    std::vector<size_t> diff_pos;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Tensor t = inputs[i].unpack();
      if (t.defined()) {
        t = t.detach();
        if (input_requires_grad[i]) {
          t.requires_grad_(true);
          diff.push_back(t);
          diff_pos.push_back(i);
        }
      }
      detached.push_back(t);
    }
    variable_list outs;
    {
      EnableGradGuard grad_on;
      Generator& gen = default_generator();
      const Tensor now = gen.get_state();
      gen.set_state(rng_state);
      outs = fn(detached);
      gen.set_state(now);
    }
    variable_list roots, root_grads;
    for (size_t k = 0; k < outs.size() && k < grads.size(); ++k) {
      if (outs[k].defined() && outs[k].requires_grad() && grads[k].defined()) {
        roots.push_back(outs[k]);
        root_grads.push_back(grads[k]);
      }
    }
    variable_list result(num_outputs());
    if (roots.empty() || diff.empty()) return result;
    variable_list g = autograd::grad(roots, diff, root_grads, false, GradMode::is_enabled(), true);
    for (size_t d = 0; d < diff.size(); ++d) result[diff_pos[d]] = g[d];
    return result;
  }
};

}  // namespace

variable_list checkpoint(const std::function<variable_list(const variable_list&)>& fn,
                         const variable_list& inputs) {
  NABLA_CHECK(static_cast<bool>(fn), "checkpoint: fn is empty");
  const Tensor rng_state = default_generator().get_state();
  variable_list outs;
  {
    NoGradGuard no_grad;  // no activations are saved inside fn
    outs = fn(inputs);
  }
  if (!autograd::any_requires_grad_list(inputs)) return outs;
  auto node = std::make_shared<CheckpointNode>();
  node->fn = fn;
  node->rng_state = rng_state;
  for (const Tensor& t : inputs) {
    node->add_next_edge(t.defined() ? autograd::gradient_edge(t) : autograd::Edge());
    node->inputs.emplace_back(t, false);
    node->input_requires_grad.push_back(t.defined() && t.requires_grad());
  }
  for (Tensor& o : outs) {
    if (!o.defined() || !o.is_floating_point()) continue;
    for (const Tensor& in : inputs)
      if (in.defined() && in.is_same(o))
        o = o.detach();  // an input passed through keeps its identity
    autograd::set_history(o, node);
  }
  return outs;
}

Tensor checkpoint(const std::function<Tensor(const variable_list&)>& fn,
                  const variable_list& inputs) {
  return checkpoint([fn](const variable_list& in) { return variable_list{fn(in)}; }, inputs)[0];
}

}  // namespace nabla::utils
