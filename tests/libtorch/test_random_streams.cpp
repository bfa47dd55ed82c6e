// nabla's CPU random numbers against LibTorch's, bit for bit (Note [Random streams],
// include/nabla/core/detail/cpu_generator.h): both libraries are seeded alike, make the same calls,
// and every value must have the same bits: the raw words, rand/randn/uniform_/normal_ (float and
// double, sizes below, at and above 16, multiples of 16 or not, contiguous or strided), bernoulli,
// random_/randint, randperm, dropout, multinomial, the other distributions, the generator's state
// bytes, nn::init and the modules' initial weights.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <ATen/CPUGeneratorImpl.h>

#include <nabla/nabla.h>
#include <cstring>
#include <functional>
#include <sstream>

namespace {

const std::vector<uint64_t> kSeeds = {0, 1, 12345, (uint64_t(1) << 32) + 7};
const std::vector<int64_t> kSizes = {1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 100, 1000, 1029};

void seed_both(uint64_t s) {
  nabla::manual_seed(s);
  torch::manual_seed(s);
}

at::ScalarType to_at(nabla::ScalarType t) {
  switch (t) {
    case nabla::kFloat:
      return at::kFloat;
    case nabla::kDouble:
      return at::kDouble;
    case nabla::kLong:
      return at::kLong;
    case nabla::kInt:
      return at::kInt;
    case nabla::kBool:
      return at::kBool;
    case nabla::kByte:
      return at::kByte;
    case nabla::kChar:
      return at::kChar;
    case nabla::kShort:
      return at::kShort;
    default:
      ADD_FAILURE() << "no LibTorch dtype for " << t;
      return at::kFloat;
  }
}

// Same sizes, same dtype, and every element with the same bits (floats compared as the
// doubles they widen to exactly, integers as int64).
void expect_same(const nabla::Tensor& ours, const at::Tensor& theirs, const std::string& what) {
  ASSERT_EQ(ours.sizes().vec(), theirs.sizes().vec()) << what;
  ASSERT_EQ(to_at(ours.scalar_type()), theirs.scalar_type()) << what;
  const int64_t n = ours.numel();
  if (ours.is_floating_point()) {
    const nabla::Tensor o = ours.detach().contiguous().to(nabla::kDouble).contiguous();
    const at::Tensor t = theirs.detach().contiguous().to(at::kDouble).contiguous();
    const double* a = o.data_ptr<double>();
    const double* b = t.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i)
      if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) {
        std::ostringstream m;
        m.precision(17);
        m << what << ": element " << i << " of " << n << " is " << a[i] << ", LibTorch's " << b[i];
        FAIL() << m.str();
      }
  } else {
    const nabla::Tensor o = ours.detach().contiguous().to(nabla::kLong).contiguous();
    const at::Tensor t = theirs.detach().contiguous().to(at::kLong).contiguous();
    const int64_t* a = o.data_ptr<int64_t>();
    const int64_t* b = t.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(a[i], b[i]) << what << ": element " << i << " of " << n;
  }
}

// LibTorch's tensor with nabla's values (same dtype and shape, contiguous).
at::Tensor to_torch(const nabla::Tensor& t) {
  const nabla::Tensor d = t.detach().contiguous().to(nabla::kDouble).contiguous();
  at::Tensor r = at::empty(t.sizes().vec(), at::kDouble);
  std::memcpy(r.data_ptr<double>(), d.data_ptr<double>(), sizeof(double) * d.numel());
  return r.to(to_at(t.scalar_type()));
}

std::string describe(const std::string& op, uint64_t seed, int64_t n, nabla::ScalarType t) {
  std::ostringstream m;
  m << op << " seed " << seed << " size " << n << " " << t;
  return m.str();
}

const std::vector<nabla::ScalarType> kFloats = {nabla::kFloat, nabla::kDouble};

}  // namespace

TEST(RandomStreamsVsLibTorch, RawWords) {
  for (uint64_t seed : {uint64_t(0), uint64_t(1), uint64_t(42), nabla::Generator::kDefaultSeed,
                        (uint64_t(1) << 32) + 7}) {
    nabla::Generator ours = nabla::make_generator(seed);
    at::Generator theirs = at::make_generator<at::CPUGeneratorImpl>(seed);
    auto* impl = theirs.get<at::CPUGeneratorImpl>();
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(ours.random(), impl->random()) << "seed " << seed;
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(ours.random64(), impl->random64()) << "seed " << seed;
    EXPECT_EQ(ours.current_seed(), impl->current_seed());
  }
  // The default generators start from LibTorch's default seed.
  EXPECT_EQ(nabla::Generator().current_seed(), at::CPUGeneratorImpl().current_seed());
}

