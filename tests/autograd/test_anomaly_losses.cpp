// NaN and inf through every loss under anomaly mode (docs/reliability.md, Limits): the
// forward value shows the bad input, and backward either raises a nabla::Error naming a
// node of the loss's graph ("Function 'X' returned nan values ...") or, when no backward
// node produced a non-finite value (nll_loss's gradient does not read the input), completes
// with finite gradients. Either way the next clean step works.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nabla/nabla.h>

#include "test_util.h"

using nabla::Tensor;
namespace F = nabla::nn::functional;

namespace {

struct LossCase {
  const char* name;
  std::function<Tensor(const Tensor&)> loss;  // of a [4, 3] input
  // A NaN input reaches a backward output. Not for gradients that do not read the input
  // (nll_loss, kl_div: -target) or that pass through a comparison with it, which NaN
  // fails (margin_ranking, hinge_embedding: clamp_min's mask is 0, as in PyTorch).
  bool nan_must_raise;
  bool forward_rejects = false;  // forward checks the input's range
};

Tensor t43(double scale = 0.1) {
  return (nabla::arange(12, nabla::kDouble).view({4, 3}) * scale - 0.5).sin().abs() * 0.8 + 0.1;
}

std::vector<LossCase> losses() {
  const Tensor y = t43(0.3), cls = nabla::tensor({0, 2, 1, 2}, nabla::kLong);
  const Tensor sign = nabla::tensor({1.0, -1.0, 1.0, -1.0}, nabla::kDouble);
  const Tensor pm = (y > 0.5).to(nabla::kDouble) * 2 - 1;  // labels +-1
  return {
      {"mse_loss", [=](const Tensor& x) { return F::mse_loss(x, y); }, true},
      // sign(NaN) is 0 (as PyTorch), so l1's gradient stays finite.
      {"l1_loss", [=](const Tensor& x) { return F::l1_loss(x, y); }, false},
      {"smooth_l1_loss", [=](const Tensor& x) { return F::smooth_l1_loss(x, y); }, true},
      {"huber_loss", [=](const Tensor& x) { return F::huber_loss(x, y); }, true},
      {"nll_loss", [=](const Tensor& x) { return F::nll_loss(x, cls); }, false},
      {"cross_entropy", [=](const Tensor& x) { return F::cross_entropy(x, cls); }, true},
      // Probabilities outside [0, 1] (NaN and inf included) fail in forward, as PyTorch.
      {"binary_cross_entropy", [=](const Tensor& x) { return F::binary_cross_entropy(x, y); }, true,
       true},
      {"binary_cross_entropy_with_logits",
       [=](const Tensor& x) { return F::binary_cross_entropy_with_logits(x, y); }, true},
      {"kl_div", [=](const Tensor& x) { return F::kl_div(x, y); }, false},
      {"soft_margin_loss", [=](const Tensor& x) { return F::soft_margin_loss(x, pm); }, true},
      {"margin_ranking_loss",
       [=](const Tensor& x) {
         return F::margin_ranking_loss(x.flatten(), y.flatten(), pm.flatten());
       },
       false},
      {"hinge_embedding_loss", [=](const Tensor& x) { return F::hinge_embedding_loss(x, pm); },
       false},
      {"cosine_embedding_loss",
       [=](const Tensor& x) { return F::cosine_embedding_loss(x, y, sign); }, true},
      {"poisson_nll_loss", [=](const Tensor& x) { return F::poisson_nll_loss(x, y); }, true},
      {"triplet_margin_loss",
       [=](const Tensor& x) { return F::triplet_margin_loss(x, y, y.flip({0})); }, true},
      {"multilabel_soft_margin_loss",
       [=](const Tensor& x) { return F::multilabel_soft_margin_loss(x, (y > 0.5).to(x.dtype())); },
       true},
  };
}

/// Every node name in the graph behind `t`.
std::set<std::string> node_names(const Tensor& t) {
  std::set<std::string> names;
  std::vector<std::shared_ptr<nabla::autograd::Node>> todo{t.grad_fn()};
  std::set<const nabla::autograd::Node*> seen;
  while (!todo.empty()) {
    auto n = todo.back();
    todo.pop_back();
    if (!n || !seen.insert(n.get()).second) continue;
    names.insert(n->name());
    for (const auto& e : n->next_edges()) todo.push_back(e.function);
  }
  return names;
}

/// The node the anomaly message names, or "" when there is none.
std::string named_node(const std::string& message) {
  const std::string head = "Function '";
  size_t b = message.find(head);
  if (b == std::string::npos) return "";
  b += head.size();
  return message.substr(b, message.find('\'', b) - b);
}

void run_case(const LossCase& c, double bad, bool must_raise) {
  SCOPED_TRACE(std::string(c.name) + " with " + std::to_string(bad));
  Tensor x = t43().clone();
  x.index_put_({1, 1}, bad);
  x.requires_grad_();
  nabla::autograd::DetectAnomalyGuard anomaly;
  if (c.forward_rejects) {
    nabla::testing::expect_error([&] { c.loss(x); }, {c.name, "between 0 and 1"});
    return;
  }
  Tensor loss = c.loss(x);
  const double value = loss.item<double>();
  if (std::isnan(bad)) {
    EXPECT_TRUE(std::isnan(value) || c.name == std::string("nll_loss") ||
                c.name == std::string("hinge_embedding_loss"))
        << "loss " << value;
  }
  try {
    loss.backward();
    EXPECT_FALSE(must_raise) << "anomaly mode let a NaN through";
    EXPECT_TRUE(x.grad().isfinite().all().item<bool>())
        << "backward produced a non-finite gradient that anomaly mode did not report";
  } catch (const nabla::Error& e) {
    const std::string node = named_node(e.what());
    // LibTorch's words, which nabla also uses for inf (LibTorch only stops at NaN).
    EXPECT_NE(std::string(e.what()).find("returned nan values"), std::string::npos) << e.what();
    EXPECT_TRUE(node_names(loss).count(node)) << "names '" << node << "', not a node of "
                                              << "the loss's graph: " << e.what();
  }
  // The next step, on clean data, works.
  Tensor clean = t43().requires_grad_();
  c.loss(clean).backward();
  EXPECT_TRUE(clean.grad().isfinite().all().item<bool>());
}

}  // namespace

TEST(AnomalyLosses, NanInputIsReportedAtItsNode) {
  for (const LossCase& c : losses())
    run_case(c, std::numeric_limits<double>::quiet_NaN(), c.nan_must_raise);
}

TEST(AnomalyLosses, InfInputIsReportedOrHarmless) {
  for (const LossCase& c : losses()) {
    run_case(c, std::numeric_limits<double>::infinity(), false);
    run_case(c, -std::numeric_limits<double>::infinity(), false);
  }
}
