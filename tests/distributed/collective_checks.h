#pragma once
// Each collective against the arithmetic it must do, on any process group: every rank
// computes what every other rank holds (rank_input is deterministic), reduces it with
// nabla's own ops and compares with what the collective gave. Run by the Gloo ranks of
// test_distributed (threads of one process) and by distributed_worker (processes, Gloo
// and MPI).
#include <nabla/distributed.h>
#include <nabla/nabla.h>

namespace nabla::testing {

/// What rank `rank` contributes: small values (sums and products stay exact in every
/// dtype), different per rank and per `salt`.
Tensor rank_input(ScalarType dtype, int rank, IntArrayRef shape, int salt = 0);

/// The dtypes every collective is checked with.
std::vector<ScalarType> collective_dtypes();

void check_allreduce(distributed::ProcessGroup& pg);
void check_allreduce_non_contiguous(distributed::ProcessGroup& pg);
void check_broadcast(distributed::ProcessGroup& pg);
void check_allgather(distributed::ProcessGroup& pg);
void check_reduce_scatter(distributed::ProcessGroup& pg);
void check_barrier(distributed::ProcessGroup& pg);
void check_work(distributed::ProcessGroup& pg);
void check_bad_arguments(distributed::ProcessGroup& pg);

/// All of the above, in an order every rank follows.
void check_all_collectives(distributed::ProcessGroup& pg);

}  // namespace nabla::testing
