#include "nabla/core/generator.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "nabla/core/cuda.h"
#include "nabla/core/detail/cpu_generator.h"
#include "nabla/core/error.h"
#include "nabla/core/tensor.h"

namespace nabla {

struct Generator::State {
  explicit State(Device d) : device(d) {}
  Device device;
  mutable std::mutex mutex;
  // Philox (CUDA): the seed and the next counter.
  uint64_t seed = 0;
  uint64_t offset = 0;
  // mt19937 (CPU).
  std::unique_ptr<CpuGeneratorState> cpu;
};

namespace {

// LibTorch's CPU state layout (Generator::get_state), written field by field at the
// offsets its struct has on x86-64 and other LP64 ABIs: the legacy part (seed, left,
// seeded, next, 624 words widened to 64 bits, three doubles of which the middle one holds
// the cached normal, a validity flag) and, after it, the cached float normal and its flag.
// Padding bytes are zero, as LibTorch's value-initialised struct leaves them.
constexpr size_t kSeedAt = 0, kLeftAt = 8, kSeededAt = 12, kNextAt = 16, kWordsAt = 24;
constexpr size_t kNormalXAt = kWordsAt + 8 * mt19937::kWords;  // 5016
constexpr size_t kNormalYAt = kNormalXAt + 8, kNormalRhoAt = kNormalXAt + 16;
constexpr size_t kNormalValidAt = kNormalXAt + 24;  // 5040
constexpr size_t kLegacyStateBytes = 5048;          // 5044 rounded up to 8
constexpr size_t kFloatNormalAt = kLegacyStateBytes, kFloatValidAt = kLegacyStateBytes + 4;
constexpr size_t kCpuStateBytes = 5056;
constexpr size_t kPhiloxStateBytes = 16;

template <class T>
void put(uint8_t* bytes, size_t at, T v) {
  std::memcpy(bytes + at, &v, sizeof(T));
}
template <class T>
T get(const uint8_t* bytes, size_t at) {
  T v;
  std::memcpy(&v, bytes + at, sizeof(T));
  return v;
}

void check_cpu(const Device& d, const char* what) {
  NABLA_CHECK(d.is_cpu(), "Generator::", what, ": only a CPU generator has this (this one is ", d,
              ")");
}
void check_philox(const Device& d, const char* what) {
  NABLA_CHECK(!d.is_cpu(), "Generator::", what,
              ": a CPU generator (mt19937) has no Philox offset; get_state()/set_state() save "
              "and restore its position");
}

}  // namespace

Generator::Generator(uint64_t seed) : Generator(seed, Device(kCPU)) {}

Generator::Generator(uint64_t seed, Device device) : state_(std::make_shared<State>(device)) {
  if (device.is_cpu())
    state_->cpu = std::make_unique<CpuGeneratorState>(seed);
  else
    state_->seed = seed;
}

Device Generator::device() const { return state_->device; }

void Generator::set_current_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lk(state_->mutex);
  if (state_->cpu) {
    *state_->cpu = CpuGeneratorState(seed);
    return;
  }
  state_->seed = seed;
  state_->offset = 0;
}

uint64_t Generator::current_seed() const {
  std::lock_guard<std::mutex> lk(state_->mutex);
  return state_->cpu ? state_->cpu->engine.seed() : state_->seed;
}

uint64_t Generator::seed() {
  std::random_device rd;
  uint64_t s = (uint64_t(rd()) << 32) ^ rd();
  set_current_seed(s);
  return s;
}

uint64_t Generator::get_offset() const {
  check_philox(state_->device, "get_offset");
  std::lock_guard<std::mutex> lk(state_->mutex);
  return state_->offset;
}

void Generator::set_offset(uint64_t offset) {
  check_philox(state_->device, "set_offset");
  std::lock_guard<std::mutex> lk(state_->mutex);
  state_->offset = offset;
}

Tensor Generator::get_state() const {
  std::lock_guard<std::mutex> lk(state_->mutex);
  if (!state_->cpu) {
    Tensor t = empty_contiguous({static_cast<int64_t>(kPhiloxStateBytes)}, kByte);
    uint8_t* b = t.data_ptr<uint8_t>();
    put(b, 0, state_->seed);
    put(b, 8, state_->offset);
    return t;
  }
  Tensor t = empty_contiguous({static_cast<int64_t>(kCpuStateBytes)}, kByte);
  uint8_t* b = t.data_ptr<uint8_t>();
  std::memset(b, 0, kCpuStateBytes);
  const CpuGeneratorState& s = *state_->cpu;
  put(b, kSeedAt, s.engine.seed());
  put(b, kLeftAt, s.engine.left());
  put(b, kSeededAt, int32_t{1});
  put(b, kNextAt, uint64_t{s.engine.next()});
  for (int i = 0; i < mt19937::kWords; ++i)
    put(b, kWordsAt + 8 * static_cast<size_t>(i), uint64_t{s.engine.words()[i]});
  if (s.next_double_normal) {
    put(b, kNormalYAt, *s.next_double_normal);
    put(b, kNormalValidAt, int32_t{1});
  }
  if (s.next_float_normal) {
    put(b, kFloatNormalAt, *s.next_float_normal);
    put(b, kFloatValidAt, uint8_t{1});
  }
  return t;
}

