// The autograd semantics of docs/design.md ("Autograd semantics"), one test per rule, named
// in each test's comment: the engine itself (graph, accumulation, retain_graph, grad modes, hooks,
// version counters, anomaly mode, deep graphs), which the op table's per-op checks cannot say.
#include <fstream>
#include <thread>

#include "test_util.h"

using namespace nabla;
using autograd::variable_list;
using nabla::testing::expect_error;
using nabla::testing::values;

namespace {
Tensor leaf(IntArrayRef shape, double lo = -1, double hi = 1) {
  return (rand(shape, kDouble) * (hi - lo) + lo).requires_grad_();
}
}  // namespace

// Recording: the graph, its nodes and edges.
TEST(Engine, GraphStructure) {
  Tensor x = leaf({3}), y = leaf({3});
  Tensor z = x * y + x;
  ASSERT_TRUE(z.grad_fn());
  EXPECT_EQ(z.grad_fn()->name(), "AddBackward0");
  const auto& e = z.grad_fn()->next_edges();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].function->name(), "MulBackward0");
  EXPECT_EQ(e[1].function->name(), "AccumulateGrad");
  EXPECT_GT(z.grad_fn()->sequence_nr(), e[0].function->sequence_nr());
  EXPECT_EQ(z.grad_fn()->topological_nr(), 2u);
  EXPECT_EQ(e[0].function->topological_nr(), 1u);
  // A leaf has one AccumulateGrad, shared by all its uses.
  EXPECT_EQ(e[1].function.get(), e[0].function->next_edges()[0].function.get());
  EXPECT_EQ(e[0].function->next_edges()[1].input_nr, 0u);
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(z.is_leaf());
  EXPECT_TRUE(z.requires_grad());
  // Scalar - Tensor records RsubBackward1, as PyTorch's Python API (LibTorch's C++ operator
  // records SubBackward0, so the op table lists it among its node-name differences).
  EXPECT_EQ((1 - x).grad_fn()->name(), "RsubBackward1");
}

// Leaves and accumulation: d(x*x)/dx = 2x, accumulation across calls, branch sums.
TEST(Engine, SquareAndAccumulation) {
  Tensor x = leaf({4});
  (x * x).sum().backward();
  EXPECT_TRUE(x.grad().allclose(2 * x.detach()));
  (x * x).sum().backward();
  EXPECT_TRUE(x.grad().allclose(4 * x.detach()));  // .grad() accumulates
  x.mutable_grad() = Tensor();
  Tensor a = x.exp();
  (a * x + a.sin() + x).sum().backward();  // x reaches the loss by three paths
  Tensor xd = x.detach();
  Tensor expected = xd.exp() * xd + xd.exp() + xd.exp().cos() * xd.exp() + 1;
  EXPECT_TRUE(x.grad().allclose(expected));
}

// backward() and grad(): signatures, implicit gradient, grad() leaves .grad() alone.
TEST(Engine, BackwardAndGradApi) {
  Tensor x = leaf({3});
  Tensor y = x * 2;
  expect_error([&] { y.backward(); }, {"grad can be implicitly created only for scalar outputs"});
  y.backward(tensor({1.0, 2.0, 3.0}, kDouble));
  EXPECT_EQ(values(x.grad()), (std::vector<double>{2, 4, 6}));
  Tensor x2 = leaf({3});
  auto g = autograd::grad({(x2 * x2).sum()}, {x2});
  EXPECT_TRUE(g[0].allclose(2 * x2.detach()));
  EXPECT_FALSE(x2.grad().defined());
  Tensor unused = leaf({2});
  expect_error([&] { autograd::grad({(x2 * 3).sum()}, {unused}); }, {"allow_unused"});
  auto g2 = autograd::grad({(x2 * 3).sum()}, {unused}, {}, nullopt, false, true);
  EXPECT_FALSE(g2[0].defined());
  // backward(inputs=...) accumulates only into the given inputs.
  Tensor a = leaf({2}), b = leaf({2});
  (a * b).sum().backward({}, nullopt, false, TensorList{a});
  EXPECT_TRUE(a.grad().defined());
  EXPECT_FALSE(b.grad().defined());
}

// retain_graph: saved tensors are freed; a second backward is a clear error.
TEST(Engine, RetainGraph) {
  Tensor x = leaf({3});
  Tensor y = (x.exp() * x).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  Tensor xd = x.detach();
  EXPECT_TRUE(x.grad().allclose(2 * (xd.exp() * xd + xd.exp())));
  expect_error([&] { y.backward(); }, {"backward through the graph a second time"});
}

