// Reduction kernels: reduce, arg_reduce, cumsum and sort, on inputs of any strides.
//
// Note [CUDA reduction layout]
// As on the CPU (Note [Reduction layout], src/backend/cpu/kernels/reduce.cpp), the
// input's dims split into kept and reduced dims, size-1 dims dropped, each group ordered
// by stride and merged where neighbours step as one. A block of 256 threads is a grid of
// bx outputs by `by` lanes that share each output's reduced range; the lanes' partial
// results meet in a shared-memory tree. Which index moves fastest across the threads
// follows the memory: the lanes when the smallest-stride dim is reduced (a warp reads a
// contiguous run of one output's elements), the outputs when it is kept (a warp reads
// neighbouring outputs' elements). With few outputs and long ranges, the range is cut
// into chunks (grid.y) whose partial results a second kernel combines in chunk order, so
// results depend only on the shapes. Sums accumulate in double (floating dtypes) or
// int64, as on the CPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include "backend/cuda/device_args.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/reduce_launch.h"

namespace nabla::cuda_kernels {
namespace {

// ---- Geometry --------------------------------------------------------------------------

/// Dims walked in row-major order (element strides into the input and the output).
struct Dims {
  int n = 0;
  int64_t size[kMaxDims] = {};
  int64_t in[kMaxDims] = {};
  int64_t out[kMaxDims] = {};
};

struct HostDim {
  int64_t size, in, out;
};

// Orders dims by input stride, largest first, and merges neighbours that step as one (in
// the input and the output), as the CPU's order_and_merge.
Dims order_and_merge(HostDim* dims, int n) {
  std::stable_sort(dims, dims + n, [](const HostDim& a, const HostDim& b) { return a.in > b.in; });
  Dims r;
  for (int i = 0; i < n; ++i) {
    const HostDim d = dims[i];
    if (r.n > 0 && r.in[r.n - 1] == d.in * d.size && r.out[r.n - 1] == d.out * d.size) {
      r.size[r.n - 1] *= d.size;
      r.in[r.n - 1] = d.in;
      r.out[r.n - 1] = d.out;
    } else {
      r.size[r.n] = d.size;
      r.in[r.n] = d.in;
      r.out[r.n] = d.out;
      ++r.n;
    }
  }
  return r;
}

int64_t product(const Dims& d) {
  int64_t p = 1;
  for (int i = 0; i < d.n; ++i) p *= d.size[i];
  return p;
}

// The input and output offsets of position `linear` (row-major) of d's index space.
__device__ inline void offsets(const Dims& d, int64_t linear, int64_t* in, int64_t* out) {
  int64_t i = 0, o = 0;
  for (int k = d.n - 1; k >= 0; --k) {
    const int64_t q = linear / d.size[k];
    const int64_t idx = linear - q * d.size[k];
    linear = q;
    i += idx * d.in[k];
    o += idx * d.out[k];
  }
  *in = i;
  *out = o;
}

// The input offset of position `linear` of d's index space.
__device__ inline int64_t in_offset(const Dims& d, int64_t linear) {
  if (d.n == 1) return linear * d.in[0];
  int64_t i = 0;
  for (int k = d.n - 1; k >= 0; --k) {
    const int64_t q = linear / d.size[k];
    i += (linear - q * d.size[k]) * d.in[k];
    linear = q;
  }
  return i;
}

/// A reduction: kept dims (outputs) and reduced dims, Note [CUDA reduction layout].
struct Geometry {
  Dims kept, red;
  int64_t n_out = 1, n_red = 1;
};
/// The threads of a block: bx outputs by `by` lanes (bx * by == kThreads); lane_fast: the
/// lane index moves fastest across threadIdx.x.
struct Layout {
  int bx = 1, by = kThreads;
  bool lane_fast = true;
};
/// The reduced range cut into `chunks` pieces of chunk_len (grid.y).
struct Split {
  int64_t chunks = 1, chunk_len = 1;
};
struct ReducePlan {
  Geometry g;
  Layout l;
  Split s;
};

ReducePlan make_reduce_plan(const TensorArg& out, const TensorArg& in, uint32_t reduced_mask) {
  HostDim kept[kMaxDims], red[kMaxDims];
  int nk = 0, nr = 0;
  for (int d = 0; d < in.ndim; ++d) {
    if (in.sizes[d] == 1) continue;
    if ((reduced_mask >> d) & 1u)
      red[nr++] = {in.sizes[d], in.strides[d], 0};
    else
      kept[nk++] = {in.sizes[d], in.strides[d], out.strides[d]};
  }
  ReducePlan p;
  p.g.kept = order_and_merge(kept, nk);
  p.g.red = order_and_merge(red, nr);
  if (p.g.red.n == 0) {  // nothing to reduce: one element per output
    p.g.red.n = 1;
    p.g.red.size[0] = 1;
  }
  p.g.n_out = product(p.g.kept);
  p.g.n_red = product(p.g.red);
  const Dims& k = p.g.kept;
  const Dims& r = p.g.red;
  const bool outer = k.n > 0 && k.in[k.n - 1] < r.in[r.n - 1];
  if (outer) {
    p.l.bx = pow2_ceil(p.g.n_out, 32);
    p.l.by = pow2_ceil(p.g.n_red, kThreads / p.l.bx);
    p.l.bx = kThreads / p.l.by;
    p.l.lane_fast = false;
  } else {
    p.l.by = pow2_ceil(p.g.n_red, kThreads);
    p.l.bx = kThreads / p.l.by;
    p.l.lane_fast = true;
  }
  p.s.chunk_len = std::max<int64_t>(p.g.n_red, 1);
  const int64_t blocks = ceil_div(p.g.n_out, p.l.bx);
  if (blocks < kTargetBlocks) {
    const int64_t want = ceil_div(kTargetBlocks, blocks);
    const int64_t most = p.g.n_red / (p.l.by * kMinPerThread);
    const int64_t chunks = std::min({want, most, kMaxChunks});
    if (chunks > 1) {
      p.s.chunk_len = ceil_div(p.g.n_red, chunks);
      p.s.chunks = ceil_div(p.g.n_red, p.s.chunk_len);
    }
  }
  return p;
}

// This thread's output slot x and lane y in the block's layout.
__device__ inline void thread_slot(const Layout& l, int* x, int* y) {
  const int t = static_cast<int>(threadIdx.x);
  if (l.lane_fast) {
    *x = t / l.by;
    *y = t % l.by;
  } else {
    *x = t % l.bx;
    *y = t / l.bx;
  }
}

// ---- Reduction operators -----------------------------------------------------------------
// identity(), load(offset, position) of one input element, an associative combine(), and
// store(offset, acc) of a finished result into the output(s).

template <class T>
__device__ inline bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return x != x;
  else
    return false;
}

template <class T>
using WideT = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

template <class T>
__device__ inline T narrow(WideT<T> a) {
  if constexpr (std::is_same_v<T, bool>)
    return a != 0;
  else
    return static_cast<T>(a);
}

template <class T>
struct SumOp {
  using Acc = WideT<T>;
  const T* in;
  T* out;
  __device__ Acc identity() const { return 0; }
  __device__ Acc load(int64_t off, int64_t) const { return static_cast<Acc>(in[off]); }
  __device__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ void store(int64_t off, Acc a) const { out[off] = narrow<T>(a); }
};

template <class T>
struct ProdOp {
  using Acc = WideT<T>;
  const T* in;
  T* out;
  __device__ Acc identity() const { return 1; }
  __device__ Acc load(int64_t off, int64_t) const { return static_cast<Acc>(in[off]); }
  __device__ Acc combine(Acc a, Acc b) const { return a * b; }
  __device__ void store(int64_t off, Acc a) const { out[off] = narrow<T>(a); }
};

// NaN-propagating max (IsMax) or min.
template <class T, bool IsMax>
struct MaxMinOp {
  using Acc = T;
  const T* in;
  T* out;
  __device__ T identity() const {
    if constexpr (std::is_same_v<T, bool>)
      return !IsMax;
    else if constexpr (std::is_floating_point_v<T>)
      return IsMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    else
      return IsMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  __device__ T load(int64_t off, int64_t) const { return in[off]; }
  __device__ T combine(T a, T b) const {
    const bool take = IsMax ? b > a : b < a;
    return (take || is_nan(b)) ? b : a;
  }
  __device__ void store(int64_t off, T a) const { out[off] = a; }
};

template <bool IsAll>
struct LogicalOp {
  using Acc = int;
  const bool* in;
  bool* out;
  __device__ int identity() const { return IsAll; }
  __device__ int load(int64_t off, int64_t) const { return in[off] ? 1 : 0; }
  __device__ int combine(int a, int b) const { return IsAll ? (a & b) : (a | b); }
  __device__ void store(int64_t off, int a) const { out[off] = a != 0; }
};

template <class T>
struct ValueIndex {
  T v;
  int64_t i;  // -1: no element yet
};

// The first extreme (NaN winning): the best value, ties to the smaller position. A total
// order, so the tree may combine partial results in any grouping.
template <class T, bool IsMax>
struct ArgOp {
  using Acc = ValueIndex<T>;
  const T* in;
  T* out_value;
  int64_t* out_index;
  __device__ static bool better(T v, T c) {
    return (IsMax ? v > c : v < c) || (is_nan(v) && !is_nan(c));
  }
  __device__ Acc identity() const { return {T(0), -1}; }
  __device__ Acc load(int64_t off, int64_t pos) const { return {in[off], pos}; }
  __device__ Acc combine(Acc a, Acc b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    if (better(b.v, a.v)) return b;
    if (better(a.v, b.v)) return a;
    return b.i < a.i ? b : a;
  }
  __device__ void store(int64_t off, Acc a) const {
    out_index[off] = a.i;
    out_value[off] = a.v;
  }
};

// ---- Reduction kernels --------------------------------------------------------------------

// Each block reduces tiles of bx outputs over chunk blockIdx.y of their reduced range;
// writes the result, or with `partial` the chunk's partial result (partial[o * chunks + c]).
template <class Op>
__global__ void __launch_bounds__(kThreads)
    reduce_kernel(Geometry g, Layout l, Split s, Op op, typename Op::Acc* partial) {
  using Acc = typename Op::Acc;
  __shared__ Acc sm[kThreads];
  int x, y;
  thread_slot(l, &x, &y);
  Acc* mine = sm + x * l.by;  // output slot x's lanes
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * s.chunk_len;
  const int64_t r1 = r0 + s.chunk_len < g.n_red ? r0 + s.chunk_len : g.n_red;
  for (int64_t tile = blockIdx.x; tile * l.bx < g.n_out; tile += gridDim.x) {
    const int64_t o = tile * l.bx + x;
    Acc a = op.identity();
    int64_t in_base = 0, out_off = 0;
    if (o < g.n_out) {
      offsets(g.kept, o, &in_base, &out_off);
      for (int64_t r = r0 + y; r < r1; r += l.by)
        a = op.combine(a, op.load(in_base + in_offset(g.red, r), r));
    }
    mine[y] = a;
    __syncthreads();
    for (int w = l.by / 2; w > 0; w /= 2) {
      if (y < w) mine[y] = op.combine(mine[y], mine[y + w]);
      __syncthreads();
    }
    if (y == 0 && o < g.n_out) {
      if (partial != nullptr)
        partial[o * s.chunks + blockIdx.y] = mine[0];
      else
        op.store(out_off, mine[0]);
    }
    __syncthreads();  // before the next tile overwrites sm
  }
}

// Combines each output's chunk results in chunk order.
template <class Op>
__global__ void __launch_bounds__(kThreads)
    reduce_finish_kernel(Geometry g, Split s, Op op, const typename Op::Acc* partial) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < g.n_out;
       o += step) {
    typename Op::Acc a = partial[o * s.chunks];
    for (int64_t c = 1; c < s.chunks; ++c) a = op.combine(a, partial[o * s.chunks + c]);
    int64_t in_base, out_off;
    offsets(g.kept, o, &in_base, &out_off);
    op.store(out_off, a);
  }
}

