// DistributedDataParallel on whatever group the worker runs (Gloo or MPI, 2 or 3 ranks):
// data-parallel training must equal one process training on the whole batch.
#include <gtest/gtest.h>

#include "distributed/ddp_checks.h"
#include "test_util.h"

namespace nabla::testing {
namespace dist = nabla::distributed;
namespace F = nabla::nn::functional;

// the W3 CNN (bench/README.md).
struct W3Impl : nn::Module {
  W3Impl() {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)));
    fc1 = register_module("fc1", nn::Linear(3136, 128));
    fc2 = register_module("fc2", nn::Linear(128, 10));
  }
  Tensor forward(Tensor x) {
    x = max_pool2d(relu(conv1->forward(x)), 2);
    x = max_pool2d(relu(conv2->forward(x)), 2);
    return fc2->forward(relu(fc1->forward(x.flatten(1))));
  }
  nn::Conv2d conv1 = nullptr, conv2 = nullptr;
  nn::Linear fc1 = nullptr, fc2 = nullptr;
};
NABLA_MODULE(W3);

namespace {

// Batch `step` of `n` examples, the same on every rank.
std::pair<Tensor, Tensor> batch(int step, int64_t n) {
  Generator g(static_cast<uint64_t>(1000 + step));
  Tensor x = randn({n, 1, 28, 28}, g);
  Tensor y = randint(0, 10, {n}, g, TensorOptions(kLong));
  return {x, y};
}

void copy_parameters(const nn::Module& from, nn::Module& to) {
  NoGradGuard no_grad;
  auto src = from.parameters(), dst = to.parameters();
  for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
}

double max_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
  return worst;
}

// Trains W3 for 50 steps on shares of each batch through DDP and, beside it, one model on
// the whole batch; their parameters must stay within `tolerance`. With `per_step`, each
// step is compared from equal parameters (the reference takes DDP's after each step):
// Note [DDP against one process].
template <class MakeOptimizer>
void train_and_compare(std::shared_ptr<dist::ProcessGroup> pg, MakeOptimizer make_optimizer,
                       ScalarType dtype, double tolerance, bool per_step, const char* what) {
  const int world = pg->getSize(), rank = pg->getRank();
  const int64_t per_rank = 8;
  manual_seed(7 + rank);  // different on every rank: DDP must broadcast rank 0's
  W3 net;
  manual_seed(7);
  W3 reference;  // rank 0's initial weights, trained on the whole batch
  net->to(dtype);
  reference->to(dtype);
  dist::DistributedDataParallel<W3> ddp(net, pg);
  auto opt = make_optimizer(net->parameters());
  auto ref_opt = make_optimizer(reference->parameters());
  EXPECT_EQ(max_difference(net->parameters(), reference->parameters()), 0.0)
      << "DDP did not start from rank 0's weights";
  for (int step = 0; step < 50; ++step) {
    auto [x, y] = batch(step, per_rank * world);
    x = x.to(dtype);
    opt.zero_grad();
    F::cross_entropy(ddp.forward(x.narrow(0, rank * per_rank, per_rank)),
                     y.narrow(0, rank * per_rank, per_rank))
        .backward();
    opt.step();
    ref_opt.zero_grad();
    F::cross_entropy(reference->forward(x), y).backward();
    ref_opt.step();
    if (per_step) {
      ASSERT_LE(max_difference(net->parameters(), reference->parameters()), tolerance)
          << what << " in " << toString(dtype) << ", step " << step << " on " << world
          << " ranks differs from one process's step";
      copy_parameters(*net, *reference);
    }
  }
  EXPECT_LE(max_difference(net->parameters(), reference->parameters()), tolerance)
      << what << " in " << toString(dtype) << ": " << world
      << " ranks on shares of the batch drifted from one process";
}

}  // namespace

// Note [DDP against one process]: the sums differ only in order (each rank sums its share,
// then the ranks' sums are added). In float64 the two runs stay within 1e-14 over 50 free
// steps. In float32 a step differs by about 1e-8, but over free-running steps that gap
// flips a ReLU or max-pool tie sooner or later (measured 2026-11-26: SGD at 0.05 after
// ~35 steps, gap 2e-5; Adam on 3 ranks, 5e-4), which is rounding amplified by training,
// not a wrong reduction; so float32 is compared step by step from equal parameters. Adam
// divides by sqrt(v): a gradient entry that is a near-cancelling sum (1e-8 from terms of
// 1e-3) carries a relative rounding error of 1e-2 into a step of size lr, so its float32
// step differs by up to 1.4e-6 (measured on 2 and 3 ranks), and by 1.8e-5 on 3 ranks
// once the random streams became LibTorch's (2026-11-27: other data, a nearer
// cancellation). Such an entry can move by a sizeable part of lr, so float32 is held to
// lr / 10 = 1e-4 per step, float64 to 1e-12 like SGD.
void check_ddp_sgd(std::shared_ptr<dist::ProcessGroup> pg) {
  auto sgd = [](std::vector<Tensor> p) { return optim::SGD(p, 0.05); };
  train_and_compare(pg, sgd, kFloat, 1e-6, /*per_step=*/true, "SGD");
  train_and_compare(pg, sgd, kDouble, 1e-12, /*per_step=*/false, "SGD");
}

void check_ddp_adam(std::shared_ptr<dist::ProcessGroup> pg) {
  auto adam = [](std::vector<Tensor> p) { return optim::Adam(p, optim::AdamOptions(1e-3)); };
  train_and_compare(pg, adam, kFloat, 1e-4, /*per_step=*/true, "Adam");
  train_and_compare(pg, adam, kDouble, 1e-12, /*per_step=*/false, "Adam");
}