// create_graph: higher-order derivatives of f = x^4 + 2x^3 + x^2 at 2: 36, 60, 74, 60.
TEST(Engine, HigherOrder) {
  Tensor x = tensor(2.0, kDouble).requires_grad_();
  Tensor f = x.pow(4) + 2 * x.pow(3) + x.pow(2);
  Tensor d1 = autograd::grad({f}, {x}, {}, nullopt, true)[0];
  Tensor d2 = autograd::grad({d1}, {x}, {}, nullopt, true)[0];
  Tensor d3 = autograd::grad({d2}, {x}, {}, nullopt, true)[0];
  EXPECT_EQ(f.item<double>(), 36);
  EXPECT_EQ(d1.item<double>(), 60);
  EXPECT_EQ(d2.item<double>(), 74);
  EXPECT_EQ(d3.item<double>(), 60);
}

// Gradient penalty: grad with create_graph, then backward through it.
TEST(Engine, GradientPenalty) {
  Tensor w = leaf({3});
  Tensor x = leaf({3});
  Tensor out = (w * x * x).sum();
  Tensor gx = autograd::grad({out}, {x}, {}, nullopt, /*create_graph=*/true)[0];  // 2 w x
  Tensor penalty = (gx * gx).sum();                                               // 4 w^2 x^2
  penalty.backward();
  Tensor wd = w.detach(), xd = x.detach();
  EXPECT_TRUE(w.grad().allclose(8 * wd * xd * xd));
  EXPECT_TRUE(x.grad().allclose(8 * wd * wd * xd));
}

// Leaves and accumulation: non-leaf gradients only with retain_grad; the u -> w -> out rule.
TEST(Engine, NonLeafGradsAndNoDoubleCounting) {
  Tensor u = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Tensor w = u * 3;  // a "parameter" fed by another
  w.retain_grad();
  Tensor mid = w * 2;
  EXPECT_FALSE(mid.grad().defined());
  Tensor out1 = (w * w).sum();  // dL1/dw = 2w
  out1.backward({}, true);
  EXPECT_TRUE(u.grad().allclose(3 * 2 * w.detach()));
  Tensor out2 = (w * 5).sum();  // dL2/dw = 5
  out2.backward();
  // u.grad = d(L1 + L2)/du: each backward propagates only its own dL/dw.
  EXPECT_TRUE(u.grad().allclose(3 * (2 * w.detach() + 5)));
  EXPECT_TRUE(w.grad().allclose(2 * w.detach() + 5));  // retained, accumulated as LibTorch
  EXPECT_FALSE(mid.grad().defined());
}

// The multi-task example: shared weights get task1 + task2.
TEST(Engine, MultiTaskRetainGraph) {
  manual_seed(3);
  Tensor x = rand({4, 3}, kDouble);
  Tensor shared = leaf({3, 5}), h1 = leaf({5, 1}), h2 = leaf({5, 1});
  auto run = [&](bool separate) {
    for (Tensor* p : {&shared, &h1, &h2}) p->mutable_grad() = Tensor();
    Tensor feat = x.matmul(shared).relu();
    Tensor l1 = feat.matmul(h1).sum(), l2 = (feat.matmul(h2) * 2).mean();
    if (separate) {
      l1.backward({}, /*retain_graph=*/true);
      l2.backward();
    } else {
      (l1 + l2).backward();
    }
    return shared.grad().clone();
  };
  EXPECT_TRUE(run(true).allclose(run(false)));
}

// No grad and detach: grad mode guards are thread-local; results under no_grad do not require grad.
TEST(Engine, GradModeGuardsArePerThread) {
  Tensor x = leaf({2});
  {
    NoGradGuard g;
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    expect_error([&] { y.sum().backward(); },
                 {"element 0 of tensors does not require grad and does not have a grad_fn"});
    {
      EnableGradGuard e;
      EXPECT_TRUE((x * 2).requires_grad());
    }
    bool other_thread = false;
    std::thread t([&] { other_thread = GradMode::is_enabled(); });
    t.join();
    EXPECT_TRUE(other_thread);
  }
  EXPECT_TRUE(GradMode::is_enabled());
  Tensor z = no_grad([&] { return x * 3; });
  EXPECT_FALSE(z.requires_grad());
  {
    AutoGradMode off(false);
    EXPECT_FALSE(GradMode::is_enabled());
  }
}

