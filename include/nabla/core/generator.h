#pragma once
// Random number generators, one kind per device (Note [Random streams]):
//
//  - CPU: LibTorch's CPU generator, bit for bit. An mt19937 engine seeded as
//    at::CPUGeneratorImpl seeds it, plus the cached second sample of Box-Muller. The CPU
//    kernels draw serially, in the order LibTorch's kernels draw, and turn the words into
//    values with LibTorch's formulas (src/backend/cpu/random_streams.cpp), so
//    manual_seed(s) followed by the same calls gives LibTorch's values: rand, randn,
//    uniform_, normal_, bernoulli, randint, randperm, dropout, multinomial, rrelu,
//    exponential_ and the like, nn::init and the modules' initial weights. Draws are
//    serial, as LibTorch's: the thread count and the kernels' vector width change no
//    stream.
//  - CUDA: a (seed, offset) pair for Philox 4x32-10, a counter-based generator: element i
//    of a draw is a pure function of (seed, offset + i) (Note [Counter-based random
//    numbers], src/backend/philox.h). LibTorch's CUDA generator is Philox too, but its
//    streams differ from nabla's, and a GPU draws other numbers than the CPU for a seed.
//
// A Generator is a handle: copies share one state, as at::Generator's do (clone() makes an
// independent one).
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "nabla/core/device.h"

namespace nabla {

class Tensor;
/// The CPU generator's state: the mt19937 engine and Box-Muller's cached samples
/// (include/nabla/core/detail/cpu_generator.h). Only the CPU kernels look inside.
struct CpuGeneratorState;

class Generator {
 public:
  /// LibTorch's default seed (default_rng_seed_val).
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;

  /// A CPU generator seeded with `seed` (at::CPUGeneratorImpl(seed)).
  explicit Generator(uint64_t seed = kDefaultSeed);
  /// A generator of `device`'s kind: mt19937 for the CPU, Philox for a CUDA device.
  Generator(uint64_t seed, Device device);

  /// The device whose tensors this generator fills.
  Device device() const;
  /// Re-seeds: the stream starts over (and a CPU generator forgets its cached normal).
  void set_current_seed(uint64_t seed);
  /// The seed last set. A CPU generator keeps all 64 bits, though only the low 32 seed
  /// mt19937 (as in LibTorch).
  uint64_t current_seed() const;
  /// Re-seeds from a nondeterministic source and returns the new seed.
  uint64_t seed();
  /// Philox (CUDA) generators only: the next counter, and setting it. A CPU generator
  /// has no offset (nabla::Error): its position is in get_state().
  uint64_t get_offset() const;
  void set_offset(uint64_t offset);
  /// The whole state as a new 1-d uint8 CPU tensor: for a CPU generator LibTorch's layout
  /// (5056 bytes, what torch::get_rng_state / CPUGeneratorImpl::get_state give, so the
  /// bytes can go either way between the two libraries); for CUDA 16 bytes, the seed and
  /// the offset.
  Tensor get_state() const;
  /// Restores a state from get_state() (or LibTorch's, for a CPU generator: 5056 bytes, or
  /// the 5048 of the legacy layout). A wrong size, dtype or an invalid mt19937 state is a
  /// nabla::Error and leaves the generator as it was.
  void set_state(const Tensor& new_state);
  /// An independent generator with a copy of this one's state.
  Generator clone() const;

  /// CPU generators only (CPUGeneratorImpl::random / random64): the next 32 random bits,
  /// and 64 from two draws (the first one high).
  uint32_t random();
  uint64_t random64();

  /// Philox generators only: reserves `n` consecutive counters; returns {seed, first
  /// offset}. Thread-safe.
  std::pair<uint64_t, uint64_t> reserve(uint64_t n);
  /// The lock every draw holds (LibTorch's generator mutex_).
  std::mutex& mutex() const;
  /// CPU generators only, for the CPU kernels, under mutex(): the engine and caches.
  CpuGeneratorState& cpu_state() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

/// The process-wide CPU generator used when an op is given none (LibTorch's
/// getDefaultCPUGenerator, seeded with kDefaultSeed).
Generator& default_generator();
/// The default generator of a device: the CPU's above, or one Philox generator per CUDA
/// device ("cuda": the current one).
Generator& default_generator(Device device);
/// Seeds the default generators of the CPU and of every CUDA device (torch::manual_seed).
void manual_seed(uint64_t seed);
/// A new independent CPU generator (torch::make_generator<CPUGeneratorImpl>(seed)).
Generator make_generator(uint64_t seed);
/// A new independent generator for `device` (a CUDA device: Philox).
Generator make_generator(uint64_t seed, Device device);

}  // namespace nabla
