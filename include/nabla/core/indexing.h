#pragma once
// Indexing with LibTorch's TensorIndex: x.index({Slice(1, None), 0, None, Ellipsis, mask}).
// Integers select, Slices narrow with a step, None inserts a dim, Ellipsis stands for the
// dims not named, bool/long tensors index advanced-style (a copy, as in LibTorch).
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <vector>

#include "nabla/core/optional.h"

namespace nabla {
namespace indexing {

constexpr int64_t INDEX_MIN = std::numeric_limits<int64_t>::min();
constexpr int64_t INDEX_MAX = std::numeric_limits<int64_t>::max();

struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis{};
constexpr nullopt_t None = nullopt;

/// start:stop:step with LibTorch's defaults filled in: step 1; start 0 and stop INDEX_MAX
/// (INDEX_MAX and INDEX_MIN for a negative step, which indexing then refuses).
class Slice {
 public:
  Slice(optional<int64_t> start = nullopt, optional<int64_t> stop = nullopt,
        optional<int64_t> step = nullopt)
      : step_(step.value_or(1)),
        start_(start.value_or(step_ < 0 ? INDEX_MAX : 0)),
        stop_(stop.value_or(step_ < 0 ? INDEX_MIN : INDEX_MAX)) {}
  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  int64_t step_, start_, stop_;
};

}  // namespace indexing

class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Boolean, Slice, Tensor };
  TensorIndex(nullopt_t) : kind_(Kind::None) {}
  TensorIndex(indexing::EllipsisIndexType) : kind_(Kind::Ellipsis) {}
  /// "..." as in LibTorch; any other string is a nabla::Error when used.
  TensorIndex(const char* s);
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T i) : kind_(Kind::Integer), integer_(static_cast<int64_t>(i)) {}
  TensorIndex(bool b) : kind_(Kind::Boolean), boolean_(b) {}
  TensorIndex(indexing::Slice s) : kind_(Kind::Slice), slice_(s) {}
  TensorIndex(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_ellipsis() const { return kind_ == Kind::Ellipsis; }
  bool is_integer() const { return kind_ == Kind::Integer; }
  bool is_boolean() const { return kind_ == Kind::Boolean; }
  bool is_slice() const { return kind_ == Kind::Slice; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const indexing::Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  indexing::Slice slice_;
  Tensor tensor_;
};

/// LibTorch's printing: "None", "...", integers, "true"/"false", a slice as
/// "start:stop:step" with LibTorch's defaults filled in (0 or INDEX_MAX by the step's
/// sign), a tensor as itself; a list as "(i0, i1, ...)".
std::ostream& operator<<(std::ostream& os, const TensorIndex& index);
std::ostream& operator<<(std::ostream& os, const std::vector<TensorIndex>& indices);

namespace indexing {
std::ostream& operator<<(std::ostream& os, const Slice& slice);
/// LibTorch declares TensorIndex in at::indexing; `using namespace torch::indexing` finds it.
using ::nabla::TensorIndex;
}  // namespace indexing

}  // namespace nabla