TEST(RandomStreamsVsLibTorch, RandAndUniform) {
  for (uint64_t seed : kSeeds)
    for (nabla::ScalarType dt : kFloats) {
      seed_both(seed);
      for (int64_t n : kSizes) {
        expect_same(nabla::rand({n}, dt), torch::rand({n}, to_at(dt)),
                    describe("rand", seed, n, dt));
        for (auto [from, to] : std::vector<std::pair<double, double>>{
                 {-2.5, 3.25}, {1e-3, 17.1}, {-0.3, 0.7}, {5, 5}}) {
          expect_same(nabla::empty({n}, dt).uniform_(from, to),
                      torch::empty({n}, to_at(dt)).uniform_(from, to),
                      describe("uniform_", seed, n, dt));
        }
      }
      // 2-d, and rand_like in a transposed layout: draws in memory order.
      expect_same(nabla::rand({4, 9}, dt), torch::rand({4, 9}, to_at(dt)), "rand 4x9");
    }
}

TEST(RandomStreamsVsLibTorch, RandnAndNormal) {
  for (uint64_t seed : kSeeds)
    for (nabla::ScalarType dt : kFloats) {
      seed_both(seed);
      // One seeded run of many calls: the cached Box-Muller sample carries from call to call.
      for (int64_t n : kSizes) {
        expect_same(nabla::randn({n}, dt), torch::randn({n}, to_at(dt)),
                    describe("randn", seed, n, dt));
        expect_same(nabla::empty({n}, dt).normal_(0.3, 1.7),
                    torch::empty({n}, to_at(dt)).normal_(0.3, 1.7),
                    describe("normal_", seed, n, dt));
        expect_same(nabla::normal(-2, 0.5, {n}, nabla::nullopt, dt),
                    torch::normal(-2, 0.5, {n}, c10::nullopt, to_at(dt)),
                    describe("normal", seed, n, dt));
      }
      expect_same(nabla::randn({3, 7, 5}, dt), torch::randn({3, 7, 5}, to_at(dt)), "randn 3d");
      expect_same(nabla::randn({0}, dt), torch::randn({0}, to_at(dt)), "randn empty");
    }
}

TEST(RandomStreamsVsLibTorch, StridedOutputsDrawInMemoryOrder) {
  for (nabla::ScalarType dt : kFloats) {
    seed_both(3);
    // A transposed tensor: LibTorch's iterator walks memory, and normal_ of a non-contiguous
    // tensor takes the per-element path whatever its size.
    nabla::Tensor a = nabla::empty({6, 40}, dt);
    at::Tensor b = torch::empty({6, 40}, to_at(dt));
    expect_same(a.t().uniform_(-1, 2), b.t().uniform_(-1, 2), "uniform_ transposed");
    expect_same(a.t().normal_(1, 3), b.t().normal_(1, 3), "normal_ transposed");
    expect_same(a.t().bernoulli_(0.4), b.t().bernoulli_(0.4), "bernoulli_ transposed");
    // A strided slice (gaps between elements).
    nabla::Tensor c = nabla::zeros({5, 20}, dt);
    at::Tensor d = torch::zeros({5, 20}, to_at(dt));
    c.slice(1, 0, 20, 3).normal_(0, 1);
    d.slice(1, 0, 20, 3).normal_(0, 1);
    expect_same(c, d, "normal_ of a strided slice");
    c.slice(0, 1, 4).uniform_(0, 1);
    d.slice(0, 1, 4).uniform_(0, 1);
    expect_same(c, d, "uniform_ of a row slice");
    // A permuted 3-d tensor.
    nabla::Tensor e = nabla::empty({3, 4, 5}, dt).permute({2, 0, 1});
    at::Tensor f = torch::empty({3, 4, 5}, to_at(dt)).permute({2, 0, 1});
    expect_same(e.uniform_(0, 1), f.uniform_(0, 1), "uniform_ permuted");
    // *_like with a transposed original keeps its layout and fills it in memory order.
    nabla::Tensor g = nabla::empty({5, 7}, dt).t();
    at::Tensor h = torch::empty({5, 7}, to_at(dt)).t();
    expect_same(nabla::rand_like(g), torch::rand_like(h), "rand_like transposed");
    expect_same(nabla::randn_like(g), torch::randn_like(h), "randn_like transposed");
  }
}

