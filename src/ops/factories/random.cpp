// In-place random fills on existing tensors (uniform_, normal_, bernoulli_, random_),
// drawing from the default generator of the tensor's device like the factories do, and
// multinomial sampling (LibTorch's algorithms, so that the CPU draws its numbers: Note
// [Random streams]).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "nabla/ops/factories.h"
#include "nabla/ops/trace.h"
#include "ops/factories/random_fill.h"
#include "ops/op_utils.h"

namespace nabla {

Generator& ops::generator_for(optional<Generator>& gen, Device device, const char* op) {
  if (!gen) return default_generator(device);
  NABLA_CHECK(gen->device().type() == device.type(), op, ": expected a '", Device(device.type()),
              "' device type for generator but found '", Device(gen->device().type()), "'");
  return *gen;
}

const Tensor& ops::fill_random(const Tensor& self, KernelBackend::Distribution d,
                               optional<Generator> gen, const Scalar& a, const Scalar& b,
                               const char* op) {
  Generator& g = generator_for(gen, self.device(), op);
  bool overlapping = false;
  for (int64_t i = 0; i < self.dim(); ++i) overlapping |= self.size(i) > 1 && self.stride(i) == 0;
  if (!overlapping) {
    backend_for(self).random(d, self, g, a, b);
  } else {
    Tensor dense = empty_tensor(self.sizes(), self.scalar_type(), self.device());
    backend_for(self).random(d, dense, g, a, b);
    backend_for(self).copy(self, dense);
  }
  bump_version(self);
  return self;
}

const Tensor& Tensor::uniform_(double from, double to) const {
  NABLA_CHECK(is_floating_point(), "uniform_: expected a floating tensor, got ", scalar_type());
  NABLA_CHECK(from <= to, "uniform_: expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  return ops::fill_random(*this, KernelBackend::Distribution::Uniform, nullopt, from, to,
                          "uniform_");
}

const Tensor& Tensor::normal_(double mean, double std) const {
  NABLA_CHECK(is_floating_point(), "normal_: expected a floating tensor, got ", scalar_type());
  NABLA_CHECK(std >= 0, "normal_: expects std >= 0.0, but found std ", std);
  return ops::fill_random(*this, KernelBackend::Distribution::Normal, nullopt, mean, std,
                          "normal_");
}

const Tensor& Tensor::bernoulli_(double p) const {
  NABLA_CHECK(p >= 0 && p <= 1, "bernoulli_: expects p to be in [0, 1], but got p=", p);
  return ops::fill_random(*this, KernelBackend::Distribution::Bernoulli, nullopt, p, 0,
                          "bernoulli_");
}

const Tensor& Tensor::random_(int64_t from, int64_t to) const {
  NABLA_CHECK(from < to, "random_: expects 'from' to be less than 'to', but got from=", from,
              " >= to=", to);
  return ops::fill_random(*this, KernelBackend::Distribution::RandInt, nullopt, from, to,
                          "random_");
}

const Tensor& Tensor::random_(int64_t to) const { return random_(0, to); }

const Tensor& Tensor::random_() const {
  // The end of the range, one past the largest value: 2^63 for int64 wraps to INT64_MIN,
  // which the kernel reads as the unsigned range it is.
  int64_t to = 0;
  switch (scalar_type()) {
    case kBool:
      to = 2;
      break;
    case kByte:
      to = 256;
      break;
    case kChar:
      to = int64_t{1} << 7;
      break;
    case kShort:
      to = int64_t{1} << 15;
      break;
    case kInt:
      to = int64_t{1} << 31;
      break;
    case kLong:
      to = std::numeric_limits<int64_t>::min();
      break;
    case kHalf:
      to = (int64_t{1} << 11) + 1;
      break;
    case kBFloat16:
      to = (int64_t{1} << 8) + 1;
      break;
    case kFloat:
      to = (int64_t{1} << 24) + 1;
      break;
    case kDouble:
      to = (int64_t{1} << 53) + 1;
      break;
    default:
      NABLA_CHECK(false, "random_: no range for ", scalar_type(), " tensors");
  }
  return ops::fill_random(*this, KernelBackend::Distribution::RandInt, nullopt, int64_t{0}, to,
                          "random_");
}

}  // namespace nabla

