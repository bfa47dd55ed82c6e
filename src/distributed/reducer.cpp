// The Reducer of DistributedDataParallel: Note [Gradient buckets]
// (distributed_data_parallel.h).
#include <algorithm>

#include "nabla/autograd/autograd.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/core/error.h"
#include "nabla/distributed/distributed_data_parallel.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

namespace nabla::distributed {

struct Reducer::Bucket {
  ScalarType dtype;
  int64_t numel = 0;
  std::vector<int64_t> offsets;  // of each parameter's gradient in `flat`
  Tensor flat;
  size_t pending = 0;  // parameters whose gradient has not arrived in this backward
  std::shared_ptr<Work> work;
};

void broadcast_tensors(ProcessGroup& pg, const std::vector<Tensor>& tensors, int root) {
  // One collective per dtype, not per tensor (a model with batch norms has three buffers a
  // layer): the tensors flattened into one buffer, broadcast, and copied back.
  AutoGradMode no_grad(false);
  std::vector<ScalarType> dtypes;
  for (const Tensor& t : tensors)
    if (std::find(dtypes.begin(), dtypes.end(), t.scalar_type()) == dtypes.end())
      dtypes.push_back(t.scalar_type());
  BroadcastOptions o;
  o.rootRank = root;
  for (ScalarType dtype : dtypes) {
    std::vector<Tensor> members;
    for (const Tensor& t : tensors)
      if (t.scalar_type() == dtype) members.push_back(t.reshape({-1}));
    std::vector<Tensor> flat{cat(members)};
    pg.broadcast(flat, o)->wait();
    int64_t at = 0;
    for (const Tensor& t : tensors)
      if (t.scalar_type() == dtype) {
        t.copy_(flat[0].narrow(0, at, t.numel()).view(t.sizes()));
        at += t.numel();
      }
  }
}

Reducer::Reducer(std::vector<std::pair<std::string, Tensor>> named_parameters,
                 std::shared_ptr<ProcessGroup> process_group,
                 DistributedDataParallelOptions options)
    : params_(std::move(named_parameters)), pg_(std::move(process_group)), options_(options) {
  NABLA_CHECK(options_.bucket_cap_mb > 0 && options_.first_bucket_mb > 0,
              "DistributedDataParallel: bucket_cap_mb and first_bucket_mb must be positive, got ",
              options_.bucket_cap_mb, " and ", options_.first_bucket_mb);
  // Buckets in reverse parameter order, one dtype each.
  const double mb = 1024.0 * 1024.0;
  bucket_of_.assign(params_.size(), 0);
  for (size_t k = params_.size(); k-- > 0;) {
    const Tensor& p = params_[k].second;
    const double cap =
        (buckets_.size() <= 1 ? std::min(options_.first_bucket_mb, options_.bucket_cap_mb)
                              : options_.bucket_cap_mb) *
        mb;
    const bool fresh = buckets_.empty() || buckets_.back().dtype != p.scalar_type() ||
                       (buckets_.back().numel > 0 &&
                        static_cast<double>((buckets_.back().numel + p.numel()) *
                                            static_cast<int64_t>(p.element_size())) > cap);
    if (fresh) {
      buckets_.push_back({});
      buckets_.back().dtype = p.scalar_type();
      bucket_params_.emplace_back();
    }
    Bucket& b = buckets_.back();
    b.offsets.push_back(b.numel);
    b.numel += p.numel();
    bucket_params_.back().push_back(k);
    bucket_of_[k] = buckets_.size() - 1;
  }
  for (Bucket& b : buckets_) b.flat = zeros({b.numel}, TensorOptions(b.dtype));
  ready_.assign(params_.size(), 0);
  for (size_t k = 0; k < params_.size(); ++k)
    hook_ids_.push_back(autograd::register_post_accumulate_grad_hook(
        params_[k].second, [this, k](const Tensor&) { on_gradient(k); }));
}

Reducer::~Reducer() {
  for (size_t k = 0; k < params_.size(); ++k)
    autograd::remove_post_accumulate_grad_hook(params_[k].second, hook_ids_[k]);
}

void Reducer::prepare_for_backward(bool sync) {
  sync_ = sync;
  armed_ = true;
  finalize_queued_ = false;
  next_bucket_ = 0;
  std::fill(ready_.begin(), ready_.end(), 0);
  for (size_t b = 0; b < buckets_.size(); ++b) {
    // A backward that failed before its end may have left an all-reduce running on the
    // bucket's buffer: it ends before the buffer is refilled (its error was reported).
    if (buckets_[b].work) {
      try {
        buckets_[b].work->wait();
      } catch (const std::exception&) {
      }
    }
    buckets_[b].pending = bucket_params_[b].size();
    buckets_[b].work.reset();
  }
}

void Reducer::on_gradient(size_t index) {
  NABLA_CHECK(armed_, "DistributedDataParallel: the gradient of '", params_[index].first,
              "' was accumulated by a backward whose forward did not go through "
              "DistributedDataParallel::forward (or a second backward after one forward): "
              "it would not be averaged across ranks");
  if (!sync_) return;
  NABLA_CHECK(!ready_[index], "DistributedDataParallel: '", params_[index].first,
              "' got its gradient twice in one backward");
  ready_[index] = 1;
  if (!finalize_queued_) {
    finalize_queued_ = true;
    autograd::queue_callback([this] { finalize(); });
  }
  if (--buckets_[bucket_of_[index]].pending == 0) launch_ready_buckets();
}

void Reducer::launch_ready_buckets() {
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0)
    launch(next_bucket_++);
}