TEST(RandomStreamsVsLibTorch, Bernoulli) {
  for (uint64_t seed : kSeeds) {
    seed_both(seed);
    for (int64_t n : {1, 16, 1000})
      for (double p : {0.0, 0.3, 0.5, 1.0}) {
        for (nabla::ScalarType dt : {nabla::kFloat, nabla::kDouble, nabla::kLong, nabla::kBool}) {
          expect_same(nabla::empty({n}, dt).bernoulli_(p),
                      torch::empty({n}, to_at(dt)).bernoulli_(p),
                      describe("bernoulli_", seed, n, dt));
        }
        nabla::Tensor x = nabla::zeros({n, 2});
        expect_same(x.bernoulli(p), torch::zeros({n, 2}).bernoulli(p), "bernoulli(x, p)");
      }
    // Probabilities from a tensor: a float uniform per element for float p, double for double.
    for (nabla::ScalarType dt : kFloats) {
      nabla::Tensor p = nabla::rand({300}, dt);
      at::Tensor tp = torch::rand({300}, to_at(dt));
      expect_same(p, tp, "probabilities");
      expect_same(nabla::bernoulli(p), torch::bernoulli(tp),
                  describe("bernoulli(p)", seed, 300, dt));
      expect_same(nabla::bernoulli(p.view({20, 15})), torch::bernoulli(tp.view({20, 15})),
                  "bernoulli(p) 2-d");
    }
  }
}

TEST(RandomStreamsVsLibTorch, RandomAndRandint) {
  const std::vector<std::pair<int64_t, int64_t>> ranges = {
      {0, 2},
      {0, 10},
      {-5, 7},
      {-1000, 1000000},
      {0, int64_t(1) << 32},
      {-3, int64_t(1) << 40},
      {std::numeric_limits<int64_t>::min() / 2, int64_t(1) << 62}};
  for (uint64_t seed : kSeeds) {
    seed_both(seed);
    for (auto [lo, hi] : ranges)
      for (nabla::ScalarType dt : {nabla::kLong, nabla::kInt, nabla::kShort, nabla::kChar,
                                   nabla::kDouble, nabla::kFloat}) {
        const bool wide = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) > (1u << 24);
        if (dt == nabla::kInt && (lo < INT32_MIN || hi > INT32_MAX)) continue;
        if (dt == nabla::kShort && (lo < INT16_MIN || hi > INT16_MAX)) continue;
        if (dt == nabla::kChar && (lo < INT8_MIN || hi > INT8_MAX)) continue;
        if ((dt == nabla::kFloat || dt == nabla::kDouble) && wide) continue;  // beyond exact ints
        expect_same(nabla::randint(lo, hi, {257}, dt), torch::randint(lo, hi, {257}, to_at(dt)),
                    describe("randint [" + std::to_string(lo) + ", " + std::to_string(hi) + ")",
                             seed, 257, dt));
        expect_same(nabla::empty({33}, dt).random_(lo, hi),
                    torch::empty({33}, to_at(dt)).random_(lo, hi), "random_");
      }
    expect_same(nabla::randint(5, {4, 6}), torch::randint(5, {4, 6}), "randint(high)");
    for (nabla::ScalarType dt : {nabla::kLong, nabla::kInt, nabla::kShort, nabla::kChar,
                                 nabla::kByte, nabla::kBool, nabla::kDouble, nabla::kFloat}) {
      expect_same(nabla::empty({65}, dt).random_(), torch::empty({65}, to_at(dt)).random_(),
                  describe("random_()", seed, 65, dt));
      expect_same(nabla::empty({17}, dt).random_(2), torch::empty({17}, to_at(dt)).random_(2),
                  describe("random_(to)", seed, 17, dt));
    }
    nabla::Tensor like = nabla::empty({3, 8}, nabla::kInt).t();
    at::Tensor tlike = torch::empty({3, 8}, at::kInt).t();
    expect_same(nabla::randint_like(like, -4, 9), torch::randint_like(tlike, -4, 9),
                "randint_like transposed");
  }
}