namespace nabla {
namespace {

// One row's draws, as LibTorch's CPU multinomial makes them. T is the dtype the weights
// are summed and divided in (float or double, as the input).
template <class T>
void sample_rows(const T* w, int64_t rows, int64_t cats, int64_t num_samples, bool replacement,
                 optional<Generator>& gen, int64_t* o) {
  const ScalarType dtype = std::is_same_v<T, double> ? kDouble : kFloat;
  if (!replacement) {
    // The exponential race: the winners are the largest w / q with q ~ Exp(1) drawn per
    // category (LibTorch's fast path; 1.13 takes it without replacement only).
    Tensor q = empty({rows, cats}, TensorOptions(dtype)).exponential_(1, gen);
    const T* qd = ops::host_ptr<T>(q);
    std::vector<std::pair<T, int64_t>> keys(static_cast<size_t>(cats));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cats; ++c)
        keys[static_cast<size_t>(c)] = {w[r * cats + c] / qd[r * cats + c], c};
      // Largest first; NaN above every number, and among equals the lower index.
      auto before = [](const std::pair<T, int64_t>& x, const std::pair<T, int64_t>& y) {
        const bool xn = std::isnan(x.first), yn = std::isnan(y.first);
        if (xn != yn) return xn;
        if (!xn && x.first != y.first) return x.first > y.first;
        return x.second < y.second;
      };
      std::partial_sort(keys.begin(), keys.begin() + num_samples, keys.end(), before);
      for (int64_t s = 0; s < num_samples; ++s)
        o[r * num_samples + s] = keys[static_cast<size_t>(s)].second;
    }
    return;
  }
  // Inverse-CDF lookups: the cumulative weights in T, divided by their sum, the last one
  // set to 1; per sample one double uniform and a binary search for the first cumulative
  // weight not below it.
  Tensor u = rand({rows, num_samples}, gen, TensorOptions(kDouble));
  const double* ud = ops::host_ptr<double>(u);
  std::vector<T> cum(static_cast<size_t>(cats));
  for (int64_t r = 0; r < rows; ++r) {
    T sum = 0;
    for (int64_t c = 0; c < cats; ++c) {
      sum += w[r * cats + c];
      cum[static_cast<size_t>(c)] = sum;
    }
    for (T& v : cum) v /= sum;
    cum.back() = 1;
    for (int64_t s = 0; s < num_samples; ++s) {
      const double x = ud[r * num_samples + s];
      int64_t lo = 0, hi = cats;
      while (hi > lo) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (cum[static_cast<size_t>(mid)] < x)
          lo = mid + 1;
        else
          hi = mid;
      }
      o[r * num_samples + s] = lo;
    }
  }
}

}  // namespace

// Each row of `probs` holds non-negative weights (not necessarily summing to 1). Sampled on
// the host from the CPU generator, with LibTorch's CPU algorithm (sample_rows).
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
  if (gen) ops::generator_for(gen, Device(kCPU), "multinomial");
  // float32 weights are summed in float32, as LibTorch's kernel does; 16-bit ones too.
  const ScalarType dtype = probs.scalar_type() == kDouble ? kDouble : kFloat;
  const Tensor p =
      ops::host_values(probs.detach().reshape({-1, cats}).to(dtype).contiguous()).contiguous();
  const int64_t rows = p.size(0);
  // Every row is checked before anything is drawn.
  {
    const Tensor pd = p.to(kDouble).contiguous();
    const double* w = ops::host_ptr<double>(pd);
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
      }
      NABLA_CHECK(
          total > 0,
          "multinomial: invalid multinomial distribution (sum of probabilities <= 0) in row ", r);
      NABLA_CHECK(replacement || positive >= num_samples,
                  "multinomial: invalid multinomial distribution "
                  "(with replacement=False, not enough non-negative category to sample): row ",
                  r, " has ", positive, " categories of positive weight, ", num_samples,
                  " samples asked");
    }
  }
  Tensor out = ops::empty_tensor({rows, num_samples}, kLong, Device(kCPU));
  int64_t* o = ops::host_ptr<int64_t>(out);
  if (dtype == kDouble)
    sample_rows(ops::host_ptr<double>(p), rows, cats, num_samples, replacement, gen, o);
  else
    sample_rows(ops::host_ptr<float>(p), rows, cats, num_samples, replacement, gen, o);
  if (!probs.is_cpu()) out = out.to(probs.device(), kLong);
  return probs.dim() == 1 ? out.view({num_samples}) : out;
}

Tensor Tensor::multinomial(int64_t num_samples, bool replacement,
                           optional<Generator> generator) const {
  return nabla::multinomial(*this, num_samples, replacement, std::move(generator));
}

}  // namespace nabla
