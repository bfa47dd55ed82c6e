// The process group's queue and staging (Note [Collectives run in call order]); the
// backends implement only the blocking primitives of process_group.h's contract.
#include "nabla/distributed/process_group.h"

#include <cstring>

#include "nabla/autograd/grad_mode.h"
#include "nabla/core/error.h"
#include "nabla/ops/factories.h"

namespace nabla::distributed {

// Note [Collectives run in call order]
// Ranks must issue the same collectives in the same order, and a backend (Gloo's context,
// MPI's communicator) must not run two at once. So each group owns one thread that runs
// the queued collectives one by one in the order of the calls, while the caller goes on
// (DistributedDataParallel keeps computing backward meanwhile). A collective reads its
// tensors when it starts and writes them when it ends: the caller must not touch them in
// between, and waits on the Work first.

std::string_view to_string(ReduceOp op) {
  switch (op.op_) {
    case ReduceOp::SUM:
      return "SUM";
    case ReduceOp::AVG:
      return "AVG";
    case ReduceOp::PRODUCT:
      return "PRODUCT";
    case ReduceOp::MIN:
      return "MIN";
    case ReduceOp::MAX:
      return "MAX";
    case ReduceOp::BAND:
      return "BAND";
    case ReduceOp::BOR:
      return "BOR";
    case ReduceOp::BXOR:
      return "BXOR";
    default:
      return "UNUSED";
  }
}

namespace {

// The dtype a backend moves `t` in: float16 and bfloat16 are reduced in float32 (one
// rounding at the end instead of one per rank), bool as bytes, int8 and int16 as int32
// (sums and products wrap to the same value when narrowed back).
ScalarType wire_dtype(ScalarType t) {
  switch (t) {
    case kHalf:
    case kBFloat16:
      return kFloat;
    case kBool:
      return kByte;
    case kChar:
    case kShort:
      return kInt;
    default:
      return t;
  }
}

// A tensor as its backend buffer: itself when contiguous in its wire dtype, else a
// contiguous copy that `unstage` writes back.
struct Staged {
  Tensor user, buffer;
};
Staged stage(const Tensor& t) {
  const ScalarType w = wire_dtype(t.scalar_type());
  if (w == t.scalar_type() && t.is_contiguous()) return {t, t};
  return {t, t.to(w).contiguous()};
}
void unstage(const Staged& s) {
  if (!s.buffer.is_same(s.user)) s.user.copy_(s.buffer.view(s.user.sizes()));
}

// What the backend runs for `op`: AVG is a SUM (the group divides after), and on bool
// tensors (0/1 bytes) a sum is an or, a product an and.
ReduceOp wire_op(ReduceOp op, ScalarType dtype) {
  if (op == ReduceOp::AVG) return ReduceOp::SUM;
  if (dtype != kBool) return op;
  if (op == ReduceOp::SUM) return ReduceOp::MAX;
  if (op == ReduceOp::PRODUCT) return ReduceOp::MIN;
  return op;
}

void check_reduce_op(const char* name, ReduceOp op, ScalarType dtype) {
  NABLA_CHECK(op < ReduceOp::UNUSED, name, ": unknown ReduceOp ", int(op.op_));
  if (op == ReduceOp::AVG)
    NABLA_CHECK(isFloatingType(dtype), name, ": ReduceOp::AVG needs a floating-point tensor, got ",
                toString(dtype), " (use SUM and divide)");
  if (op == ReduceOp::BAND || op == ReduceOp::BOR || op == ReduceOp::BXOR)
    NABLA_CHECK(!isFloatingType(dtype), name, ": ReduceOp::", to_string(op),
                " needs an integer or bool tensor, got ", toString(dtype));
}

void check_one(const char* name, const std::vector<Tensor>& tensors, const char* what) {
  const std::string kind = *what ? std::string(what) + " tensor" : "tensor";
  NABLA_CHECK(tensors.size() == 1, name, ": expected one ", kind,
              " per process (nabla runs on one device), got ", tensors.size());
  NABLA_CHECK(tensors[0].defined(), name, ": the ", kind, " is undefined");
}

void check_like(const char* name, const Tensor& t, const Tensor& ref, const char* what, size_t i) {
  NABLA_CHECK(t.defined(), name, ": ", what, " tensor ", i, " is undefined");
  NABLA_CHECK(t.scalar_type() == ref.scalar_type() && t.sizes() == ref.sizes(), name, ": ", what,
              " tensor ", i, " is ", toString(t.scalar_type()), t.sizes(), ", expected ",
              toString(ref.scalar_type()), ref.sizes(), " like the ",
              std::string_view(what) == "input" ? "output" : "input");
}

}  // namespace

ProcessGroup::ProcessGroup(int rank, int size) : rank_(rank), size_(size) {
  NABLA_CHECK(size > 0, "ProcessGroup: the world size must be positive, got ", size);
  NABLA_CHECK(rank >= 0 && rank < size, "ProcessGroup: rank ", rank,
              " is out of range for world size ", size, " (expected 0 <= rank < ", size, ")");
  thread_ = std::thread([this] { loop(); });
}

ProcessGroup::~ProcessGroup() { shutdown(); }

void ProcessGroup::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string ProcessGroup::where() const {
  return str("(", getBackendName(), ", rank ", rank_, " of ", size_, ")");
}

std::chrono::milliseconds ProcessGroup::resolve(std::chrono::milliseconds t) const {
  return t == kUnsetTimeout ? timeout_ : t;
}

std::shared_ptr<Work> ProcessGroup::enqueue(std::string name, std::vector<Tensor> outputs,
                                            std::function<void()> run) {
  auto work = std::make_shared<Work>(name, std::move(outputs));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    NABLA_CHECK(!stopping_, name, ": the process group is shutting down");
    queue_.push_back({work, std::move(run)});
  }
  wake_.notify_one();
  return work;
}