template <class Op>
cudaError_t run_reduce(const ReducePlan& p, const Op& op, void* scratch, Stream stream) {
  using Acc = typename Op::Acc;
  static_assert(sizeof(Acc) <= 16, "partials are 16-byte slots");
  Acc* partial = nullptr;
  if (p.s.chunks > 1) {
    if (scratch == nullptr) return cudaErrorInvalidValue;
    partial = static_cast<Acc*>(scratch);
  }
  const dim3 grid(static_cast<unsigned>(std::min(ceil_div(p.g.n_out, p.l.bx), kMaxGrid)),
                  static_cast<unsigned>(p.s.chunks));
  reduce_kernel<Op><<<grid, kThreads, 0, stream>>>(p.g, p.l, p.s, op, partial);
  if (partial != nullptr) {
    const auto blocks = static_cast<unsigned>(std::min(ceil_div(p.g.n_out, kThreads), kMaxGrid));
    reduce_finish_kernel<Op><<<blocks, kThreads, 0, stream>>>(p.g, p.s, op, partial);
  }
  return cudaGetLastError();
}

// ---- Lines along one dim (cumsum, sort) --------------------------------------------------

/// Every line of a tensor along `dim`: the other dims (kept: input and output strides),
/// and the line's length and strides.
struct Lines {
  Dims kept;
  int64_t count = 1;
  int64_t n = 1, in_step = 0, out_step = 0;
};