// No grad and detach: detach shares storage and has no history (GAN-style: D's loss never reaches
// G).
TEST(Engine, DetachAndGan) {
  manual_seed(4);
  Tensor g_w = leaf({3, 3}), d_w = leaf({3, 1});
  Tensor z = rand({5, 3}, kDouble);
  Tensor fake = z.matmul(g_w).tanh();
  Tensor d_loss = fake.detach().matmul(d_w).sigmoid().mean();
  d_loss.backward();
  EXPECT_TRUE(d_w.grad().defined());
  EXPECT_FALSE(g_w.grad().defined());
  Tensor gen_loss = -fake.matmul(d_w).sigmoid().mean();
  d_w.mutable_grad() = Tensor();
  gen_loss.backward();
  EXPECT_TRUE(g_w.grad().defined());
  Tensor det = fake.detach();
  EXPECT_EQ(det.data_ptr(), fake.data_ptr());
  EXPECT_FALSE(det.requires_grad());
  Tensor d = leaf({2});
  Tensor e = d * 2;
  e.detach_();
  EXPECT_FALSE(e.requires_grad());
  EXPECT_TRUE(e.is_leaf());
}

// Freezing a middle layer; the first still learns.
TEST(Engine, FreezeMiddleLayer) {
  manual_seed(5);
  Tensor x = rand({4, 3}, kDouble);
  Tensor w1 = leaf({3, 4}), w2 = leaf({4, 4}), w3 = leaf({4, 1});
  w2.requires_grad_(false);
  Tensor loss = x.matmul(w1).tanh().matmul(w2).tanh().matmul(w3).sum();
  loss.backward();
  EXPECT_TRUE(w1.grad().defined());
  EXPECT_GT(w1.grad().abs().sum().item<double>(), 0);
  EXPECT_FALSE(w2.grad().defined());
  EXPECT_TRUE(w3.grad().defined());
}

// Version counters: in-place after save; in-place on a leaf.
TEST(Engine, VersionCounter) {
  Tensor x = leaf({3});
  Tensor y = x.exp();  // saves its output
  Tensor z = y * 2;
  y.add_(1);
  expect_error([&] { z.sum().backward(); }, {"modified by an inplace operation", "ExpBackward0",
                                             "is at version 1; expected version 0"});
  expect_error([&] { x.mul_(2); },
               {"a leaf Variable that requires grad is being used in an in-place operation"});
  {
    NoGradGuard g;
    x.mul_(2);  // allowed under no_grad
  }
  Tensor a = x * 1;
  a.mul_(3);  // in-place on a non-leaf rebases its history
  a.sum().backward();
  EXPECT_TRUE(x.grad().allclose(full({3}, 3.0, kDouble)));
}

// Hooks: tensor hooks run before accumulation and can replace the gradient.
TEST(Engine, TensorHooks) {
  Tensor x = leaf({3});
  std::vector<double> seen;
  unsigned h = x.register_hook([&](const Tensor& g) { seen = values(g); });
  x.register_hook([](const Tensor& g) { return g * 10; });
  (x * 2).sum().backward();
  EXPECT_EQ(seen, (std::vector<double>{2, 2, 2}));
  EXPECT_EQ(values(x.grad()), (std::vector<double>{20, 20, 20}));
  x.remove_hook(h);
  Tensor y = x * 1;
  y.register_hook([](const Tensor& g) { return g + 1; });  // on a non-leaf
  x.mutable_grad() = Tensor();
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{20, 20, 20}));
  expect_error([&] { x.remove_hook(h); }, {"remove_hook"});
}

// Hooks: saved-tensor hooks.
TEST(Engine, SavedTensorHooks) {
  Tensor x = leaf({3});
  int packed = 0, unpacked = 0;
  Tensor y;
  {
    autograd::SavedTensorHooksGuard guard(
        [&](const Tensor& t) -> std::any {
          ++packed;
          return t.clone();  // e.g. an offloaded copy
        },
        [&](const std::any& p) {
          ++unpacked;
          return std::any_cast<Tensor>(p);
        });
    y = (x.sin() * x).sum();
  }
  EXPECT_GT(packed, 0);
  y.backward();
  EXPECT_EQ(unpacked, packed);
  Tensor xd = x.detach();
  EXPECT_TRUE(x.grad().allclose(xd.cos() * xd + xd.sin()));
}

// The custom LinearFunction and MulConstant of LibTorch's custom-function guide.
struct LinearFunction : autograd::Function<LinearFunction> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor input, Tensor weight, Tensor bias) {
    ctx->save_for_backward({input, weight, bias});
    Tensor output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    Tensor input = saved[0], weight = saved[1], bias = saved[2];
    Tensor g = grads[0];
    Tensor gi = ctx->needs_input_grad(0) ? g.mm(weight) : Tensor();
    Tensor gw = ctx->needs_input_grad(1) ? g.t().mm(input) : Tensor();
    Tensor gb = bias.defined() && ctx->needs_input_grad(2) ? g.sum(0) : Tensor();
    return {gi, gw, gb};
  }
};

struct MulConstant : autograd::Function<MulConstant> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor t, double constant) {
    ctx->saved_data["constant"] = constant;
    return t * constant;
  }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->saved_data["constant"].toDouble(), Tensor()};
  }
};