void ProcessGroup::loop() {
  AutoGradMode no_grad(false);  // staging copies into parameters and gradients
  for (;;) {
    Job job;
    std::string broken;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued has run
      job = std::move(queue_.front());
      queue_.pop_front();
      broken = broken_;
    }
    job.work->mark_started();
    if (!broken.empty()) {
      job.work->finish(std::make_exception_ptr(
          Error(str(job.work->name(), " ", where(),
                    ": the process group is unusable after an earlier failure: ", broken))));
      continue;
    }
    try {
      job.run();
      job.work->finish();
    } catch (const std::exception& e) {
      const std::string what = e.what();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (broken_.empty()) broken_ = job.work->name() + ": " + what;
      }
      job.work->finish(
          std::make_exception_ptr(Error(str(job.work->name(), " ", where(), " failed: ", what))));
    }
  }
}

void ProcessGroup::abort() {
  std::deque<Job> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (broken_.empty()) broken_ = "abort() was called";
    dropped.swap(queue_);
  }
  for (Job& job : dropped) job.work->abort();
  abort_backend();
}

std::shared_ptr<Work> ProcessGroup::broadcast(std::vector<Tensor>& tensors,
                                              const BroadcastOptions& opts) {
  check_one("broadcast", tensors, "");
  NABLA_CHECK(opts.rootRank >= 0 && opts.rootRank < size_, "broadcast: rootRank ", opts.rootRank,
              " is out of range for world size ", size_);
  NABLA_CHECK(opts.rootTensor == 0,
              "broadcast: rootTensor must be 0 (one tensor per process), got ", opts.rootTensor);
  Tensor t = tensors[0];
  auto timeout = resolve(opts.timeout);
  int root = static_cast<int>(opts.rootRank);
  return enqueue("broadcast", tensors, [this, t, timeout, root] {
    Staged s = stage(t);
    run_broadcast(s.buffer.data_ptr(), s.buffer.nbytes(), root, timeout);
    unstage(s);
  });
}

std::shared_ptr<Work> ProcessGroup::allreduce(std::vector<Tensor>& tensors,
                                              const AllreduceOptions& opts) {
  check_one("allreduce", tensors, "");
  Tensor t = tensors[0];
  check_reduce_op("allreduce", opts.reduceOp, t.scalar_type());
  auto timeout = resolve(opts.timeout);
  ReduceOp op = opts.reduceOp;
  return enqueue("allreduce", tensors, [this, t, timeout, op] {
    Staged s = stage(t);
    run_allreduce(s.buffer.data_ptr(), static_cast<size_t>(s.buffer.numel()),
                  s.buffer.scalar_type(), wire_op(op, t.scalar_type()), timeout);
    if (op == ReduceOp::AVG) s.buffer.div_(size_);
    unstage(s);
  });
}