void Generator::set_state(const Tensor& new_state) {
  NABLA_CHECK(new_state.defined() && new_state.is_cpu() && new_state.scalar_type() == kByte &&
                  new_state.dim() == 1,
              "Generator::set_state: expected a 1-d uint8 CPU tensor (from get_state), got ",
              new_state.defined() ? str("a ", new_state.dim(), "-d ", new_state.scalar_type(),
                                        " tensor on ", new_state.device())
                                  : std::string("an undefined tensor"));
  // The bytes in order, whatever the tensor's stride (core calls no op: Tensor::contiguous
  // is the ops layer's).
  const size_t n = static_cast<size_t>(new_state.numel());
  std::vector<uint8_t> bytes(n);
  const uint8_t* from = new_state.data_ptr<uint8_t>();
  for (size_t i = 0; i < n; ++i) bytes[i] = from[static_cast<int64_t>(i) * new_state.stride(0)];
  const uint8_t* b = bytes.data();
  if (!state_->cpu) {
    NABLA_CHECK(n == kPhiloxStateBytes, "Generator::set_state: a ", state_->device,
                " generator's state has ", kPhiloxStateBytes, " bytes (seed, offset), got ", n);
    std::lock_guard<std::mutex> lk(state_->mutex);
    state_->seed = get<uint64_t>(b, 0);
    state_->offset = get<uint64_t>(b, 8);
    return;
  }
  NABLA_CHECK(n == kCpuStateBytes || n == kLegacyStateBytes,
              "Generator::set_state: a CPU generator's state has ", kCpuStateBytes, " bytes (or ",
              kLegacyStateBytes, " in LibTorch's legacy layout), got ", n);
  std::vector<uint32_t> words(mt19937::kWords);
  for (int i = 0; i < mt19937::kWords; ++i)
    words[static_cast<size_t>(i)] =
        static_cast<uint32_t>(get<uint64_t>(b, kWordsAt + 8 * static_cast<size_t>(i)));
  CpuGeneratorState next(0);
  const bool valid =
      get<int32_t>(b, kSeededAt) != 0 &&
      next.engine.assign(get<uint64_t>(b, kSeedAt), get<int32_t>(b, kLeftAt),
                         static_cast<uint32_t>(get<uint64_t>(b, kNextAt)), words.data());
  NABLA_CHECK(valid, "Generator::set_state: invalid mt19937 state (left ", get<int32_t>(b, kLeftAt),
              ", next ", get<uint64_t>(b, kNextAt), ", seeded ", get<int32_t>(b, kSeededAt), ")");
  std::lock_guard<std::mutex> lk(state_->mutex);
  if (get<int32_t>(b, kNormalValidAt) != 0) {
    if (n == kCpuStateBytes) {
      next.next_double_normal = get<double>(b, kNormalYAt);
    } else {
      // The legacy layout kept Box-Muller's inputs: the cached sample is rho sin(2 pi x).
      next.next_double_normal = get<double>(b, kNormalRhoAt) *
                                std::sin(2.0 * 3.14159265358979323846 * get<double>(b, kNormalXAt));
    }
  }
  if (n == kCpuStateBytes) {
    if (get<uint8_t>(b, kFloatValidAt) != 0) next.next_float_normal = get<float>(b, kFloatNormalAt);
  } else {
    next.next_float_normal = state_->cpu->next_float_normal;  // the legacy layout has none
  }
  *state_->cpu = next;
}

Generator Generator::clone() const {
  std::lock_guard<std::mutex> lk(state_->mutex);
  Generator g(0, state_->device);
  if (state_->cpu) {
    *g.state_->cpu = *state_->cpu;
  } else {
    g.state_->seed = state_->seed;
    g.state_->offset = state_->offset;
  }
  return g;
}

uint32_t Generator::random() {
  check_cpu(state_->device, "random");
  std::lock_guard<std::mutex> lk(state_->mutex);
  return state_->cpu->engine();
}

uint64_t Generator::random64() {
  check_cpu(state_->device, "random64");
  std::lock_guard<std::mutex> lk(state_->mutex);
  return state_->cpu->engine.draw64();
}

std::pair<uint64_t, uint64_t> Generator::reserve(uint64_t n) {
  check_philox(state_->device, "reserve");
  std::lock_guard<std::mutex> lk(state_->mutex);
  uint64_t first = state_->offset;
  state_->offset += n;
  return {state_->seed, first};
}

std::mutex& Generator::mutex() const { return state_->mutex; }

CpuGeneratorState& Generator::cpu_state() const {
  check_cpu(state_->device, "cpu_state");
  return *state_->cpu;
}

Generator& default_generator() {
  static Generator gen;
  return gen;
}

Generator& default_generator(Device device) {
  if (device.is_cpu()) return default_generator();
  // One per CUDA device, as LibTorch's; created with the default seed.
  constexpr int kMaxDevices = 16;
  static std::vector<Generator>* cuda_generators = [] {
    auto* v = new std::vector<Generator>;
    for (int i = 0; i < kMaxDevices; ++i)
      v->emplace_back(Generator::kDefaultSeed, Device(kCUDA, static_cast<int8_t>(i)));
    return v;
  }();
  const int index = device.has_index() ? device.index() : static_cast<int>(cuda::current_device());
  NABLA_CHECK(index >= 0 && index < kMaxDevices, "default_generator: no CUDA device ", device);
  return (*cuda_generators)[static_cast<size_t>(index)];
}

void manual_seed(uint64_t seed) {
  default_generator().set_current_seed(seed);
  cuda::manual_seed_all(seed);  // as torch::manual_seed (nothing without a GPU)
}

Generator make_generator(uint64_t seed) { return Generator(seed); }

Generator make_generator(uint64_t seed, Device device) { return Generator(seed, device); }

}  // namespace nabla
