#pragma once
// Peak resident memory of this process (VmHWM of /proc/self/status) in KiB, -1 when
// unreadable: W5's measure, and the --only runs of W3 and W6.
#include <fstream>
#include <string>

inline long peak_rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}
