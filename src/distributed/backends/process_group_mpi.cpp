// ProcessGroupMPI: the contract of process_group.h on MPI's collectives.
#include "nabla/distributed/process_group_mpi.h"

#include "nabla/core/error.h"

#if NABLA_HAVE_MPI
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <mutex>

namespace nabla::distributed {
namespace {

// MPI runs at thread level "serialized": one thread at a time. Each group calls MPI from
// its own thread only, and this lock keeps two groups (or a group and the creation of
// another) from calling at once.
std::mutex g_mpi;

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(str(call, " failed: ", std::string(text, static_cast<size_t>(len))));
}

void init_mpi_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided),
                "MPI_Init_thread");
      NABLA_CHECK(provided >= MPI_THREAD_SERIALIZED,
                  "ProcessGroupMPI: this MPI offers thread level ", provided,
                  ", nabla needs MPI_THREAD_SERIALIZED (", MPI_THREAD_SERIALIZED, ")");
      std::atexit([] {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Finalize();
      });
    }
  });
}

MPI_Datatype mpi_type(ScalarType dtype) {
  switch (dtype) {
    case kFloat:
      return MPI_FLOAT;
    case kDouble:
      return MPI_DOUBLE;
    case kByte:
      return MPI_UINT8_T;
    case kInt:
      return MPI_INT32_T;
    case kLong:
      return MPI_INT64_T;
    default:
      throw Error(str("ProcessGroupMPI: ", toString(dtype), " is not a wire dtype"));
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op.op_) {
    case ReduceOp::SUM:
      return MPI_SUM;
    case ReduceOp::PRODUCT:
      return MPI_PROD;
    case ReduceOp::MIN:
      return MPI_MIN;
    case ReduceOp::MAX:
      return MPI_MAX;
    case ReduceOp::BAND:
      return MPI_BAND;
    case ReduceOp::BOR:
      return MPI_BOR;
    case ReduceOp::BXOR:
      return MPI_BXOR;
    default:
      throw Error(str("ProcessGroupMPI: no MPI operator for ", to_string(op)));
  }
}

// MPI counts are ints: longer buffers go in chunks.
constexpr size_t kChunk = INT_MAX / 16;

}  // namespace

struct ProcessGroupMPI::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
};

ProcessGroupMPI::ProcessGroupMPI(std::unique_ptr<Impl> impl, int rank, int size)
    : ProcessGroup(rank, size), impl_(std::move(impl)) {
  set_timeout(kNoTimeout);  // MPI's collectives cannot time out
}

std::shared_ptr<ProcessGroupMPI> ProcessGroupMPI::createProcessGroupMPI(std::vector<int> ranks) {
  init_mpi_once();
  std::lock_guard<std::mutex> lock(g_mpi);
  auto impl = std::make_unique<Impl>();
  if (ranks.empty()) {
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &impl->comm), "MPI_Comm_dup");
  } else {
    int world = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    for (int r : ranks)
      NABLA_CHECK(r >= 0 && r < world, "createProcessGroupMPI: rank ", r,
                  " is not a rank of MPI_COMM_WORLD (size ", world, ")");
    MPI_Group world_group, group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, static_cast<int>(ranks.size()), ranks.data(), &group);
    check_mpi(MPI_Comm_create(MPI_COMM_WORLD, group, &impl->comm), "MPI_Comm_create");
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
    if (impl->comm == MPI_COMM_NULL) return nullptr;
  }
  MPI_Comm_set_errhandler(impl->comm, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  MPI_Comm_rank(impl->comm, &rank);
  MPI_Comm_size(impl->comm, &size);
  return std::shared_ptr<ProcessGroupMPI>(new ProcessGroupMPI(std::move(impl), rank, size));
}

ProcessGroupMPI::~ProcessGroupMPI() {
  shutdown();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && impl_->comm != MPI_COMM_NULL) {
    std::lock_guard<std::mutex> lock(g_mpi);
    MPI_Comm_free(&impl_->comm);
  }
}