Lines make_lines(const TensorArg& out, const TensorArg& in, int dim) {
  HostDim dims[kMaxDims];
  int nd = 0;
  for (int d = 0; d < in.ndim; ++d)
    if (d != dim && in.sizes[d] != 1) dims[nd++] = {in.sizes[d], in.strides[d], out.strides[d]};
  Lines l;
  l.kept = order_and_merge(dims, nd);
  l.count = product(l.kept);
  if (dim < in.ndim) {
    l.n = in.sizes[dim];
    l.in_step = in.strides[dim];
    l.out_step = out.strides[dim];
  }
  return l;
}

// ---- cumsum --------------------------------------------------------------------------------

// One thread per line, sequential: short lines, or lines side by side in memory (the
// smallest stride not along dim), where neighbouring threads read neighbouring elements.
template <class T>
__global__ void __launch_bounds__(kThreads) cumsum_serial_kernel(Lines l, const T* in, T* out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t line = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < l.count;
       line += step) {
    int64_t ib, ob;
    offsets(l.kept, line, &ib, &ob);
    WideT<T> a = 0;
    for (int64_t k = 0; k < l.n; ++k) {
      a += static_cast<WideT<T>>(in[ib + k * l.in_step]);
      out[ob + k * l.out_step] = narrow<T>(a);
    }
  }
}