TEST(Engine, CustomFunctions) {
  manual_seed(6);
  Tensor x = leaf({4, 3}), w = leaf({2, 3}), b = leaf({2});
  Tensor y = LinearFunction::apply(x, w, b);
  EXPECT_EQ(y.grad_fn()->name(), "LinearFunction");
  auto fn = [](const variable_list& in) {
    return variable_list{LinearFunction::apply(in[0], in[1], in[2])};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {x, w, b}));
  Tensor m = MulConstant::apply(x, 5.5);
  m.sum().backward();
  EXPECT_TRUE(x.grad().allclose(full({4, 3}, 5.5, kDouble)));
  Tensor nog = MulConstant::apply(ones({2}), 2.0);
  EXPECT_FALSE(nog.requires_grad());
}

// Anomaly mode: anomaly mode names the node and where it was created.
TEST(Engine, AnomalyMode) {
  Tensor x = tensor({0.0, 1.0}, kDouble).requires_grad_();
  autograd::DetectAnomalyGuard guard;
  Tensor y = x.sqrt();  // d sqrt(x)/dx at 0 is inf
  expect_error([&] { (y * 0 + y).sum().backward(); },
               {"SqrtBackward0", "nan values", "created at"});
}

// Checkpointing: checkpoint gives equal gradients with lower peak memory.
TEST(Engine, Checkpoint) {
  manual_seed(7);
  Tensor x = leaf({64, 256});
  Tensor w = leaf({256, 256});
  auto block = [&](const variable_list& in) {
    Tensor h = in[0];
    for (int i = 0; i < 8; ++i) h = h.matmul(in[1]).tanh();
    return h;
  };
  reset_peak_memory();
  size_t base = cpu_memory_allocated();
  Tensor plain = block({x, w}).sum();
  size_t peak_plain = cpu_memory_peak() - base;
  plain.backward();
  Tensor gx = x.grad().clone(), gw = w.grad().clone();
  x.mutable_grad() = Tensor();
  w.mutable_grad() = Tensor();
  reset_peak_memory();
  base = cpu_memory_allocated();
  Tensor ck = utils::checkpoint(block, {x, w}).sum();
  size_t peak_ck = cpu_memory_peak() - base;
  ck.backward();
  EXPECT_TRUE(x.grad().allclose(gx));
  EXPECT_TRUE(w.grad().allclose(gw));
  EXPECT_LT(peak_ck * 2, peak_plain);  // 8 saved activations vs about 2 live at a time
}

// Threads: test_engine_threads.cpp.

// The engine, Lifetime: a 100,000-node chain backward and destruction without recursion.
TEST(Engine, DeepChain) {
  Tensor x = ones({4}, kDouble).requires_grad_();
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = y * 1.0 + 0.0;
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>(4, 1.0));
  y = Tensor();  // frees the 200,000 nodes iteratively
  SUCCEED();
}

namespace {
size_t resident_kb() {
  std::ifstream f("/proc/self/statm");
  size_t pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * 4;
}
}  // namespace

// Lifetime: no reference cycles; memory stays flat over 10,000 steps.
TEST(Engine, MemoryFlat) {
  Tensor w = leaf({32, 32});
  Tensor x = rand({16, 32}, kDouble);
  auto step = [&] {
    Tensor loss = x.matmul(w).tanh().exp().sum();
    loss.backward();
    w.mutable_grad() = Tensor();
  };
  for (int i = 0; i < 500; ++i) step();
  size_t tensor_bytes = cpu_memory_allocated();
  size_t rss = resident_kb();
  for (int i = 0; i < 10000; ++i) step();
  EXPECT_EQ(cpu_memory_allocated(), tensor_bytes);
#ifndef NABLA_TEST_ASAN                  // ASan's quarantine holds freed memory on purpose
  EXPECT_LT(resident_kb(), rss + 4096);  // within 4 MB
#else
  (void)rss;
#endif
  std::weak_ptr<autograd::Node> node;
  {
    Tensor out = x.matmul(w).exp();  // ExpBackward0 saves its output weakly
    node = out.grad_fn();
  }
  EXPECT_TRUE(node.expired());
}

// In-place ops whose derivative reads the old value (mul_ by a tensor that requires grad).
TEST(Engine, InPlaceReadingOldValue) {
  Tensor x = leaf({3}), b = leaf({3});
  Tensor a = x * 1;
  a.mul_(b);
  a.exp_();
  a.sum().backward();
  Tensor xd = x.detach(), bd = b.detach();
  EXPECT_TRUE(b.grad().allclose((xd * bd).exp() * xd));
  EXPECT_TRUE(x.grad().allclose((xd * bd).exp() * bd));
}