std::shared_ptr<Work> ProcessGroup::allgather(std::vector<std::vector<Tensor>>& outputTensors,
                                              std::vector<Tensor>& inputTensors,
                                              const AllgatherOptions& opts) {
  check_one("allgather", inputTensors, "input");
  NABLA_CHECK(outputTensors.size() == 1, "allgather: expected one list of output tensors, got ",
              outputTensors.size());
  const Tensor in = inputTensors[0];
  std::vector<Tensor> outs = outputTensors[0];
  NABLA_CHECK(outs.size() == static_cast<size_t>(size_), "allgather: expected ", size_,
              " output tensors (the world size), got ", outs.size());
  for (size_t r = 0; r < outs.size(); ++r) check_like("allgather", outs[r], in, "output", r);
  auto timeout = resolve(opts.timeout);
  return enqueue("allgather", outs, [this, in, outs, timeout] {
    Staged s = stage(in);
    const int64_t n = s.buffer.numel();
    Tensor all = empty({size_ * n}, TensorOptions(s.buffer.scalar_type()));
    run_allgather(s.buffer.data_ptr(), all.data_ptr(), s.buffer.nbytes(), timeout);
    for (int r = 0; r < size_; ++r) outs[r].copy_(all.narrow(0, r * n, n).view(outs[r].sizes()));
  });
}

std::shared_ptr<Work> ProcessGroup::reduce_scatter(std::vector<Tensor>& outputTensors,
                                                   std::vector<std::vector<Tensor>>& inputTensors,
                                                   const ReduceScatterOptions& opts) {
  check_one("reduce_scatter", outputTensors, "output");
  NABLA_CHECK(inputTensors.size() == 1, "reduce_scatter: expected one list of input tensors, got ",
              inputTensors.size());
  const Tensor out = outputTensors[0];
  std::vector<Tensor> ins = inputTensors[0];
  NABLA_CHECK(ins.size() == static_cast<size_t>(size_), "reduce_scatter: expected ", size_,
              " input tensors (the world size), got ", ins.size());
  for (size_t r = 0; r < ins.size(); ++r) check_like("reduce_scatter", ins[r], out, "input", r);
  check_reduce_op("reduce_scatter", opts.reduceOp, out.scalar_type());
  auto timeout = resolve(opts.timeout);
  ReduceOp op = opts.reduceOp;
  return enqueue("reduce_scatter", outputTensors, [this, out, ins, timeout, op] {
    const ScalarType w = wire_dtype(out.scalar_type());
    const int64_t n = out.numel();
    Tensor all = empty({size_ * n}, TensorOptions(w));
    for (int r = 0; r < size_; ++r) all.narrow(0, r * n, n).copy_(ins[r].reshape({n}));
    Staged s = stage(out);
    run_reduce_scatter(all.data_ptr(), s.buffer.data_ptr(), static_cast<size_t>(n), w,
                       wire_op(op, out.scalar_type()), timeout);
    if (op == ReduceOp::AVG) s.buffer.div_(size_);
    unstage(s);
  });
}

std::shared_ptr<Work> ProcessGroup::barrier(const BarrierOptions& opts) {
  auto timeout = resolve(opts.timeout);
  return enqueue("barrier", {}, [this, timeout] { run_barrier(timeout); });
}

void ProcessGroup::run_reduce_scatter(void* in, void* out, size_t count, ScalarType dtype,
                                      ReduceOp op, std::chrono::milliseconds timeout) {
  run_allreduce(in, count * static_cast<size_t>(size_), dtype, op, timeout);
  const size_t bytes = count * elementSize(dtype);
  std::memcpy(out, static_cast<const char*>(in) + bytes * static_cast<size_t>(rank_), bytes);
}

}  // namespace nabla::distributed
