#pragma once
// Starting the ranks of a multi-process test: each a child process with its own
// environment and its output in a file, all killed when the time limit passes (a hang is
// a failure with the output so far, never a stuck test).
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace nabla::testing {

struct ProcessResult {
  int exit_code = -1;  // -1: killed by a signal or by the time limit
  int signal = 0;
  bool timed_out = false;
  double seconds = 0;  // from the start of all processes to this one's end
  std::string output;  // stdout and stderr
};

struct ProcessSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // added to this process's environment
};

std::vector<ProcessResult> run_processes(const std::vector<ProcessSpec>& specs,
                                         std::chrono::seconds limit);

/// A TCP port on 127.0.0.1 that was free a moment ago.
int free_port();

}  // namespace nabla::testing
