#pragma once
// MemoryFormat: the order in which a dense tensor's elements lie in memory, as
// c10::MemoryFormat. Contiguous is row-major; ChannelsLast puts the channel dimension
// of an N,C,H,W tensor innermost (strides C*H*W... as N,H,W,C); ChannelsLast3d does the
// same for N,C,D,H,W. Preserve asks an op to keep its input's layout. Kernels accept
// any strides, so a channels-last tensor is an ordinary strided tensor to them.
#include <cstdint>
#include <iosfwd>

#include "nabla/core/array_ref.h"
#include "nabla/core/small_vector.h"

namespace nabla {

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d, NumOptions };

std::ostream& operator<<(std::ostream& os, MemoryFormat format);

/// The strides of a dense tensor of `sizes` laid out in `format` (Contiguous,
/// ChannelsLast for 4 dims, ChannelsLast3d for 5). A wrong rank is a nabla::Error.
DimVector strides_for_memory_format(IntArrayRef sizes, MemoryFormat format);
/// Whether strides describe a dense layout in `format`; size-1 dims may have any stride.
bool is_contiguous_in(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format);
/// Whether the elements cover one block of memory exactly once (any order of dims).
bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides);
/// ChannelsLast(3d) for a 4-d (5-d) tensor whose strides are channels-last and not also
/// row-major; Contiguous otherwise.
MemoryFormat suggest_memory_format(IntArrayRef sizes, IntArrayRef strides);

}  // namespace nabla
