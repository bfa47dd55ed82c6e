#pragma once
// The vocabulary of collectives, as LibTorch's c10d (c10d/Types.hpp): reduction operators
// and each collective's options. docs/compat.md: `c10d::` → `nabla::distributed::`.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace nabla {
// c10's intrusive pointers are shared pointers here, so LibTorch code written with
// c10::make_intrusive<c10d::FileStore>(...) or c10::intrusive_ptr<c10d::Work> ports by
// the rename.
template <class T>
using intrusive_ptr = std::shared_ptr<T>;
template <class T, class... Args>
std::shared_ptr<T> make_intrusive(Args&&... args) {
  return std::make_shared<T>(std::forward<Args>(args)...);
}
}  // namespace nabla

namespace nabla::distributed {

/// No timeout (wait forever) where a timeout is taken; a collective's options hold
/// kUnsetTimeout to mean "the process group's timeout".
constexpr std::chrono::milliseconds kNoTimeout{0};
constexpr std::chrono::milliseconds kUnsetTimeout{-1};
/// A process group's timeout unless its options say otherwise (LibTorch's: 30 minutes).
constexpr std::chrono::milliseconds kProcessGroupDefaultTimeout{30 * 60 * 1000};

/// How allreduce and reduce_scatter combine the ranks' values. AVG is the sum divided by
/// the world size (floating-point dtypes only); BAND/BOR/BXOR are for integer and bool
/// tensors; on bool tensors SUM and MAX are a logical or, PRODUCT and MIN a logical and.
struct ReduceOp {
  enum RedOpType : uint8_t { SUM = 0, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR, UNUSED };
  ReduceOp(RedOpType op = SUM) : op_(op) {}  // NOLINT: implicit, as LibTorch's
  operator RedOpType() const { return op_; }
  RedOpType op_ = SUM;
};
std::string_view to_string(ReduceOp op);

struct BroadcastOptions {
  int64_t rootRank = 0;
  int64_t rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct AllreduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct AllgatherOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct ReduceScatterOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct BarrierOptions {
  std::vector<int64_t> device_ids;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

}  // namespace nabla::distributed