TEST(RandomStreamsVsLibTorch, Randperm) {
  for (uint64_t seed : kSeeds) {
    seed_both(seed);
    for (int64_t n : {0, 1, 2, 3, 10, 1000, 5003}) {
      expect_same(nabla::randperm(n), torch::randperm(n),
                  describe("randperm", seed, n, nabla::kLong));
      expect_same(nabla::randperm(n, nabla::kInt), torch::randperm(n, at::kInt), "randperm int32");
    }
    nabla::Generator g = nabla::make_generator(seed + 1);
    at::Generator tg = at::make_generator<at::CPUGeneratorImpl>(seed + 1);
    expect_same(nabla::randperm(77, g), torch::randperm(77, tg), "randperm with a generator");
  }
}

TEST(RandomStreamsVsLibTorch, Dropout) {
  for (uint64_t seed : kSeeds)
    for (nabla::ScalarType dt : kFloats)
      for (double p : {0.1, 0.2, 0.5, 0.8, 1.0}) {
        seed_both(seed);
        nabla::Tensor x = nabla::randn({7, 13}, dt);
        at::Tensor tx = torch::randn({7, 13}, to_at(dt));
        const std::string what = describe("dropout p=" + std::to_string(p), seed, 91, dt);
        expect_same(nabla::dropout(x, p, true), at::dropout(tx, p, true), what);
        expect_same(nabla::feature_dropout(x.view({7, 13, 1}), p, true),
                    at::feature_dropout(tx.view({7, 13, 1}), p, true), "feature_" + what);
        expect_same(nabla::alpha_dropout(x, p, true), at::alpha_dropout(tx, p, true),
                    "alpha_" + what);
        expect_same(nabla::feature_alpha_dropout(x.view({7, 13, 1}), p, true),
                    at::feature_alpha_dropout(tx.view({7, 13, 1}), p, true),
                    "feature_alpha_" + what);
        nabla::Tensor xi = x.clone();
        at::Tensor txi = tx.clone();
        nabla::dropout_(xi, p, true);
        at::dropout_(txi, p, true);
        expect_same(xi, txi, "in-place " + what);
        // The modules and F:: in training mode.
        nabla::nn::Dropout nd(p);
        torch::nn::Dropout td(p);
        expect_same(nd->forward(x), td->forward(tx), "nn::Dropout " + what);
        nabla::nn::Dropout2d nd2(p);
        torch::nn::Dropout2d td2(p);
        expect_same(nd2->forward(x.view({1, 7, 13, 1})), td2->forward(tx.view({1, 7, 13, 1})),
                    "nn::Dropout2d " + what);
      }
}

TEST(RandomStreamsVsLibTorch, Multinomial) {
  for (uint64_t seed : kSeeds)
    for (nabla::ScalarType dt : kFloats) {
      seed_both(seed);
      nabla::Tensor w = nabla::rand({4, 11}, dt) + 0.05;
      at::Tensor tw = torch::rand({4, 11}, to_at(dt)) + 0.05;
      expect_same(w, tw, "weights");
      w.select(1, 3).zero_();
      tw.select(1, 3).zero_();
      for (bool replacement : {false, true})
        for (int64_t k : {1, 2, 5, 10}) {
          const std::string what =
              describe(std::string("multinomial") + (replacement ? " with" : " without") +
                           " replacement, " + std::to_string(k) + " samples",
                       seed, 44, dt);
          expect_same(nabla::multinomial(w, k, replacement), at::multinomial(tw, k, replacement),
                      what);
          expect_same(nabla::multinomial(w.select(0, 1), k, replacement),
                      at::multinomial(tw.select(0, 1), k, replacement), "1-d " + what);
        }
      expect_same(nabla::multinomial(w, 50, true), at::multinomial(tw, 50, true), "50 samples");
    }
}

