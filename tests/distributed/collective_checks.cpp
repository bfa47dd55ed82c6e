#include "distributed/collective_checks.h"

#include <gtest/gtest.h>

#include <thread>

#include "test_util.h"

namespace nabla::testing {
namespace dist = nabla::distributed;
using dist::ReduceOp;

Tensor rank_input(ScalarType dtype, int rank, IntArrayRef shape, int salt) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  // Values in {-2..3} (uint8: {0..3}, bool: {0,1}) that differ per element and rank.
  Tensor base = arange(n, TensorOptions(kLong)).add(rank * 7 + salt * 3).remainder(6);
  if (dtype == kBool)
    base = base.remainder(2);
  else if (dtype != kByte)
    base = base.sub(2);
  else
    base = base.remainder(4);
  if (isFloatingType(dtype)) base = base.to(kDouble).mul(0.5);  // halves: exact in every dtype
  return base.to(dtype).reshape(shape);
}

std::vector<ScalarType> collective_dtypes() {
  return {kFloat, kDouble, kHalf, kBFloat16, kByte, kInt, kLong, kBool};
}

namespace {

// What `op` over every rank's tensor is, computed with nabla's ops in the tensor's dtype
// (wrap-around and all), float16/bfloat16 in float32 as the group reduces them.
Tensor reference(ReduceOp op, ScalarType dtype, int world, IntArrayRef shape, int salt,
                 int which = -1) {
  auto input = [&](int r) {
    Tensor t = which < 0 ? rank_input(dtype, r, shape, salt)
                         : rank_input(dtype, r * 10 + which, shape, salt);
    return dtype == kHalf || dtype == kBFloat16 ? t.to(kFloat) : t;
  };
  Tensor acc = input(0);
  for (int r = 1; r < world; ++r) {
    Tensor x = input(r);
    switch (op.op_) {
      case ReduceOp::SUM:
      case ReduceOp::AVG:
        acc = dtype == kBool ? acc.logical_or(x) : acc.add(x);
        break;
      case ReduceOp::PRODUCT:
        acc = dtype == kBool ? acc.logical_and(x) : acc.mul(x);
        break;
      case ReduceOp::MIN:
        acc = acc.minimum(x);
        break;
      case ReduceOp::MAX:
        acc = acc.maximum(x);
        break;
      case ReduceOp::BAND:
        acc = acc.bitwise_and(x);
        break;
      case ReduceOp::BOR:
        acc = acc.bitwise_or(x);
        break;
      case ReduceOp::BXOR:
        acc = acc.bitwise_xor(x);
        break;
      default:
        break;
    }
  }
  if (op == ReduceOp::AVG) acc = acc.div(world);
  return acc.to(dtype);
}

void expect_equal(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.scalar_type(), want.scalar_type()) << what;
  ASSERT_EQ(shape(got), shape(want)) << what;
  EXPECT_EQ(values(got), values(want)) << what;
}

std::vector<ReduceOp> ops_for(ScalarType dtype) {
  std::vector<ReduceOp> ops{ReduceOp::SUM, ReduceOp::PRODUCT, ReduceOp::MIN, ReduceOp::MAX};
  if (isFloatingType(dtype))
    ops.push_back(ReduceOp::AVG);
  else
    for (auto op : {ReduceOp::BAND, ReduceOp::BOR, ReduceOp::BXOR}) ops.push_back(op);
  return ops;
}

std::string label(const char* what, ReduceOp op, ScalarType dtype) {
  return str(what, " ", dist::to_string(op), " ", toString(dtype));
}

}  // namespace

void check_allreduce(dist::ProcessGroup& pg) {
  const int rank = pg.getRank(), world = pg.getSize();
  for (ScalarType dtype : collective_dtypes())
    for (ReduceOp op : ops_for(dtype)) {
      std::vector<Tensor> t{rank_input(dtype, rank, {3, 5})};
      pg.allreduce(t, {op})->wait();
      expect_equal(t[0], reference(op, dtype, world, {3, 5}, 0), label("allreduce", op, dtype));
    }
}

void check_allreduce_non_contiguous(dist::ProcessGroup& pg) {
  const int rank = pg.getRank(), world = pg.getSize();
  for (ScalarType dtype : collective_dtypes()) {
    // A transposed view of a larger tensor: the result lands in the base's memory.
    Tensor base = rank_input(dtype, rank, {6, 4}, 1);
    std::vector<Tensor> t{base.t()};
    ASSERT_FALSE(t[0].is_contiguous());
    pg.allreduce(t)->wait();
    expect_equal(base, reference(ReduceOp::SUM, dtype, world, {6, 4}, 1),
                 str("allreduce of a transposed ", toString(dtype), " view"));
  }
}

void check_broadcast(dist::ProcessGroup& pg) {
  const int rank = pg.getRank(), world = pg.getSize();
  for (ScalarType dtype : collective_dtypes())
    for (int root = 0; root < world; ++root) {
      Tensor base = rank_input(dtype, rank, {5, 4}, 2);
      std::vector<Tensor> t{base.narrow(1, 1, 2)};  // strided
      dist::BroadcastOptions o;
      o.rootRank = root;
      pg.broadcast(t, o)->wait();
      expect_equal(t[0], rank_input(dtype, root, {5, 4}, 2).narrow(1, 1, 2),
                   str("broadcast from ", root, " ", toString(dtype)));
      // The rest of the base is untouched.
      expect_equal(base.narrow(1, 0, 1), rank_input(dtype, rank, {5, 4}, 2).narrow(1, 0, 1),
                   "broadcast leaves the rest of the base");
    }
}

