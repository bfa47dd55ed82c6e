#pragma once
// The benchmarks' timer: the median wall time in ms of `runs` calls of step(), after
// `warmup` untimed ones.
#include <algorithm>
#include <chrono>
#include <vector>

template <class F>
double median_ms(F&& step, int runs, int warmup = 0) {
  for (int r = 0; r < warmup; ++r) step();
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    auto a = std::chrono::steady_clock::now();
    step();
    auto b = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