void check_ddp_no_sync(std::shared_ptr<dist::ProcessGroup> pg) {
  const int world = pg->getSize(), rank = pg->getRank();
  const int64_t n = 4;
  manual_seed(3);
  W3 net, reference;
  copy_parameters(*net, *reference);
  dist::DistributedDataParallel<W3> ddp(net, pg);
  auto [x1, y1] = batch(1, n * world);
  auto [x2, y2] = batch(2, n * world);
  {
    auto guard = ddp.no_sync();
    F::cross_entropy(ddp.forward(x1.narrow(0, rank * n, n)), y1.narrow(0, rank * n, n)).backward();
  }
  F::cross_entropy(ddp.forward(x2.narrow(0, rank * n, n)), y2.narrow(0, rank * n, n)).backward();
  // Each rank's two micro-batch losses summed, averaged over ranks.
  Tensor total = zeros({});
  for (int r = 0; r < world; ++r)
    total = total +
            F::cross_entropy(reference->forward(x1.narrow(0, r * n, n)), y1.narrow(0, r * n, n)) +
            F::cross_entropy(reference->forward(x2.narrow(0, r * n, n)), y2.narrow(0, r * n, n));
  (total / world).backward();
  std::vector<Tensor> got, want;
  for (auto& p : net->parameters()) got.push_back(p.grad());
  for (auto& p : reference->parameters()) want.push_back(p.grad());
  EXPECT_LE(max_difference(got, want), 1e-6);
}

void check_ddp_overlap(std::shared_ptr<dist::ProcessGroup> pg) {
  manual_seed(5);
  W3 net;
  dist::DistributedDataParallel<W3> ddp(net, pg);
  ASSERT_GE(ddp.reducer().bucket_indices().size(), 2u) << "W3 should fill more than one bucket";
  // The first bucket holds the last layer's parameters (reverse order).
  EXPECT_EQ(ddp.reducer().bucket_indices()[0].front(), net->parameters().size() - 1);
  int early = 0;
  for (int step = 0; step < 5; ++step) {
    auto [x, y] = batch(step, 16);
    F::cross_entropy(ddp.forward(x), y).backward();
    const auto& t = ddp.last_step();
    ASSERT_EQ(t.buckets.size(), ddp.reducer().bucket_indices().size());
    EXPECT_LT(t.buckets[0].queued, t.backward_end) << "the first bucket waited for backward's end";
    if (t.buckets[0].started < t.backward_end) ++early;
    EXPECT_LE(t.backward_end, t.synchronized);
  }
  // Its all-reduce also begins running before backward ends: the group's thread picks it
  // up at once, though with more ranks than cores it may lag in some steps.
  EXPECT_GE(early, 1);
}

void check_ddp_buffers(std::shared_ptr<dist::ProcessGroup> pg) {
  const double rank = pg->getRank();
  nn::BatchNorm1d bn(3);
  {
    NoGradGuard no_grad;
    bn->running_mean.fill_(rank + 1);
    bn->weight.fill_(rank + 5);
  }
  dist::DistributedDataParallel<nn::BatchNorm1d> ddp(bn, pg);
  EXPECT_EQ(values(bn->running_mean), std::vector<double>(3, 1.0)) << "buffers are rank 0's";
  EXPECT_EQ(values(bn->weight), std::vector<double>(3, 5.0)) << "parameters are rank 0's";
  bn->eval();  // the forward below leaves the statistics as they are
  {
    NoGradGuard no_grad;
    bn->running_var.fill_(rank + 2);
  }
  ddp.forward(ones({4, 3}));  // broadcasts rank 0's buffers first
  EXPECT_EQ(values(bn->running_var), std::vector<double>(3, 2.0));
}

// Two branches; `use_b` decides whether branch b takes part in the loss.
struct TwoBranchImpl : nn::Module {
  TwoBranchImpl() {
    a = register_module("a", nn::Linear(4, 2));
    b = register_module("b", nn::Linear(4, 2));
    never = register_module("never", nn::Linear(4, 2));
  }
  Tensor forward(Tensor x, bool use_b) {
    return use_b ? a->forward(x) + b->forward(x) : a->forward(x);
  }
  nn::Linear a = nullptr, b = nullptr, never = nullptr;
};
NABLA_MODULE(TwoBranch);

void check_ddp_unused_parameters(std::shared_ptr<dist::ProcessGroup> pg) {
  const int rank = pg->getRank(), world = pg->getSize();
  manual_seed(9);
  Tensor x = randn({3, 4});
  {
    // Without the option: a clear error on every rank (all leave `never` unused).
    TwoBranch net;
    dist::DistributedDataParallel<TwoBranch> ddp(net, pg);
    expect_error([&] { ddp.forward(x, true).sum().backward(); },
                 {"got no gradient", "never.weight", "find_unused_parameters"});
  }
  TwoBranch net, reference;
  copy_parameters(*net, *reference);
  dist::DistributedDataParallelOptions o;
  o.find_unused_parameters = true;
  dist::DistributedDataParallel<TwoBranch> ddp(net, pg, o);
  // A stale gradient on the ranks that leave b unused must not enter the average.
  if (rank != 0) net->b->weight.mutable_grad() = full_like(net->b->weight, 42.0);
  ddp.forward(x, rank == 0).sum().backward();  // only rank 0 uses b
  reference->forward(x, true).sum().backward();
  // a: every rank's gradient, averaged (the same x); b: rank 0's over the world size.
  EXPECT_LE(max_difference({net->a->weight.grad()}, {reference->a->weight.grad()}), 1e-6);
  EXPECT_LE(max_difference({net->b->weight.grad()}, {reference->b->weight.grad() / world}), 1e-6);
  EXPECT_FALSE(net->never->weight.grad().defined()) << "unused everywhere: .grad() stays as it was";
}

}  // namespace nabla::testing