TEST(RandomStreamsVsLibTorch, OtherDistributions) {
  for (uint64_t seed : kSeeds)
    for (nabla::ScalarType dt : kFloats) {
      seed_both(seed);
      for (int64_t n : {1, 15, 16, 100}) {
        expect_same(nabla::empty({n}, dt).exponential_(1.5),
                    torch::empty({n}, to_at(dt)).exponential_(1.5),
                    describe("exponential_", seed, n, dt));
        expect_same(nabla::empty({n}, dt).geometric_(0.3),
                    torch::empty({n}, to_at(dt)).geometric_(0.3),
                    describe("geometric_", seed, n, dt));
        expect_same(nabla::empty({n}, dt).cauchy_(0.5, 1.3),
                    torch::empty({n}, to_at(dt)).cauchy_(0.5, 1.3),
                    describe("cauchy_", seed, n, dt));
        expect_same(nabla::empty({n}, dt).log_normal_(0.2, 0.7),
                    torch::empty({n}, to_at(dt)).log_normal_(0.2, 0.7),
                    describe("log_normal_", seed, n, dt));
        // log_normal_'s cached normal serves the next randn of fewer than 16 elements.
        expect_same(nabla::randn({3}, dt), torch::randn({3}, to_at(dt)), "randn after log_normal_");
      }
      // rrelu in training draws a slope for each element <= 0 only.
      nabla::Tensor x = nabla::randn({9, 11}, dt);
      at::Tensor tx = torch::randn({9, 11}, to_at(dt));
      expect_same(nabla::rrelu(x, 0.1, 0.3, true), at::rrelu(tx, 0.1, 0.3, true),
                  describe("rrelu", seed, 99, dt));
      nabla::nn::RReLU nr(nabla::nn::RReLUOptions().lower(0.2).upper(0.25));
      torch::nn::RReLU tr(torch::nn::RReLUOptions().lower(0.2).upper(0.25));
      expect_same(nr->forward(x), tr->forward(tx), "nn::RReLU");
    }
}

TEST(RandomStreamsVsLibTorch, GeneratorStateBytes) {
  at::Generator theirs = at::detail::getDefaultCPUGenerator();
  auto state_bytes = [](const at::Tensor& t) { return t.contiguous(); };
  EXPECT_EQ(nabla::default_generator().get_state().numel(), theirs.get_state().numel());
  for (uint64_t seed : kSeeds) {
    seed_both(seed);
    expect_same(nabla::default_generator().get_state(), state_bytes(theirs.get_state()),
                "state after manual_seed");
    // A cached double normal (randn of 3 leaves one) and positions mid-way through a block.
    (void)nabla::randn({3}, nabla::kDouble);
    (void)torch::randn({3}, at::kDouble);
    expect_same(nabla::default_generator().get_state(), state_bytes(theirs.get_state()),
                "state with a cached normal");
    (void)nabla::rand({1001});
    (void)torch::rand({1001});
    expect_same(nabla::default_generator().get_state(), state_bytes(theirs.get_state()),
                "state after 1001 draws");
    EXPECT_EQ(nabla::default_generator().current_seed(), theirs.current_seed());
    // LibTorch's state into nabla: the streams continue alike; and nabla's into LibTorch.
    (void)torch::randn({5});
    const at::Tensor theirs_state = theirs.get_state().contiguous();
    nabla::Tensor copied = nabla::empty({theirs_state.numel()}, nabla::kByte);
    std::memcpy(copied.data_ptr<uint8_t>(), theirs_state.data_ptr<uint8_t>(),
                static_cast<size_t>(theirs_state.numel()));
    nabla::default_generator().set_state(copied);
    expect_same(nabla::randn({7}), torch::randn({7}), "after set_state from LibTorch");
    (void)nabla::randn({9});
    const nabla::Tensor mine = nabla::default_generator().get_state();
    theirs.set_state(at::from_blob(mine.data_ptr(), {mine.numel()}, at::kByte).clone());
    expect_same(nabla::randn({40}), torch::randn({40}), "after set_state into LibTorch");
  }
  // Wrong sizes and invalid states are refused, and the generator is left alone.
  nabla::manual_seed(4);
  const nabla::Tensor before = nabla::default_generator().get_state();
  EXPECT_THROW(nabla::default_generator().set_state(nabla::zeros({17}, nabla::kByte)),
               nabla::Error);
  EXPECT_THROW(nabla::default_generator().set_state(nabla::zeros({5056}, nabla::kByte)),
               nabla::Error);
  EXPECT_THROW(nabla::default_generator().set_state(nabla::zeros({5056}, nabla::kFloat)),
               nabla::Error);
  EXPECT_TRUE(nabla::equal(nabla::default_generator().get_state(), before));
}