// One block per line: a block-wide scan per tile of kThreads elements, carrying the
// running total from tile to tile.
template <class T>
__global__ void __launch_bounds__(kThreads) cumsum_block_kernel(Lines l, const T* in, T* out) {
  using Acc = WideT<T>;
  using Scan = cub::BlockScan<Acc, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  for (int64_t line = blockIdx.x; line < l.count; line += gridDim.x) {
    int64_t ib, ob;
    offsets(l.kept, line, &ib, &ob);
    Acc carry = 0;
    for (int64_t base = 0; base < l.n; base += kThreads) {
      const int64_t k = base + threadIdx.x;
      Acc v = k < l.n ? static_cast<Acc>(in[ib + k * l.in_step]) : Acc(0);
      Acc tile_total;
      Scan(temp).InclusiveSum(v, v, tile_total);
      if (k < l.n) out[ob + k * l.out_step] = narrow<T>(carry + v);
      carry += tile_total;
      __syncthreads();  // temp is reused by the next tile
    }
  }
}

// ---- sort ----------------------------------------------------------------------------------

constexpr int64_t kSharedSortMax = 4096;          // rows up to this long sort in shared memory
constexpr int64_t kSortBatch = int64_t(1) << 22;  // elements per radix-sort pass (scratch)

// The CPU's order (reduce.cpp, sort_typed): NaN above every number, ties by position;
// positions >= n are the padding of the bitonic network and go last.
template <class T>
__device__ inline bool sorts_before(T a, int ia, T b, int ib, int n, bool descending) {
  const bool pa = ia >= n, pb = ib >= n;
  if (pa || pb) return pa && pb ? ia < ib : pb;
  const bool na = is_nan(a), nb = is_nan(b);
  if (na || nb) {
    if (na && nb) return ia < ib;
    return descending ? na : nb;
  }
  if (a != b) return descending ? a > b : a < b;
  return ia < ib;
}

