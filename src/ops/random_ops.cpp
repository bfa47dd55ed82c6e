// In-place random fills on existing tensors (uniform_, normal_, bernoulli_, random_),
// drawing from the default generator like the factories do, and multinomial sampling.
#include <algorithm>
#include <cmath>
#include <vector>

#include "nabla/ops/factories.h"
#include "nabla/ops/trace.h"
#include "ops/op_utils.h"

namespace nabla {
namespace {

const Tensor& fill_random(const Tensor& self, KernelBackend::Distribution d, double a, double b) {
  Tensor target = self.is_contiguous()
                      ? self
                      : ops::empty_tensor(self.sizes(), self.scalar_type(), self.device());
  auto [seed, offset] =
      default_generator(self.device()).reserve(static_cast<uint64_t>(self.numel()));
  backend_for(self).random(d, target, seed, offset, a, b);
  if (!target.is_same(self)) backend_for(self).copy(self, target);
  ops::bump_version(self);
  return self;
}

}  // namespace

const Tensor& Tensor::uniform_(double from, double to) const {
  NABLA_CHECK(is_floating_point(), "uniform_: expected a floating tensor, got ", scalar_type());
  NABLA_CHECK(from <= to, "uniform_: expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  return fill_random(*this, KernelBackend::Distribution::Uniform, from, to);
}

const Tensor& Tensor::normal_(double mean, double std) const {
  NABLA_CHECK(is_floating_point(), "normal_: expected a floating tensor, got ", scalar_type());
  NABLA_CHECK(std >= 0, "normal_: expects std >= 0.0, but found std ", std);
  return fill_random(*this, KernelBackend::Distribution::Normal, mean, std);
}

const Tensor& Tensor::bernoulli_(double p) const {
  NABLA_CHECK(p >= 0 && p <= 1, "bernoulli_: expects p to be in [0, 1], but got p=", p);
  return fill_random(*this, KernelBackend::Distribution::Bernoulli, p, 0);
}

const Tensor& Tensor::random_(int64_t from, int64_t to) const {
  NABLA_CHECK(from < to, "random_: expects 'from' to be less than 'to', but got from=", from,
              " >= to=", to);
  return fill_random(*this, KernelBackend::Distribution::RandInt, static_cast<double>(from),
                     static_cast<double>(to));
}

}  // namespace nabla

namespace nabla {

// Each row of `probs` holds non-negative weights (not necessarily summing to 1). With
// replacement: inverse-CDF lookups of uniform draws. Without: the k largest of
// w_i / E_i with E_i ~ Exp(1) (equivalent to drawing one by one without replacement).
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement,
                   optional<Generator> gen) {
  ops::check_defined(probs, "multinomial");
  ops::refuse_while_tracing("multinomial",
                            "is not in the op table (ops::call), so a static graph cannot hold it");
  NABLA_CHECK(probs.dim() == 1 || probs.dim() == 2,
              "multinomial: prob_dist must be 1 or 2 dim, got ", probs.dim(), " dims (sizes ",
              probs.sizes(), ")");
  NABLA_CHECK(probs.is_floating_point(),
              "multinomial: only floating point probabilities are supported, got ",
              probs.scalar_type());
  NABLA_CHECK(num_samples > 0, "multinomial: cannot sample n_sample <= 0 samples (got ",
              num_samples, ")");
  const int64_t cats = probs.size(-1);
  NABLA_CHECK(replacement || num_samples <= cats,
              "multinomial: cannot sample n_sample > prob_dist.size(-1) "
              "samples without replacement (",
              num_samples, " > ", cats, ")");
  // Sampled on the host (Note [Host reads]) from the CPU generator, then placed.
  const Tensor p = ops::host_values(probs.detach().reshape({-1, cats}).to(kDouble).contiguous());
  const int64_t rows = p.size(0);
  const double* w = ops::host_ptr<double>(p);
  Tensor u = rand({rows, replacement ? num_samples : cats}, gen, TensorOptions(kDouble));
  const double* ud = ops::host_ptr<double>(u);
  Tensor out = ops::empty_tensor({rows, num_samples}, kLong, Device(kCPU));
  int64_t* o = ops::host_ptr<int64_t>(out);
  std::vector<double> acc(static_cast<size_t>(cats));
  for (int64_t r = 0; r < rows; ++r) {
    const double* wr = w + r * cats;
    double total = 0;
    int64_t positive = 0;
    for (int64_t c = 0; c < cats; ++c) {
      NABLA_CHECK(std::isfinite(wr[c]) && wr[c] >= 0,
                  "multinomial: probability tensor contains either inf, "
                  "nan or element < 0 (row ",
                  r, ", category ", c, ": ", wr[c], ")");
      total += wr[c];
      positive += wr[c] > 0;
      acc[c] = total;
    }
    NABLA_CHECK(total > 0,
                "multinomial: invalid multinomial distribution (sum of probabilities <= 0) in row ",
                r);
    NABLA_CHECK(replacement || positive >= num_samples,
                "multinomial: invalid multinomial distribution "
                "(with replacement=False, not enough non-negative category to sample): row ",
                r, " has ", positive, " categories of positive weight, ", num_samples,
                " samples asked");
    if (replacement) {
      for (int64_t s = 0; s < num_samples; ++s) {
        const double x = ud[r * num_samples + s] * total;
        // The first c with acc[c] > x has a positive weight; x == total (rounding) takes
        // the last category of positive weight.
        int64_t c = std::upper_bound(acc.begin(), acc.end(), x) - acc.begin();
        if (c >= cats) c = std::lower_bound(acc.begin(), acc.end(), total) - acc.begin();
        o[r * num_samples + s] = c;
      }
    } else {
      std::vector<std::pair<double, int64_t>> keys;
      for (int64_t c = 0; c < cats; ++c) {
        if (wr[c] == 0) continue;
        const double e = -std::log1p(-ud[r * cats + c]);  // Exp(1) from a uniform in [0, 1)
        keys.push_back({wr[c] / std::max(e, 1e-300), c});
      }
      std::partial_sort(keys.begin(), keys.begin() + num_samples, keys.end(),
                        [](const auto& a, const auto& b) { return a.first > b.first; });
      for (int64_t s = 0; s < num_samples; ++s) o[r * num_samples + s] = keys[s].second;
    }
  }
  if (!probs.is_cpu()) out = out.to(probs.device(), kLong);
  return probs.dim() == 1 ? out.view({num_samples}) : out;
}

Tensor Tensor::multinomial(int64_t num_samples, bool replacement,
                           optional<Generator> generator) const {
  return nabla::multinomial(*this, num_samples, replacement, std::move(generator));
}

}  // namespace nabla
