#pragma once
// ProcessGroup: the processes that train together and their collectives (c10d's
// ProcessGroup). Every collective is asynchronous: it is queued and run by the group's
// own thread in the order of the calls (the order must be the same on every rank), and
// returns a Work to wait on. Tensors may have any dtype and any strides: the group
// stages what its backend cannot take as it is (non-contiguous tensors, float16 and
// bfloat16 reduced in float32, bool as bytes) and writes the results back.
//
// A backend implements the small contract at the bottom (blocking operations on
// contiguous buffers of float32, float64, uint8, int32 or int64), called on the group's
// thread only; docs/distributed.md says how to add one.
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/distributed/types.h"
#include "nabla/distributed/work.h"

namespace nabla::distributed {

class ProcessGroup {
 public:
  using Work = distributed::Work;
  struct Options {
    explicit Options(std::string backend,
                     std::chrono::milliseconds timeout = kProcessGroupDefaultTimeout)
        : backend(std::move(backend)), timeout(timeout) {}
    virtual ~Options() = default;
    std::string backend;
    std::chrono::milliseconds timeout;
  };

  ProcessGroup(int rank, int size);
  virtual ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int getRank() const { return rank_; }
  int getSize() const { return size_; }
  virtual const std::string getBackendName() const = 0;

  /// tensors[0] of every rank becomes rank opts.rootRank's. One tensor per call (nabla
  /// runs on one device), the same shape and dtype on every rank.
  std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors, const BroadcastOptions& opts = {});
  /// tensors[0] of every rank becomes the reduction of all ranks' tensors[0].
  std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors, const AllreduceOptions& opts = {});
  /// outputTensors[0][r] becomes rank r's inputTensors[0]; outputTensors[0] holds
  /// getSize() tensors of the input's shape and dtype.
  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputTensors,
                                  std::vector<Tensor>& inputTensors,
                                  const AllgatherOptions& opts = {});
  /// outputTensors[0] becomes the reduction over ranks of their inputTensors[0][getRank()].
  std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputTensors,
                                       std::vector<std::vector<Tensor>>& inputTensors,
                                       const ReduceScatterOptions& opts = {});
  /// Ends when every rank has called it.
  std::shared_ptr<Work> barrier(const BarrierOptions& opts = {});
  /// Fails the queued collectives and makes the group unusable; the backend stops what it
  /// can (MPI aborts the job, as LibTorch's ProcessGroupMPI; Gloo closes its connections).
  virtual void abort();

  /// The timeout a collective gets when its options leave it unset.
  std::chrono::milliseconds timeout() const { return timeout_; }

 protected:
  // ---- The backend contract: blocking, on the group's thread, buffers contiguous. -----
  /// In place over `count` elements of `dtype` (Float, Double, Byte, Int or Long); `op`
  /// is never AVG (the group divides after a SUM).
  virtual void run_allreduce(void* data, size_t count, ScalarType dtype, ReduceOp op,
                             std::chrono::milliseconds timeout) = 0;
  virtual void run_broadcast(void* data, size_t bytes, int root,
                             std::chrono::milliseconds timeout) = 0;
  /// `out` holds getSize() blocks of `bytes`, block r from rank r.
  virtual void run_allgather(const void* in, void* out, size_t bytes,
                             std::chrono::milliseconds timeout) = 0;
  virtual void run_barrier(std::chrono::milliseconds timeout) = 0;
  /// `in` holds getSize() blocks of `count` elements; `out` gets the reduction of block
  /// getRank(). By default an allreduce of `in` (a backend may do better).
  virtual void run_reduce_scatter(void* in, void* out, size_t count, ScalarType dtype, ReduceOp op,
                                  std::chrono::milliseconds timeout);
  /// Called by abort() after the queue is failed.
  virtual void abort_backend() {}
  /// A backend's constructor sets the timeout its options give.
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }
  /// Stops the thread (the destructor of the most derived class calls it, so no
  /// collective runs on a backend being destroyed).
  void shutdown();

 private:
  struct Job {
    std::shared_ptr<Work> work;
    std::function<void()> run;
  };
  std::shared_ptr<Work> enqueue(std::string name, std::vector<Tensor> outputs,
                                std::function<void()> run);
  std::chrono::milliseconds resolve(std::chrono::milliseconds t) const;
  std::string where() const;
  void loop();

  int rank_;
  int size_;
  std::chrono::milliseconds timeout_ = kProcessGroupDefaultTimeout;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::string broken_;  // the failure that made the group unusable
  std::thread thread_;
};

}  // namespace nabla::distributed