// Where the int positions start in a shared-memory sort of p values of `size` bytes: after
// the values, rounded up to 16 bytes (p bool or uint8 values would leave them misaligned).
__host__ __device__ inline size_t sort_positions_at(int p, size_t size) {
  return (static_cast<size_t>(p) * size + 15) / 16 * 16;
}

// One block per row: a bitonic network over the row padded to p (a power of two) in
// shared memory (p values, then p int positions). The order is total, so the result is
// the stable one.
template <class T>
__global__ void __launch_bounds__(512)
    sort_shared_kernel(Lines l, const T* in, T* values, int64_t* indices, int p, int64_t k_out,
                       bool descending) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* sv = reinterpret_cast<T*>(smem);
  int* si = reinterpret_cast<int*>(smem + sort_positions_at(p, sizeof(T)));
  const int n = static_cast<int>(l.n);
  const int t = static_cast<int>(threadIdx.x), nt = static_cast<int>(blockDim.x);
  for (int64_t line = blockIdx.x; line < l.count; line += gridDim.x) {
    int64_t ib, ob;
    offsets(l.kept, line, &ib, &ob);
    for (int j = t; j < p; j += nt) {
      sv[j] = j < n ? in[ib + j * l.in_step] : T(0);
      si[j] = j;
    }
    __syncthreads();
    for (int size = 2; size <= p; size *= 2) {
      for (int stride = size / 2; stride > 0; stride /= 2) {
        for (int i = t; i < p / 2; i += nt) {
          const int lo = 2 * i - (i & (stride - 1));
          const int hi = lo + stride;
          const T a = sv[lo], b = sv[hi];
          const int ia = si[lo], ib2 = si[hi];
          const bool up = (lo & size) == 0;
          const bool swap = up ? sorts_before(b, ib2, a, ia, n, descending)
                               : sorts_before(a, ia, b, ib2, n, descending);
          if (swap) {
            sv[lo] = b;
            sv[hi] = a;
            si[lo] = ib2;
            si[hi] = ia;
          }
        }
        __syncthreads();
      }
    }
    for (int64_t j = t; j < k_out; j += nt) {
      values[ob + j * l.out_step] = sv[j];
      indices[ob + j * l.out_step] = si[j];
    }
    __syncthreads();  // before the next row overwrites shared memory
  }
}

// Long rows: radix sort of unsigned keys that order as the CPU's comparison (every NaN the
// same key, above +inf; -0 as +0; descending by complementing), with the positions as
// values; radix sort is stable, so ties keep position order.
template <class T>
struct RadixKey {
  using type = std::conditional_t<sizeof(T) == 1, uint8_t,
                                  std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
};

template <class T>
__device__ inline typename RadixKey<T>::type radix_key(T x, bool descending) {
  using K = typename RadixKey<T>::type;
  constexpr K kSign = K(1) << (sizeof(K) * 8 - 1);
  K k;
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) {
      k = static_cast<K>(~K(0));
    } else {
      if (x == T(0)) x = T(0);  // -0 ties with +0
      K bits;
      if constexpr (sizeof(T) == 4)
        bits = __float_as_uint(x);
      else
        bits = static_cast<K>(__double_as_longlong(x));
      k = (bits & kSign) ? static_cast<K>(~bits) : static_cast<K>(bits | kSign);
    }
  } else if constexpr (std::is_signed_v<T>) {
    k = static_cast<K>(static_cast<K>(x) ^ kSign);
  } else {
    k = static_cast<K>(x);
  }
  return descending ? static_cast<K>(~k) : k;
}

