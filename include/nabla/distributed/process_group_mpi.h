#pragma once
// ProcessGroupMPI: collectives through MPI (Debian's Open MPI), for programs launched by
// mpirun (c10d::ProcessGroupMPI). MPI is initialised once per process (thread level
// "serialized": only the group's thread calls MPI) and finalised at exit. Without MPI at
// build time createProcessGroupMPI throws a nabla::Error saying so.
//
// MPI has no timeouts: a rank that dies makes mpirun end the job (the others are killed,
// mpirun exits non-zero); Work::wait(timeout) still returns control with an error.
#include <memory>
#include <vector>

#include "nabla/distributed/process_group.h"

namespace nabla::distributed {

class ProcessGroupMPI : public ProcessGroup {
 public:
  /// The group of all processes (`ranks` empty) or of the listed MPI_COMM_WORLD ranks;
  /// a process not in `ranks` gets nullptr, as LibTorch's.
  static std::shared_ptr<ProcessGroupMPI> createProcessGroupMPI(std::vector<int> ranks = {});
  ~ProcessGroupMPI() override;
  const std::string getBackendName() const override { return "mpi"; }

 protected:
  void run_allreduce(void* data, size_t count, ScalarType dtype, ReduceOp op,
                     std::chrono::milliseconds timeout) override;
  void run_broadcast(void* data, size_t bytes, int root,
                     std::chrono::milliseconds timeout) override;
  void run_allgather(const void* in, void* out, size_t bytes,
                     std::chrono::milliseconds timeout) override;
  void run_barrier(std::chrono::milliseconds timeout) override;
  void run_reduce_scatter(void* in, void* out, size_t count, ScalarType dtype, ReduceOp op,
                          std::chrono::milliseconds timeout) override;
  void abort_backend() override;

 private:
  struct Impl;
  ProcessGroupMPI(std::unique_ptr<Impl> impl, int rank, int size);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nabla::distributed
