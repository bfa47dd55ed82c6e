#pragma once
// Random number generation. A Generator is a (seed, offset) pair for a counter-based
// generator (Philox 4x32-10): a draw of n numbers reserves offsets [offset, offset + n)
// and element i is a pure function of (seed, offset + i). So the same seed gives the
// same numbers whatever the thread count, and generators are cheap to copy and save.
#include <cstdint>
#include <memory>
#include <mutex>

#include "nabla/core/device.h"

namespace nabla {

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull);
  void set_current_seed(uint64_t seed);
  uint64_t current_seed() const;
  /// Re-seeds from a nondeterministic source and returns the new seed.
  uint64_t seed();
  uint64_t get_offset() const;
  void set_offset(uint64_t offset);
  /// Reserves `n` consecutive counters; returns {seed, first offset}. Thread-safe.
  std::pair<uint64_t, uint64_t> reserve(uint64_t n);
  std::mutex& mutex() const { return state_->mutex; }

 private:
  struct State {
    uint64_t seed;
    uint64_t offset = 0;
    mutable std::mutex mutex;
  };
  std::shared_ptr<State> state_;  // copies share state, as at::Generator does
};

/// The process-wide generator used when an op is given none.
Generator& default_generator();
/// The default generator of a device: the CPU's above, or one per CUDA device ("cuda":
/// the current one). Philox streams are the same on every device, so one seed and offset
/// draw the same numbers on the CPU and on a GPU.
Generator& default_generator(Device device);
/// Seeds the default generators of the CPU and of every CUDA device (torch::manual_seed).
void manual_seed(uint64_t seed);
/// A new independent generator (torch::make_generator<CPUGeneratorImpl>(seed)).
Generator make_generator(uint64_t seed);

}  // namespace nabla