// Rows line0 + [0, rows): keys[row * n + j] and pos[row * n + j] = j. grid.y: rows.
template <class T>
__global__ void __launch_bounds__(kThreads)
    sort_keys_kernel(Lines l, int64_t line0, int64_t rows, const T* in,
                     typename RadixKey<T>::type* keys, int* pos, bool descending) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    int64_t ib, ob;
    offsets(l.kept, line0 + row, &ib, &ob);
    for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < l.n;
         j += step) {
      keys[row * l.n + j] = radix_key(in[ib + j * l.in_step], descending);
      pos[row * l.n + j] = static_cast<int>(j);
    }
  }
}

__global__ void segment_offsets_kernel(int* offsets, int64_t rows, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i <= rows;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    offsets[i] = static_cast<int>(i * n);
}

// The first k_out sorted positions of each row, and the input values there.
template <class T>
__global__ void __launch_bounds__(kThreads)
    sort_gather_kernel(Lines l, int64_t line0, int64_t rows, const T* in, const int* pos, T* values,
                       int64_t* indices, int64_t k_out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    int64_t ib, ob;
    offsets(l.kept, line0 + row, &ib, &ob);
    for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < k_out;
         j += step) {
      const int64_t q = pos[row * l.n + j];
      values[ob + j * l.out_step] = in[ib + q * l.in_step];
      indices[ob + j * l.out_step] = q;
    }
  }
}

int64_t align_up(int64_t bytes) { return (bytes + 255) / 256 * 256; }

/// The radix path's scratch, carved from one buffer: two buffers each of keys and
/// positions, the segment offsets and CUB's temporary storage, for batches of `rows` rows.
struct RadixScratch {
  int64_t rows = 0;                                  // rows per batch
  int64_t keys = 0, pos = 0, offsets = 0, temp = 0;  // bytes of each part
  int64_t total() const { return 2 * keys + 2 * pos + offsets + temp; }
};

// CUB's temporary storage for one batch of `rows` rows of n elements (the double-buffer
// form, which sorts within the keys and positions buffers).
template <class K>
cudaError_t radix_temp_bytes(int64_t rows, int64_t n, size_t* bytes) {
  cub::DoubleBuffer<K> keys(nullptr, nullptr);
  cub::DoubleBuffer<int> pos(nullptr, nullptr);
  if (rows == 1) return cub::DeviceRadixSort::SortPairs(nullptr, *bytes, keys, pos, n);
  const int* offsets = nullptr;
  return cub::DeviceSegmentedRadixSort::SortPairs(nullptr, *bytes, keys, pos,
                                                  static_cast<int>(rows * n),
                                                  static_cast<int>(rows), offsets, offsets + 1);
}

template <class T>
cudaError_t radix_scratch(const Lines& l, RadixScratch* s) {
  using K = typename RadixKey<T>::type;
  s->rows = std::min(l.count, std::max<int64_t>(1, kSortBatch / l.n));
  const int64_t items = s->rows * l.n;
  s->keys = align_up(items * static_cast<int64_t>(sizeof(K)));
  s->pos = align_up(items * static_cast<int64_t>(sizeof(int)));
  s->offsets = s->rows > 1 ? align_up((s->rows + 1) * static_cast<int64_t>(sizeof(int))) : 0;
  // The last batch may be shorter; reserve the larger of the two temporary sizes.
  size_t full = 0, last = 0;
  cudaError_t err = radix_temp_bytes<K>(s->rows, l.n, &full);
  if (err != cudaSuccess) return err;
  const int64_t rest = l.count % s->rows;
  if (rest > 0) {
    err = radix_temp_bytes<K>(rest, l.n, &last);
    if (err != cudaSuccess) return err;
  }
  s->temp = align_up(static_cast<int64_t>(std::max(full, last)));
  return cudaSuccess;
}

