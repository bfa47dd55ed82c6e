// W5 (bench/README.md): peak resident memory of W3 training, nabla alone (this binary does not
// link LibTorch; LibTorch's figure comes from `bench_w3 --only libtorch`, whose process
// maps only LibTorch's side). Runs --steps training steps and prints VmHWM.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "w3_nabla.h"

int main(int argc, char** argv) {
  int steps = 20, threads = 1;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--steps")) steps = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = std::stoi(argv[i + 1]);
  }
  nabla::set_num_threads(threads);
  NablaW3 w3;
  for (int s = 0; s < steps; ++s) w3.step();
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0)
      std::printf("W5 nabla, %d threads, %d W3 steps: peak RSS %.1f MiB\n", threads, steps,
                  std::stod(line.substr(6)) / 1024);
  return 0;
}