void ProcessGroupMPI::run_allreduce(void* data, size_t count, ScalarType dtype, ReduceOp op,
                                    std::chrono::milliseconds) {
  std::lock_guard<std::mutex> lock(g_mpi);
  auto* p = static_cast<char*>(data);
  const size_t item = elementSize(dtype);
  for (size_t at = 0; at < count; at += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, count - at));
    check_mpi(
        MPI_Allreduce(MPI_IN_PLACE, p + at * item, n, mpi_type(dtype), mpi_op(op), impl_->comm),
        "MPI_Allreduce");
  }
}

void ProcessGroupMPI::run_broadcast(void* data, size_t bytes, int root, std::chrono::milliseconds) {
  std::lock_guard<std::mutex> lock(g_mpi);
  auto* p = static_cast<char*>(data);
  for (size_t at = 0; at < bytes; at += kChunk)
    check_mpi(MPI_Bcast(p + at, static_cast<int>(std::min(kChunk, bytes - at)), MPI_BYTE, root,
                        impl_->comm),
              "MPI_Bcast");
}

void ProcessGroupMPI::run_allgather(const void* in, void* out, size_t bytes,
                                    std::chrono::milliseconds) {
  NABLA_CHECK(bytes <= kChunk, "allgather: ", bytes, " bytes per rank is more than MPI's ", kChunk,
              " per call");
  std::lock_guard<std::mutex> lock(g_mpi);
  check_mpi(MPI_Allgather(in, static_cast<int>(bytes), MPI_BYTE, out, static_cast<int>(bytes),
                          MPI_BYTE, impl_->comm),
            "MPI_Allgather");
}

void ProcessGroupMPI::run_reduce_scatter(void* in, void* out, size_t count, ScalarType dtype,
                                         ReduceOp op, std::chrono::milliseconds) {
  NABLA_CHECK(count <= kChunk, "reduce_scatter: ", count, " elements per rank is more than MPI's ",
              kChunk, " per call");
  std::lock_guard<std::mutex> lock(g_mpi);
  check_mpi(MPI_Reduce_scatter_block(in, out, static_cast<int>(count), mpi_type(dtype), mpi_op(op),
                                     impl_->comm),
            "MPI_Reduce_scatter_block");
}

void ProcessGroupMPI::run_barrier(std::chrono::milliseconds) {
  std::lock_guard<std::mutex> lock(g_mpi);
  check_mpi(MPI_Barrier(impl_->comm), "MPI_Barrier");
}

void ProcessGroupMPI::abort_backend() { MPI_Abort(impl_->comm, 1); }

}  // namespace nabla::distributed

#else  // Built without MPI.

namespace nabla::distributed {
struct ProcessGroupMPI::Impl {};
std::shared_ptr<ProcessGroupMPI> ProcessGroupMPI::createProcessGroupMPI(std::vector<int>) {
  throw Error(
      "ProcessGroupMPI: nabla was built without MPI (install Debian's libopenmpi-dev and "
      "openmpi-bin and rebuild with NABLA_DISTRIBUTED=ON)");
}
ProcessGroupMPI::ProcessGroupMPI(std::unique_ptr<Impl> impl, int rank, int size)
    : ProcessGroup(rank, size), impl_(std::move(impl)) {}
ProcessGroupMPI::~ProcessGroupMPI() { shutdown(); }
void ProcessGroupMPI::run_allreduce(void*, size_t, ScalarType, ReduceOp,
                                    std::chrono::milliseconds) {}
void ProcessGroupMPI::run_broadcast(void*, size_t, int, std::chrono::milliseconds) {}
void ProcessGroupMPI::run_allgather(const void*, void*, size_t, std::chrono::milliseconds) {}
void ProcessGroupMPI::run_reduce_scatter(void*, void*, size_t, ScalarType, ReduceOp,
                                         std::chrono::milliseconds) {}
void ProcessGroupMPI::run_barrier(std::chrono::milliseconds) {}
void ProcessGroupMPI::abort_backend() {}
}  // namespace nabla::distributed

#endif