void Reducer::launch(size_t index) {
  Bucket& b = buckets_[index];
  AutoGradMode no_grad(false);
  const auto& members = bucket_params_[index];
  for (size_t i = 0; i < members.size(); ++i) {
    const Tensor& g = params_[members[i]].second.grad();
    Tensor slot = b.flat.narrow(0, b.offsets[i], params_[members[i]].second.numel());
    // A parameter this backward did not reach (find_unused_parameters) adds zeros, not
    // whatever its .grad() still holds.
    if (ready_[members[i]] && g.defined())
      slot.copy_(g.reshape({-1}));
    else
      slot.zero_();
  }
  b.flat.div_(pg_->getSize());
  std::vector<Tensor> one{b.flat};
  b.work = pg_->allreduce(one);
}

void Reducer::finalize() {
  armed_ = false;
  timeline_ = {};
  timeline_.backward_end = Work::Clock::now();
  if (next_bucket_ < buckets_.size()) {
    if (!options_.find_unused_parameters) {
      std::string names;
      size_t count = 0;
      for (size_t k = 0; k < params_.size(); ++k)
        if (!ready_[k] && count++ < 10) names += (names.empty() ? "" : ", ") + params_[k].first;
      throw Error(
          str("DistributedDataParallel: ", count,
              " parameter(s) got no gradient in this backward (", names, count > 10 ? ", ..." : "",
              "); they would leave the other ranks waiting. Construct DistributedDataParallel with "
              "find_unused_parameters = true if parts of the model may go unused"));
    }
    for (Bucket& b : buckets_) b.pending = 0;
    launch_ready_buckets();
  }
  // Which parameters some rank used: one unused everywhere keeps its .grad().
  Tensor used_anywhere;
  if (options_.find_unused_parameters) {
    used_anywhere =
        from_blob(ready_.data(), {static_cast<int64_t>(ready_.size())}, TensorOptions(kByte))
            .clone();
    std::vector<Tensor> one{used_anywhere};
    AllreduceOptions o;
    o.reduceOp = ReduceOp::MAX;
    pg_->allreduce(one, o)->wait();
  }
  AutoGradMode no_grad(false);
  for (size_t index = 0; index < buckets_.size(); ++index) {
    Bucket& b = buckets_[index];
    b.work->wait();
    timeline_.buckets.push_back(b.work->timing());
    const auto& members = bucket_params_[index];
    for (size_t i = 0; i < members.size(); ++i) {
      const Tensor& p = params_[members[i]].second;
      if (used_anywhere.defined() && used_anywhere.data_ptr<uint8_t>()[members[i]] == 0) continue;
      Tensor averaged = b.flat.narrow(0, b.offsets[i], p.numel()).view(p.sizes());
      Tensor& g = p.mutable_grad();
      if (g.defined())
        g.copy_(averaged);
      else
        g = averaged.clone();
    }
  }
  timeline_.synchronized = Work::Clock::now();
}

}  // namespace nabla::distributed
