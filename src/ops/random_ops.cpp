// In-place random fills on existing tensors (uniform_, normal_, bernoulli_, random_),
// drawing from the default generator like the factories do.
#include "nabla/ops/factories.h"
#include "ops/op_utils.h"

namespace nabla {
namespace {

const Tensor& fill_random(const Tensor& self, Backend::Distribution d, double a, double b) {
  Tensor target = self.is_contiguous() ? self : ops::empty_tensor(self.sizes(), self.scalar_type());
  auto [seed, offset] = default_generator().reserve(static_cast<uint64_t>(self.numel()));
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
  return fill_random(*this, Backend::Distribution::Uniform, from, to);
}

const Tensor& Tensor::normal_(double mean, double std) const {
  NABLA_CHECK(is_floating_point(), "normal_: expected a floating tensor, got ", scalar_type());
  NABLA_CHECK(std >= 0, "normal_: expects std >= 0.0, but found std ", std);
  return fill_random(*this, Backend::Distribution::Normal, mean, std);
}

const Tensor& Tensor::bernoulli_(double p) const {
  NABLA_CHECK(p >= 0 && p <= 1, "bernoulli_: expects p to be in [0, 1], but got p=", p);
  return fill_random(*this, Backend::Distribution::Bernoulli, p, 0);
}

const Tensor& Tensor::random_(int64_t from, int64_t to) const {
  NABLA_CHECK(from < to, "random_: expects 'from' to be less than 'to', but got from=", from,
              " >= to=", to);
  return fill_random(*this, Backend::Distribution::RandInt, static_cast<double>(from),
                     static_cast<double>(to));
}

}  // namespace nabla
