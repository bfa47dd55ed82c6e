#pragma once
// Note [Random streams]: the CPU generator is LibTorch's, word for word. Its engine is
// the 32-bit Mersenne Twister (MT19937, Matsumoto and Nishimura 1998) seeded the way
// at::CPUGeneratorImpl seeds it: the low 32 bits of the seed through MT's linear
// initialisation, the first draw regenerating the whole state. A 64-bit draw is two
// 32-bit draws, the first one high. Box-Muller's second sample (double) is cached between
// calls, and is part of the state: manual_seed clears it, get_state/set_state carry it.
// How words become values (masks, accumulate types, FMA, the normal fill) is in
// src/backend/cpu/random_streams.cpp; CUDA generators keep Philox (src/backend/philox.h).
#include <cstdint>
#include <optional>

#include "nabla/core/generator.h"

namespace nabla {
namespace mt19937 {

inline constexpr int kWords = 624;  // state size in 32-bit words
inline constexpr int kShift = 397;  // distance to the word that the recurrence mixes in

class Engine {
 public:
  explicit Engine(uint64_t seed) { reseed(seed); }

  void reseed(uint64_t seed) {
    seed_ = seed;
    words_[0] = static_cast<uint32_t>(seed);
    for (int i = 1; i < kWords; ++i)
      words_[i] = 1812433253u * (words_[i - 1] ^ (words_[i - 1] >> 30)) + static_cast<uint32_t>(i);
    // The next draw regenerates the state first (as a freshly seeded LibTorch engine).
    left_ = 1;
    next_ = 0;
  }

  uint32_t operator()() {
    if (--left_ == 0) regenerate();
    uint32_t y = words_[next_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }
  uint64_t draw64() {
    const uint64_t high = (*this)();
    return (high << 32) | (*this)();
  }

  // The fields of LibTorch's state layout (Generator::get_state).
  uint64_t seed() const { return seed_; }
  int32_t left() const { return left_; }
  uint32_t next() const { return next_; }
  const uint32_t* words() const { return words_; }
  /// Restores raw fields; false (and nothing changed) when they cannot be a state that
  /// seeding and drawing produce.
  bool assign(uint64_t seed, int32_t left, uint32_t next, const uint32_t* words) {
    if (left <= 0 || left > kWords || next > static_cast<uint32_t>(kWords)) return false;
    seed_ = seed;
    left_ = left;
    next_ = next;
    for (int i = 0; i < kWords; ++i) words_[i] = words[i];
    return true;
  }

 private:
  // Word i becomes word i + kShift mixed with the top bit of word i and the low 31 of word
  // i + 1, in place and in order (later words see the new early ones).
  static uint32_t twist(uint32_t self, uint32_t following, uint32_t far) {
    const uint32_t y = (self & 0x80000000u) | (following & 0x7fffffffu);
    return far ^ (y >> 1) ^ ((following & 1u) ? 0x9908b0dfu : 0u);
  }
  void regenerate() {
    int i = 0;
    for (; i < kWords - kShift; ++i)
      words_[i] = twist(words_[i], words_[i + 1], words_[i + kShift]);
    for (; i < kWords - 1; ++i)
      words_[i] = twist(words_[i], words_[i + 1], words_[i + kShift - kWords]);
    words_[kWords - 1] = twist(words_[kWords - 1], words_[0], words_[kShift - 1]);
    left_ = kWords;
    next_ = 0;
  }

  uint64_t seed_ = 0;
  int32_t left_ = 1;   // draws until the next regeneration, plus one
  uint32_t next_ = 0;  // index of the next word to temper
  uint32_t words_[kWords];
};

}  // namespace mt19937

struct CpuGeneratorState {
  explicit CpuGeneratorState(uint64_t seed) : engine(seed) {}
  mt19937::Engine engine;
  /// Box-Muller's second sample for the double normal (the CPU kernels draw every
  /// per-element normal in double, whatever the dtype).
  std::optional<double> next_double_normal;
  /// The float one: LibTorch's CPU kernels never fill it, but its state carries it.
  std::optional<float> next_float_normal;
};

}  // namespace nabla
