#include "nabla/core/memory_format.h"

#include <algorithm>
#include <numeric>
#include <ostream>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/core/tensor_impl.h"

namespace nabla {

std::ostream& operator<<(std::ostream& os, MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous:
      return os << "Contiguous";
    case MemoryFormat::Preserve:
      return os << "Preserve";
    case MemoryFormat::ChannelsLast:
      return os << "ChannelsLast";
    case MemoryFormat::ChannelsLast3d:
      return os << "ChannelsLast3d";
    default:
      return os << "Unknown memory format";
  }
}

namespace {
// Dimension order from outermost to innermost for each format.
SmallVector<int64_t, 5> dim_order(size_t rank, MemoryFormat format) {
  SmallVector<int64_t, 5> order;
  if (format == MemoryFormat::ChannelsLast || format == MemoryFormat::ChannelsLast3d) {
    order.push_back(0);
    for (int64_t d = 2; d < static_cast<int64_t>(rank); ++d) order.push_back(d);
    order.push_back(1);
  } else {
    for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) order.push_back(d);
  }
  return order;
}

void check_rank(size_t rank, MemoryFormat format) {
  NABLA_CHECK(format != MemoryFormat::ChannelsLast || rank == 4,
              "required rank 4 tensor to use channels_last format (got a ", rank, "-d tensor)");
  NABLA_CHECK(format != MemoryFormat::ChannelsLast3d || rank == 5,
              "required rank 5 tensor to use channels_last_3d format (got a ", rank, "-d tensor)");
  NABLA_CHECK(format != MemoryFormat::Preserve,
              "memory format Preserve names no layout of its own: it keeps an input's layout");
}
}  // namespace

DimVector strides_for_memory_format(IntArrayRef sizes, MemoryFormat format) {
  if (format == MemoryFormat::Contiguous) return contiguous_strides(sizes);
  check_rank(sizes.size(), format);
  DimVector strides(sizes.size());
  int64_t acc = 1;
  auto order = dim_order(sizes.size(), format);
  for (size_t i = order.size(); i-- > 0;) {
    strides[order[i]] = acc;
    acc *= std::max<int64_t>(sizes[order[i]], 1);
  }
  return strides;
}

bool is_contiguous_in(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format) {
  if ((format == MemoryFormat::ChannelsLast && sizes.size() != 4) ||
      (format == MemoryFormat::ChannelsLast3d && sizes.size() != 5) ||
      format == MemoryFormat::Preserve)
    return false;
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return true;
  auto order = dim_order(sizes.size(), format);
  int64_t expected = 1;
  for (size_t i = order.size(); i-- > 0;) {
    const int64_t d = order[i];
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  const size_t n = sizes.size();
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  // Innermost first: ascending strides, size-1 dims last (their stride is irrelevant).
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (sizes[a] < 2 || sizes[b] < 2) return sizes[a] >= 2 && sizes[b] < 2;
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (int64_t d : perm) {
    if (sizes[d] == 0) return true;
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

MemoryFormat suggest_memory_format(IntArrayRef sizes, IntArrayRef strides) {
  if (sizes.size() == 4 && is_contiguous_in(sizes, strides, MemoryFormat::ChannelsLast) &&
      !is_contiguous_in(sizes, strides, MemoryFormat::Contiguous))
    return MemoryFormat::ChannelsLast;
  if (sizes.size() == 5 && is_contiguous_in(sizes, strides, MemoryFormat::ChannelsLast3d) &&
      !is_contiguous_in(sizes, strides, MemoryFormat::Contiguous))
    return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

}  // namespace nabla