TEST(RandomStreamsVsLibTorch, Init) {
  namespace ni = nabla::nn::init;
  namespace ti = torch::nn::init;
  for (uint64_t seed : kSeeds)
    for (nabla::ScalarType dt : kFloats) {
      seed_both(seed);
      auto pair = [&](std::vector<int64_t> shape) {
        return std::make_pair(nabla::empty(shape, dt), torch::empty(shape, to_at(dt)));
      };
      auto [a, ta] = pair({6, 5});
      expect_same(ni::uniform_(a, -0.5, 2), ti::uniform_(ta, -0.5, 2), "init uniform_");
      expect_same(ni::normal_(a, 1, 0.1), ti::normal_(ta, 1, 0.1), "init normal_");
      expect_same(ni::xavier_uniform_(a, 1.5), ti::xavier_uniform_(ta, 1.5), "xavier_uniform_");
      expect_same(ni::xavier_normal_(a), ti::xavier_normal_(ta), "xavier_normal_");
      auto [c, tc] = pair({8, 3, 3, 3});
      expect_same(ni::kaiming_uniform_(c, std::sqrt(5.0)), ti::kaiming_uniform_(tc, std::sqrt(5.0)),
                  "kaiming_uniform_");
      expect_same(ni::kaiming_normal_(c, 0, nabla::kFanOut, nabla::kReLU),
                  ti::kaiming_normal_(tc, 0, torch::kFanOut, torch::kReLU), "kaiming_normal_");
      expect_same(ni::kaiming_uniform_(c, 0.2, nabla::kFanIn, nabla::kLeakyReLU),
                  ti::kaiming_uniform_(tc, 0.2, torch::kFanIn, torch::kLeakyReLU),
                  "kaiming_uniform_ leaky");
      auto [s, ts] = pair({10, 4});
      expect_same(ni::sparse_(s, 0.3, 0.02), ti::sparse_(ts, 0.3, 0.02), "sparse_");
      // orthogonal_: the same draws; LibTorch's QR is LAPACK's Householder, nabla's
      // Gram-Schmidt, so Q agrees to rounding only.
      for (std::vector<int64_t> shape : {std::vector<int64_t>{5, 3}, {3, 7}, {4, 2, 3}}) {
        auto [o, to] = pair(shape);
        ni::orthogonal_(o, 1.3);
        ti::orthogonal_(to, 1.3);
        EXPECT_TRUE(torch::allclose(to_torch(o), to, 1e-5, 1e-5)) << "orthogonal_";
        // The streams stay in step after it.
        expect_same(nabla::rand({5}, dt), torch::rand({5}, to_at(dt)), "rand after orthogonal_");
      }
    }
}

namespace {

template <class Ours, class Theirs>
void expect_same_parameters(const Ours& ours, const Theirs& theirs, const std::string& what) {
  auto op = ours->named_parameters();
  auto tp = theirs->named_parameters();
  ASSERT_EQ(op.size(), tp.size()) << what;
  for (size_t i = 0; i < op.size(); ++i) {
    EXPECT_EQ(op[i].key(), tp[i].key()) << what;
    expect_same(op[i].value(), tp[i].value(), what + " " + op[i].key());
  }
}

// Constructs both after manual_seed(seed) and compares every parameter.
template <class Make, class MakeTorch>
void check_module(const std::string& what, Make make, MakeTorch make_torch) {
  for (uint64_t seed : {uint64_t(0), uint64_t(7)}) {
    nabla::manual_seed(seed);
    auto ours = make();
    torch::manual_seed(seed);
    auto theirs = make_torch();
    expect_same_parameters(ours, theirs, what + " seed " + std::to_string(seed));
    // And the streams are in step afterwards.
    expect_same(nabla::randn({5}), torch::randn({5}), what + ": randn after construction");
  }
}

}  // namespace

