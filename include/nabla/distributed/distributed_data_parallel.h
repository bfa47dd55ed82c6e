#pragma once
// DistributedDataParallel: data-parallel training over a ProcessGroup (PyTorch's
// torch.nn.parallel.DistributedDataParallel; LibTorch's C++ frontend has none). Every
// rank holds the whole model and a share of each batch; after backward every rank holds
// the gradient averaged over all ranks, so their optimizers take the same step.
//
//   auto pg = nabla::distributed::init_process_group({"gloo"});
//   auto net = std::make_shared<Net>();
//   nabla::distributed::DistributedDataParallel ddp(net, pg);  // broadcasts rank 0's weights
//   nabla::optim::SGD opt(net->parameters(), 0.1);
//   for (auto& batch : *loader) {            // a DistributedRandomSampler's share
//     opt.zero_grad();
//     auto loss = nabla::nll_loss(ddp.forward(batch.data), batch.target);
//     loss.backward();                       // gradients averaged when it returns
//     opt.step();
//   }
//
// Note [Gradient buckets]: the parameters are grouped, in reverse order (the order
// backward produces their gradients), into buckets of about bucket_cap_mb (the first
// first_bucket_mb, so that communication starts early). A hook on each parameter's
// gradient accumulation marks it ready; a bucket whose parameters are all ready is copied
// into one flat buffer, divided by the world size and all-reduced asynchronously while
// backward goes on. Buckets are launched in order, so every rank issues the same
// collectives in the same order. When backward's graph is done, a callback waits for the
// buckets and writes the averaged gradients back into .grad().
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nabla/distributed/process_group.h"
#include "nabla/nn/module.h"

namespace nabla::distributed {

struct DistributedDataParallelOptions {
  /// The size a bucket is filled to (MB of gradients).
  double bucket_cap_mb = 25;
  /// The first bucket's size: small, so that its all-reduce starts early in backward.
  double first_bucket_mb = 1;
  /// Allows parameters that get no gradient in a step (on some or all ranks): when
  /// backward ends, their buckets are reduced with zeros for them, and a parameter unused
  /// on every rank keeps its .grad() as it was. Without it, such a parameter is an error
  /// naming it (instead of a hang).
  bool find_unused_parameters = false;
  /// Broadcasts rank 0's buffers (batch norm's running statistics) at each forward.
  bool broadcast_buffers = true;
};

/// What one step's communication did (the last backward's), for benchmarks and tests.
struct DdpStepTimeline {
  Work::Clock::time_point backward_end;  // when backward's graph was done
  Work::Clock::time_point synchronized;  // when the averaged gradients were in .grad()
  std::vector<Work::Timing> buckets;     // each bucket's all-reduce, in launch order
};

/// The engine behind DistributedDataParallel, independent of the module's type.
class Reducer {
 public:
  Reducer(std::vector<std::pair<std::string, Tensor>> named_parameters,
          std::shared_ptr<ProcessGroup> process_group, DistributedDataParallelOptions options);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  /// Arms the hooks for the backward of the forward now starting (with sync off, the
  /// gradients only accumulate locally).
  void prepare_for_backward(bool sync);
  /// The parameter indices of each bucket, in launch order.
  const std::vector<std::vector<size_t>>& bucket_indices() const { return bucket_params_; }
  const DdpStepTimeline& last_step() const { return timeline_; }

 private:
  struct Bucket;
  void on_gradient(size_t index);
  void launch_ready_buckets();
  void launch(size_t bucket);
  void finalize();

  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<unsigned> hook_ids_;
  std::shared_ptr<ProcessGroup> pg_;
  DistributedDataParallelOptions options_;
  std::vector<std::vector<size_t>> bucket_params_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;  // parameter index → bucket
  std::vector<uint8_t> ready_;     // per parameter: got its gradient in this backward
  size_t next_bucket_ = 0;
  bool armed_ = false;
  bool sync_ = true;
  bool finalize_queued_ = false;
  DdpStepTimeline timeline_;
};

/// Broadcasts `tensors` from rank `root`: one collective per dtype over the tensors
/// flattened together, waited.
void broadcast_tensors(ProcessGroup& pg, const std::vector<Tensor>& tensors, int root = 0);

/// Wraps a module (a module holder such as nn::Linear or a std::shared_ptr to a module
/// with a forward). The module's parameters are rank 0's after construction.
template <class ModulePtr>
class DistributedDataParallel {
 public:
  DistributedDataParallel(ModulePtr module, std::shared_ptr<ProcessGroup> process_group,
                          DistributedDataParallelOptions options = {})
      : module_(std::move(module)), pg_(std::move(process_group)), options_(options) {
    NABLA_CHECK(pg_ != nullptr, "DistributedDataParallel: the process group is null");
    std::vector<Tensor> state;
    for (const auto& p : module_->parameters()) state.push_back(p);
    for (const auto& b : module_->buffers()) state.push_back(b);
    broadcast_tensors(*pg_, state);
    std::vector<std::pair<std::string, Tensor>> named;
    for (const auto& item : module_->named_parameters())
      if (item.value().requires_grad()) named.emplace_back(item.key(), item.value());
    reducer_ = std::make_unique<Reducer>(std::move(named), pg_, options_);
  }

  /// Runs the module's forward, first arming the gradient hooks (and broadcasting rank
  /// 0's buffers when the options say so).
  template <class... Args>
  decltype(auto) forward(Args&&... args) {
    if (options_.broadcast_buffers && sync_) {
      auto buffers = module_->buffers();
      if (!buffers.empty()) broadcast_tensors(*pg_, {buffers.begin(), buffers.end()});
    }
    reducer_->prepare_for_backward(sync_);
    return module_->forward(std::forward<Args>(args)...);
  }
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    return forward(std::forward<Args>(args)...);
  }

  /// While the guard lives, forwards and their backwards only accumulate gradients
  /// locally; the first synchronized backward after it averages the accumulated sum.
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(DistributedDataParallel& ddp) : ddp_(ddp), prev_(ddp.sync_) {
      ddp_.sync_ = false;
    }
    ~NoSyncGuard() { ddp_.sync_ = prev_; }
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    DistributedDataParallel& ddp_;
    bool prev_;
  };
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*this); }

  ModulePtr& module() { return module_; }
  std::vector<Tensor> parameters() const { return module_->parameters(); }
  const std::shared_ptr<ProcessGroup>& process_group() const { return pg_; }
  const Reducer& reducer() const { return *reducer_; }
  const DdpStepTimeline& last_step() const { return reducer_->last_step(); }

 private:
  ModulePtr module_;
  std::shared_ptr<ProcessGroup> pg_;
  DistributedDataParallelOptions options_;
  std::unique_ptr<Reducer> reducer_;
  bool sync_ = true;
};

}  // namespace nabla::distributed