void check_allgather(dist::ProcessGroup& pg) {
  const int rank = pg.getRank(), world = pg.getSize();
  for (ScalarType dtype : collective_dtypes()) {
    std::vector<Tensor> in{rank_input(dtype, rank, {4, 3}, 3).t()};
    std::vector<std::vector<Tensor>> out(1);
    for (int r = 0; r < world; ++r) out[0].push_back(full({3, 4}, 1, TensorOptions(dtype)));
    pg.allgather(out, in)->wait();
    for (int r = 0; r < world; ++r)
      expect_equal(out[0][r], rank_input(dtype, r, {4, 3}, 3).t(),
                   str("allgather block ", r, " ", toString(dtype)));
  }
}

void check_reduce_scatter(dist::ProcessGroup& pg) {
  const int rank = pg.getRank(), world = pg.getSize();
  for (ScalarType dtype : collective_dtypes())
    for (ReduceOp op : ops_for(dtype)) {
      std::vector<std::vector<Tensor>> in(1);
      for (int j = 0; j < world; ++j) in[0].push_back(rank_input(dtype, rank * 10 + j, {2, 3}, 4));
      std::vector<Tensor> out{empty({2, 3}, TensorOptions(dtype))};
      pg.reduce_scatter(out, in, {op})->wait();
      expect_equal(out[0], reference(op, dtype, world, {2, 3}, 4, rank),
                   label("reduce_scatter", op, dtype));
    }
}

void check_barrier(dist::ProcessGroup& pg) {
  // The last rank arrives 300 ms late: nobody may leave the barrier before it arrives.
  const auto start = std::chrono::steady_clock::now();
  if (pg.getRank() == pg.getSize() - 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  pg.barrier()->wait();
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, std::chrono::milliseconds(250)) << "barrier returned before the last rank came";
}

void check_work(dist::ProcessGroup& pg) {
  std::vector<Tensor> t{ones({4})};
  auto work = pg.allreduce(t);
  EXPECT_TRUE(work->wait(std::chrono::seconds(60)));
  EXPECT_TRUE(work->isCompleted());
  EXPECT_TRUE(work->isSuccess());
  EXPECT_EQ(work->exception(), nullptr);
  auto result = work->result();
  ASSERT_EQ(result.size(), 1u);
  EXPECT_TRUE(result[0].is_same(t[0]));
  EXPECT_EQ(values(t[0]), std::vector<double>(4, pg.getSize()));
  auto timing = work->timing();
  EXPECT_LE(timing.queued, timing.started);
  EXPECT_LE(timing.started, timing.finished);
  // Several in flight, waited in reverse: they still run in call order.
  std::vector<std::vector<Tensor>> many;
  std::vector<std::shared_ptr<dist::Work>> works;
  for (int i = 0; i < 8; ++i) {
    many.push_back({full({1000}, i)});
    works.push_back(pg.allreduce(many.back()));
  }
  for (int i = 7; i >= 0; --i) works[i]->wait();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(many[i][0][0].item<double>(), i * pg.getSize());
  for (int i = 1; i < 8; ++i)
    EXPECT_LE(works[i - 1]->timing().finished, works[i]->timing().started);
}

void check_bad_arguments(dist::ProcessGroup& pg) {
  std::vector<Tensor> two{ones({2}), ones({2})};
  expect_error([&] { pg.allreduce(two); }, {"allreduce", "one tensor", "got 2"});
  std::vector<Tensor> ints{ones({2}, TensorOptions(kLong))};
  expect_error([&] { pg.allreduce(ints, {ReduceOp::AVG}); }, {"AVG", "floating-point", "Long"});
  std::vector<Tensor> floats{ones({2})};
  expect_error([&] { pg.allreduce(floats, {ReduceOp::BXOR}); }, {"BXOR", "integer", "Float"});
  dist::BroadcastOptions o;
  o.rootRank = pg.getSize();
  expect_error([&] { pg.broadcast(floats, o); }, {"broadcast", "rootRank", "out of range"});
  std::vector<std::vector<Tensor>> few{{ones({2})}};
  if (pg.getSize() > 1)
    expect_error([&] { pg.allgather(few, floats); }, {"allgather", "output tensors", "got 1"});
  std::vector<std::vector<Tensor>> wrong(1);
  for (int r = 0; r < pg.getSize(); ++r) wrong[0].push_back(ones({3}));
  expect_error([&] { pg.allgather(wrong, floats); }, {"allgather", "output tensor 0", "[3]"});
}

void check_all_collectives(dist::ProcessGroup& pg) {
  check_allreduce(pg);
  check_allreduce_non_contiguous(pg);
  check_broadcast(pg);
  check_allgather(pg);
  check_reduce_scatter(pg);
  check_barrier(pg);
  check_work(pg);
  check_bad_arguments(pg);
}

}  // namespace nabla::testing