template <class T>
cudaError_t radix_sort(const Lines& l, const T* in, T* values, int64_t* indices, int64_t k_out,
                       bool descending, char* scratch, Stream stream) {
  using K = typename RadixKey<T>::type;
  RadixScratch s;
  cudaError_t err = radix_scratch<T>(l, &s);
  if (err != cudaSuccess) return err;
  if (scratch == nullptr) return cudaErrorInvalidValue;
  K* keys_a = reinterpret_cast<K*>(scratch);
  K* keys_b = reinterpret_cast<K*>(scratch + s.keys);
  int* pos_a = reinterpret_cast<int*>(scratch + 2 * s.keys);
  int* pos_b = reinterpret_cast<int*>(scratch + 2 * s.keys + s.pos);
  int* seg = reinterpret_cast<int*>(scratch + 2 * s.keys + 2 * s.pos);
  void* temp = scratch + 2 * s.keys + 2 * s.pos + s.offsets;
  for (int64_t line0 = 0; line0 < l.count; line0 += s.rows) {
    const int64_t rows = std::min(s.rows, l.count - line0);
    const int64_t items = rows * l.n;
    const dim3 grid(static_cast<unsigned>(std::min(ceil_div(l.n, kThreads), kMaxGrid)),
                    static_cast<unsigned>(std::min<int64_t>(rows, 65535)));
    sort_keys_kernel<T>
        <<<grid, kThreads, 0, stream>>>(l, line0, rows, in, keys_a, pos_a, descending);
    cub::DoubleBuffer<K> keys(keys_a, keys_b);
    cub::DoubleBuffer<int> pos(pos_a, pos_b);
    size_t temp_bytes = static_cast<size_t>(s.temp);
    constexpr int kBits = static_cast<int>(sizeof(K) * 8);
    if (rows == 1) {
      err = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, pos, items, 0, kBits, stream);
    } else {
      segment_offsets_kernel<<<static_cast<unsigned>(ceil_div(rows + 1, kThreads)), kThreads, 0,
                               stream>>>(seg, rows, l.n);
      err = cub::DeviceSegmentedRadixSort::SortPairs(
          temp, temp_bytes, keys, pos, static_cast<int>(items), static_cast<int>(rows), seg,
          seg + 1, 0, kBits, stream);
    }
    if (err != cudaSuccess) return err;
    const dim3 gather_grid(static_cast<unsigned>(std::min(ceil_div(k_out, kThreads), kMaxGrid)),
                           grid.y);
    sort_gather_kernel<T><<<gather_grid, kThreads, 0, stream>>>(l, line0, rows, in, pos.Current(),
                                                                values, indices, k_out);
  }
  return cudaGetLastError();
}

}  // namespace

// ---- Launchers -------------------------------------------------------------------------------

int64_t reduce_scratch_bytes(const TensorArg& out, const TensorArg& in, uint32_t reduced_mask) {
  const ReducePlan p = make_reduce_plan(out, in, reduced_mask);
  return p.s.chunks > 1 ? p.g.n_out * p.s.chunks * 16 : 0;
}

cudaError_t launch_reduce(ReduceOp op, const TensorArg& out, const TensorArg& in,
                          uint32_t reduced_mask, void* scratch, Stream stream) {
  const ReducePlan p = make_reduce_plan(out, in, reduced_mask);
  return with_compute_type(in.dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    const T* x = reinterpret_cast<const T*>(in.data);
    T* y = reinterpret_cast<T*>(out.data);
    switch (op) {
      case ReduceOp::Sum:
        return run_reduce(p, SumOp<T>{x, y}, scratch, stream);
      case ReduceOp::Prod:
        return run_reduce(p, ProdOp<T>{x, y}, scratch, stream);
      case ReduceOp::Max:
        return run_reduce(p, MaxMinOp<T, true>{x, y}, scratch, stream);
      case ReduceOp::Min:
        return run_reduce(p, MaxMinOp<T, false>{x, y}, scratch, stream);
      case ReduceOp::All:
      case ReduceOp::Any:
        if constexpr (std::is_same_v<T, bool>) {
          if (op == ReduceOp::All) return run_reduce(p, LogicalOp<true>{x, y}, scratch, stream);
          return run_reduce(p, LogicalOp<false>{x, y}, scratch, stream);
        }
        return cudaErrorInvalidValue;
    }
    return cudaErrorInvalidValue;
  });
}

