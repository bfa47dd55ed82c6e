#include "nabla/core/generator.h"

#include <random>

#include "nabla/core/cuda.h"
#include "nabla/core/error.h"

namespace nabla {

Generator::Generator(uint64_t seed) : state_(std::make_shared<State>()) { state_->seed = seed; }

void Generator::set_current_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lk(state_->mutex);
  state_->seed = seed;
  state_->offset = 0;
}

uint64_t Generator::current_seed() const {
  std::lock_guard<std::mutex> lk(state_->mutex);
  return state_->seed;
}

uint64_t Generator::seed() {
  std::random_device rd;
  uint64_t s = (uint64_t(rd()) << 32) ^ rd();
  set_current_seed(s);
  return s;
}

uint64_t Generator::get_offset() const {
  std::lock_guard<std::mutex> lk(state_->mutex);
  return state_->offset;
}

void Generator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> lk(state_->mutex);
  state_->offset = offset;
}

std::pair<uint64_t, uint64_t> Generator::reserve(uint64_t n) {
  std::lock_guard<std::mutex> lk(state_->mutex);
  uint64_t first = state_->offset;
  state_->offset += n;
  return {state_->seed, first};
}

Generator& default_generator() {
  static Generator gen;
  return gen;
}

Generator& default_generator(Device device) {
  if (device.is_cpu()) return default_generator();
  // One per CUDA device, as LibTorch's; created on first use with the default seed.
  static Generator* cuda_generators = new Generator[16];
  const int index = device.has_index() ? device.index() : static_cast<int>(cuda::current_device());
  NABLA_CHECK(index >= 0 && index < 16, "default_generator: no CUDA device ", device);
  return cuda_generators[index];
}

void manual_seed(uint64_t seed) {
  default_generator().set_current_seed(seed);
  cuda::manual_seed_all(seed);  // as torch::manual_seed (nothing without a GPU)
}

Generator make_generator(uint64_t seed) { return Generator(seed); }

}  // namespace nabla