TEST(RandomStreamsVsLibTorch, ModuleInitialWeights) {
  namespace nn = nabla::nn;
  namespace tn = torch::nn;
  check_module(
      "Linear", [] { return nn::Linear(nn::LinearOptions(7, 5)); },
      [] { return tn::Linear(tn::LinearOptions(7, 5)); });
  check_module(
      "Linear without bias", [] { return nn::Linear(nn::LinearOptions(20, 3).bias(false)); },
      [] { return tn::Linear(tn::LinearOptions(20, 3).bias(false)); });
  check_module(
      "Bilinear", [] { return nn::Bilinear(nn::BilinearOptions(3, 4, 5)); },
      [] { return tn::Bilinear(tn::BilinearOptions(3, 4, 5)); });
  check_module(
      "Conv1d", [] { return nn::Conv1d(nn::Conv1dOptions(3, 4, 5)); },
      [] { return tn::Conv1d(tn::Conv1dOptions(3, 4, 5)); });
  check_module(
      "Conv2d", [] { return nn::Conv2d(nn::Conv2dOptions(3, 8, 3).padding(1)); },
      [] { return tn::Conv2d(tn::Conv2dOptions(3, 8, 3).padding(1)); });
  check_module(
      "Conv2d grouped",
      [] {
        return nn::Conv2d(nn::Conv2dOptions(4, 8, {3, 2}).groups(2));
      },
      [] {
        return tn::Conv2d(tn::Conv2dOptions(4, 8, {3, 2}).groups(2));
      });
  check_module(
      "ConvTranspose2d", [] { return nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 3, 3)); },
      [] { return tn::ConvTranspose2d(tn::ConvTranspose2dOptions(4, 3, 3)); });
  check_module(
      "LSTMCell", [] { return nn::LSTMCell(nn::LSTMCellOptions(6, 5)); },
      [] { return tn::LSTMCell(tn::LSTMCellOptions(6, 5)); });
  check_module(
      "GRUCell", [] { return nn::GRUCell(nn::GRUCellOptions(6, 5)); },
      [] { return tn::GRUCell(tn::GRUCellOptions(6, 5)); });
  check_module(
      "RNNCell", [] { return nn::RNNCell(nn::RNNCellOptions(6, 5)); },
      [] { return tn::RNNCell(tn::RNNCellOptions(6, 5)); });
  check_module(
      "LSTM", [] { return nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true)); },
      [] { return tn::LSTM(tn::LSTMOptions(3, 4).num_layers(2).bidirectional(true)); });
  check_module(
      "GRU", [] { return nn::GRU(nn::GRUOptions(3, 4)); },
      [] { return tn::GRU(tn::GRUOptions(3, 4)); });
  check_module(
      "Embedding", [] { return nn::Embedding(nn::EmbeddingOptions(10, 4)); },
      [] { return tn::Embedding(tn::EmbeddingOptions(10, 4)); });
  check_module(
      "MultiheadAttention",
      [] { return nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2)); },
      [] { return tn::MultiheadAttention(tn::MultiheadAttentionOptions(8, 2)); });
  check_module(
      "TransformerEncoderLayer",
      [] {
        return nn::TransformerEncoderLayer(
            nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
      },
      [] {
        return tn::TransformerEncoderLayer(
            tn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
      });
}

TEST(RandomStreamsVsLibTorch, AMixOfCallsStaysInStep) {
  // Every kind of draw in one run, so that each leaves the generator where LibTorch's is.
  seed_both(2024);
  for (int round = 0; round < 3; ++round) {
    expect_same(nabla::randn({5}), torch::randn({5}), "randn 5");
    expect_same(nabla::rand({3}, nabla::kDouble), torch::rand({3}, at::kDouble), "rand 3");
    expect_same(nabla::randint(0, 9, {4}), torch::randint(0, 9, {4}), "randint");
    expect_same(nabla::randperm(6), torch::randperm(6), "randperm");
    expect_same(nabla::randn({21}, nabla::kDouble), torch::randn({21}, at::kDouble), "randn 21");
    expect_same(nabla::empty({2, 3}).bernoulli_(0.5), torch::empty({2, 3}).bernoulli_(0.5),
                "bernoulli_");
    expect_same(nabla::randn({1}), torch::randn({1}), "randn 1");
    expect_same(nabla::randn({16}), torch::randn({16}), "randn 16");
  }
  expect_same(nabla::default_generator().get_state(),
              at::detail::getDefaultCPUGenerator().get_state(), "state at the end");
}