cudaError_t launch_arg_reduce(bool is_max, const TensorArg& out_index, const TensorArg& out_value,
                              const TensorArg& in, int dim, void* scratch, Stream stream) {
  const ReducePlan p = make_reduce_plan(out_index, in, 1u << dim);
  return with_compute_type(in.dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    const T* x = reinterpret_cast<const T*>(in.data);
    T* v = reinterpret_cast<T*>(out_value.data);
    auto* i = reinterpret_cast<int64_t*>(out_index.data);
    if (is_max) return run_reduce(p, ArgOp<T, true>{x, v, i}, scratch, stream);
    return run_reduce(p, ArgOp<T, false>{x, v, i}, scratch, stream);
  });
}

cudaError_t launch_cumsum(const TensorArg& out, const TensorArg& in, int dim, Stream stream) {
  const Lines l = make_lines(out, in, dim);
  const bool side_by_side = l.kept.n > 0 && l.kept.in[l.kept.n - 1] < l.in_step;
  const bool serial = l.n <= 16 || (side_by_side && l.count >= 1024);
  return with_compute_type(in.dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    const T* x = reinterpret_cast<const T*>(in.data);
    T* y = reinterpret_cast<T*>(out.data);
    if (serial) {
      const auto blocks = static_cast<unsigned>(std::min(ceil_div(l.count, kThreads), kMaxGrid));
      cumsum_serial_kernel<T><<<blocks, kThreads, 0, stream>>>(l, x, y);
    } else {
      const auto blocks = static_cast<unsigned>(std::min(l.count, kMaxGrid));
      cumsum_block_kernel<T><<<blocks, kThreads, 0, stream>>>(l, x, y);
    }
    return cudaGetLastError();
  });
}

cudaError_t sort_scratch_bytes(const TensorArg& in, int dim, int64_t* bytes) {
  *bytes = 0;
  const Lines l = make_lines(in, in, dim);
  if (l.n <= kSharedSortMax || l.count == 0) return cudaSuccess;
  return with_compute_type(in.dtype, [&](auto tag) -> cudaError_t {
    RadixScratch s;
    const cudaError_t err = radix_scratch<decltype(tag)>(l, &s);
    *bytes = s.total();
    return err;
  });
}

cudaError_t launch_sort(const TensorArg& values, const TensorArg& indices, const TensorArg& in,
                        int dim, bool descending, void* scratch, Stream stream) {
  const Lines l = make_lines(values, in, dim);
  const int64_t k_out = dim < values.ndim ? values.sizes[dim] : 1;
  if (l.count == 0 || k_out == 0) return cudaSuccess;
  return with_compute_type(in.dtype, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    const T* x = reinterpret_cast<const T*>(in.data);
    T* v = reinterpret_cast<T*>(values.data);
    auto* i = reinterpret_cast<int64_t*>(indices.data);
    if (l.n > kSharedSortMax)
      return radix_sort<T>(l, x, v, i, k_out, descending, static_cast<char*>(scratch), stream);
    const int p = pow2_ceil(l.n, static_cast<int>(kSharedSortMax));
    const int threads = std::min(512, std::max(32, p / 2));
    const size_t smem = sort_positions_at(p, sizeof(T)) + static_cast<size_t>(p) * sizeof(int);
    const auto blocks = static_cast<unsigned>(std::min(l.count, kMaxGrid));
    sort_shared_kernel<T><<<blocks, threads, smem, stream>>>(l, x, v, i, p, k_out, descending);
    return cudaGetLastError();
  });
}

}  // namespace nabla::cuda_kernels
