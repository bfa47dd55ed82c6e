#pragma once
// init_process_group: a process group from arguments or the environment, as Python's
// torch.distributed.init_process_group with env://.
#include <chrono>
#include <memory>
#include <string>

#include "nabla/distributed/process_group.h"

namespace nabla::distributed {

struct InitOptions {
  /// "gloo" or "mpi".
  std::string backend = "gloo";
  /// Unset (-1, empty, 0): read from RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT. MPI takes
  /// rank and size from mpirun and needs none of them.
  int rank = -1;
  int world_size = -1;
  std::string master_addr;
  int master_port = 0;
  std::chrono::milliseconds timeout = kProcessGroupDefaultTimeout;
};

/// Gloo: rank 0 serves a TCPStore at master_addr:master_port, every rank connects to it
/// and to each other on the interface that reaches master_addr. A missing or malformed
/// variable, a rank outside [0, world_size), or a store that cannot be reached within the
/// timeout is a nabla::Error that says which.
std::shared_ptr<ProcessGroup> init_process_group(const InitOptions& options = {});

}  // namespace nabla::distributed
