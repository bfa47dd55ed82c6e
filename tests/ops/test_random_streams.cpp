// The CPU's random streams without LibTorch at hand (Note [Random streams]): values pinned
// from LibTorch 1.13.1 for a few seeds (tests/libtorch/test_random_streams.cpp compares
// everything against LibTorch itself), the engine against the C++ standard's mt19937, the
// generator's state, and what a stream does not depend on (threads, the kernels' ISA path).
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::values;

namespace {

std::vector<float> floats(const Tensor& t) {
  Tensor c = t.contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// Whether LibTorch, on this machine, runs its AVX2 kernels (Note [Random streams]): the
// float normal fill of 16 or more elements is then its 8-wide one.
bool libtorch_avx2_kernels() {
  const char* env = std::getenv("ATEN_CPU_CAPABILITY");
  if (env && std::string(env) == "default") return false;
  return supported_isa() >= Isa::Avx2;
}

}  // namespace

TEST(RandomStreams, EngineIsTheStandardMt19937OfTheSeedsLow32Bits) {
  for (uint64_t seed :
       {uint64_t(0), uint64_t(5489), uint64_t(67280421310721ull), (uint64_t(1) << 32) + 9}) {
    Generator g = make_generator(seed);
    std::mt19937 want(static_cast<uint32_t>(seed));
    for (int i = 0; i < 3000; ++i)
      ASSERT_EQ(g.random(), want()) << "seed " << seed << " draw " << i;
    // 64 bits: two draws, the first one high.
    const uint64_t hi = want(), lo = want();
    EXPECT_EQ(g.random64(), (hi << 32) | lo);
    EXPECT_EQ(g.current_seed(), seed);  // all 64 bits kept
  }
}

TEST(RandomStreams, PinnedValuesFromLibTorch) {
  manual_seed(0);
  EXPECT_EQ(floats(randn({4})),
            (std::vector<float>{1.54099607f, -0.293428898f, -2.17878938f, 0.568431258f}));
  manual_seed(0);
  EXPECT_EQ(floats(rand({3})), (std::vector<float>{0.49625659f, 0.768221796f, 0.0884774327f}));
  manual_seed(0);
  EXPECT_EQ(values(randn({5}, kDouble)),
            (std::vector<double>{1.5409961082440433, -0.2934289057609464, -2.1787893820745574,
                                 0.5684312772806678, -1.084522342424021}));
  manual_seed(0);
  EXPECT_EQ(values(randn({17}, kDouble))[16], 0.6748575435940039);  // the normal fill
  manual_seed(0);
  EXPECT_EQ(values(rand({2}, kDouble)),
            (std::vector<double>{0.9700530018065531, 0.707819864399788}));
  manual_seed(0);
  EXPECT_EQ(values(randint(0, 10, {8})), (std::vector<double>{4, 9, 3, 0, 3, 9, 7, 3}));
  manual_seed(0);
  EXPECT_EQ(values(randperm(8)), (std::vector<double>{4, 0, 7, 3, 2, 5, 1, 6}));
  manual_seed(0);
  EXPECT_EQ(values(empty({10}).bernoulli_(0.5)),
            (std::vector<double>{0, 0, 1, 0, 0, 0, 1, 1, 0, 1}));
  manual_seed(0);
  const float kept = 1.0f / 0.7f;
  EXPECT_EQ(floats(dropout(ones({10}), 0.3, true)),
            (std::vector<float>{0, 0, kept, 0, kept, 0, kept, kept, kept, kept}));
  manual_seed(0);
  Tensor w = tensor(std::vector<double>{0.1, 0.2, 0.3, 0.4}, kFloat);
  EXPECT_EQ(values(multinomial(w, 2)), (std::vector<double>{2, 1}));
  EXPECT_EQ(values(multinomial(w, 6, true)), (std::vector<double>{3, 3, 1, 2, 2, 1}));
  Generator g = make_generator(7);
  EXPECT_EQ(floats(randn({3}, g)), (std::vector<float>{-0.146795094f, 0.786141276f, 0.94682163f}));
  manual_seed(42);
  nn::Linear linear(3, 2);
  EXPECT_EQ(floats(linear->weight), (std::vector<float>{0.441406518f, 0.479205281f, -0.135257274f,
                                                        0.53036046f, -0.126499504f, 0.116503909f}));
  EXPECT_EQ(floats(linear->bias), (std::vector<float>{-0.281085879f, 0.339067787f}));
  if (libtorch_avx2_kernels()) {
    manual_seed(0);
    const std::vector<float> v = floats(randn({20}));
    EXPECT_EQ(std::vector<float>(v.begin(), v.begin() + 4),
              (std::vector<float>{-1.12583983f, -1.1523602f, -0.250578582f, -0.433878809f}));
    EXPECT_EQ(std::vector<float>(v.end() - 2, v.end()),
              (std::vector<float>{2.00498056f, 0.0537369028f}));
  }
}

TEST(RandomStreams, NormalCachesItsSecondSampleAcrossCalls) {
  // randn of 3 (fewer than 16: one Box-Muller pair per two elements) leaves a sample that
  // the next small call starts with.
  manual_seed(5);
  const std::vector<double> six = values(randn({6}, kDouble));
  manual_seed(5);
  std::vector<double> split = values(randn({3}, kDouble));
  for (double v : values(randn({3}, kDouble))) split.push_back(v);
  EXPECT_EQ(split, six);
  // manual_seed forgets it.
  manual_seed(5);
  (void)randn({3}, kDouble);
  manual_seed(5);
  EXPECT_EQ(values(randn({6}, kDouble)), six);
}

TEST(RandomStreams, ThreadsAndKernelPathsChangeNoNumber) {
  const int saved = get_num_threads();
  std::vector<std::vector<float>> runs;
  for (int threads : {1, 2, 4}) {
    set_num_threads(threads);
    manual_seed(99);
    std::vector<float> v = floats(randn({100003}));
    for (float x : floats(rand({70001}))) v.push_back(x);
    for (float x : floats(dropout(ones({5000}), 0.25, true))) v.push_back(x);
    runs.push_back(v);
  }
  set_num_threads(saved);
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

TEST(RandomStreams, StateRoundTripsAndClonesAreIndependent) {
  manual_seed(11);
  (void)randn({3});  // a cached normal is part of the state
  const Tensor state = default_generator().get_state();
  EXPECT_EQ(state.numel(), 5056);
  EXPECT_EQ(state.scalar_type(), kByte);
  const std::vector<double> next = values(randn({40}, kDouble));
  default_generator().set_state(state);
  EXPECT_EQ(values(randn({40}, kDouble)), next);

  Generator a = make_generator(3);
  (void)randn({10}, a);
  Generator b = a.clone();
  Generator shared = a;  // a handle: the same state
  EXPECT_EQ(values(randn({20}, a)), values(randn({20}, b)));
  (void)randn({5}, shared);
  EXPECT_NE(values(randn({20}, a)), values(randn({20}, b)));

  expect_error([&] { default_generator().set_state(zeros({16}, kByte)); },
               {"set_state", "5056", "16"});
  expect_error([&] { default_generator().set_state(zeros({5056}, kByte)); },
               {"set_state", "invalid mt19937 state"});
  expect_error([&] { default_generator().set_state(zeros({5056}, kInt)); }, {"set_state", "uint8"});
  expect_error([] { (void)default_generator().get_offset(); }, {"get_offset", "get_state"});
  expect_error([] { (void)default_generator().reserve(1); }, {"reserve", "CPU generator"});
}

TEST(RandomStreams, GeneratorsOfAnotherDeviceAreRefused) {
  Generator cuda_gen(1, Device(kCUDA, 0));
  EXPECT_EQ(cuda_gen.device(), Device(kCUDA, 0));
  EXPECT_EQ(cuda_gen.get_offset(), 0u);
  expect_error([&] { (void)rand({3}, cuda_gen); }, {"rand", "'cpu'", "'cuda'"});
  expect_error([&] { (void)randperm(3, cuda_gen); }, {"randperm", "'cpu'"});
  expect_error([&] { (void)cuda_gen.random(); }, {"random", "CPU generator"});
  // A CUDA generator's state is its seed and offset.
  cuda_gen.set_offset(40);
  Tensor s = cuda_gen.get_state();
  EXPECT_EQ(s.numel(), 16);
  Generator other(5, Device(kCUDA, 0));
  other.set_state(s);
  EXPECT_EQ(other.current_seed(), 1u);
  EXPECT_EQ(other.get_offset(), 40u);
}

TEST(RandomStreams, RandIntIsExactForWideInt64Ranges) {
  // Bounds past 2^53 pass through as integers, not doubles.
  const int64_t lo = (int64_t(1) << 62) + 1, hi = lo + 3;
  manual_seed(1);
  for (double v : values(randint(lo, hi, {64}).sub(lo))) EXPECT_TRUE(v >= 0 && v < 3) << v;
  manual_seed(1);
  Tensor r = randint(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), {8});
  EXPECT_EQ(r.scalar_type(), kLong);
}
