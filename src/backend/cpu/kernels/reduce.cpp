// Reduction CPU kernels: reduce (sum/prod/max/min/all/any), arg_reduce, cumsum, sort.
//
// Note [Reduction layout]
// The input's dims are split into kept dims (out size > 1) and reduced dims; size-1 dims
// are dropped, each group is ordered by input stride (largest first) and neighbours that
// step as one block are merged. Two loop shapes then cover every case:
//  - inner: the smallest-stride dim is reduced. Each output element reduces contiguous
//    (or strided) rows with several independent accumulator lanes, which the compiler
//    turns into SIMD without reassociating anything.
//  - outer: the smallest-stride dim is kept (e.g. sum over dim 0 of [128, 256]). Whole
//    input rows are added into a block of accumulators, so memory is read in order.
// Work is split over output elements when there are many; when there are few (a full
// reduction) the reduced range is cut into fixed chunks whose partial results are
// combined in chunk order, so the result does not depend on the thread count.
//
// Note [Float accumulation]
// float sums accumulate in float lanes for at most kBlock elements and then in double;
// row-wise (outer) sums accumulate in double. Sums of 1e6 float32 values keep ~1e-7
// relative accuracy instead of the ~1e-4 of one running float.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {
namespace {

constexpr int kLanes = 32;          // independent accumulators per contiguous row
constexpr int64_t kBlock = 2048;    // float elements per lane flush, Note [Float accumulation]
constexpr int64_t kColBlock = 256;  // outputs per accumulator block in outer mode
constexpr int64_t kFewTasks = 16;   // below this many tasks, split the reduced range

template <class T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return x != x;
  else
    return false;
}

// ---- Reduction operators --------------------------------------------------------------
// Lane: per-lane accumulator of a contiguous row; Acc: accumulator of partial results.

template <class T>
struct SumOp {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  using Lane = std::conditional_t<std::is_floating_point_v<T>, T, Acc>;
  static constexpr bool kBlocked = std::is_same_v<T, float>;
  static Lane lane_id() { return 0; }
  static Lane lane(Lane a, T x) { return a + static_cast<Lane>(x); }
  static Lane merge(Lane a, Lane b) { return a + b; }
  static Acc id() { return 0; }
  static Acc elem(Acc a, T x) { return a + static_cast<Acc>(x); }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static T finish(Acc a) {
    if constexpr (std::is_same_v<T, bool>)
      return a != 0;
    else
      return static_cast<T>(a);
  }
};

template <class T>
struct ProdOp {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  using Lane = Acc;
  static constexpr bool kBlocked = false;
  static Lane lane_id() { return 1; }
  static Lane lane(Lane a, T x) { return a * static_cast<Lane>(x); }
  static Lane merge(Lane a, Lane b) { return a * b; }
  static Acc id() { return 1; }
  static Acc elem(Acc a, T x) { return a * static_cast<Acc>(x); }
  static Acc combine(Acc a, Acc b) { return a * b; }
  static T finish(Acc a) {
    if constexpr (std::is_same_v<T, bool>)
      return a != 0;
    else
      return static_cast<T>(a);
  }
};

// NaN-propagating max (IsMax) or min.
template <class T, bool IsMax>
struct MaxMinOp {
  using Acc = T;
  using Lane = T;
  static constexpr bool kBlocked = false;
  static T lane_id() { return id(); }
  static T id() {
    if constexpr (std::is_same_v<T, bool>)
      return !IsMax;
    else if constexpr (std::is_floating_point_v<T>)
      return IsMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    else
      return IsMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  static T lane(T a, T x) { return elem(a, x); }
  static T merge(T a, T b) { return elem(a, b); }
  static T elem(T a, T x) {
    if constexpr (IsMax)
      return (x > a || is_nan(x)) ? x : a;
    else
      return (x < a || is_nan(x)) ? x : a;
  }
  static T combine(T a, T b) { return elem(a, b); }
  static T finish(T a) { return a; }
};

template <bool IsAll>
struct LogicalOp {
  using Acc = uint8_t;
  using Lane = uint8_t;
  static constexpr bool kBlocked = false;
  static Lane lane_id() { return IsAll; }
  static Lane lane(Lane a, bool x) { return IsAll ? (a & uint8_t(x)) : (a | uint8_t(x)); }
  static Lane merge(Lane a, Lane b) { return IsAll ? (a & b) : (a | b); }
  static Acc id() { return IsAll; }
  static Acc elem(Acc a, bool x) { return lane(a, x); }
  static Acc combine(Acc a, Acc b) { return IsAll ? (a & b) : (a | b); }
  static bool finish(Acc a) { return a != 0; }
};

// Reduces n elements starting at x with element stride s.
template <class Op, class T>
typename Op::Acc reduce_row(const T* x, int64_t n, int64_t s) {
  using Acc = typename Op::Acc;
  using Lane = typename Op::Lane;
  Acc total = Op::id();
  if (s != 1) {
    for (int64_t i = 0; i < n; ++i) total = Op::elem(total, x[i * s]);
    return total;
  }
  int64_t i = 0;
  const int64_t block = Op::kBlocked ? kBlock : std::numeric_limits<int64_t>::max();
  while (n - i >= kLanes) {
    Lane lanes[kLanes];
    for (int j = 0; j < kLanes; ++j) lanes[j] = Op::lane_id();
    const int64_t end = i + std::min((n - i) / kLanes * kLanes, block);
    for (; i < end; i += kLanes)
      for (int j = 0; j < kLanes; ++j) lanes[j] = Op::lane(lanes[j], x[i + j]);
    // Halving tree: vector operations, and no long serial chain for short rows.
    for (int w = kLanes / 2; w > 0; w /= 2)
      for (int j = 0; j < w; ++j) lanes[j] = Op::merge(lanes[j], lanes[j + w]);
    total = Op::combine(total, static_cast<Acc>(lanes[0]));
  }
  for (; i < n; ++i) total = Op::elem(total, x[i]);
  return total;
}

// acc[j] = acc[j] (op) x[r * rs + j * s] for j < m and r < rows: input rows into a block
// of outputs. Four rows per pass save three loads and stores of acc.
template <class Op, class T>
void reduce_cols(typename Op::Acc* __restrict acc, const T* __restrict x, int64_t m, int64_t s,
                 int64_t rows, int64_t rs) {
  int64_t r = 0;
  if (s == 1) {
    for (; r + 4 <= rows; r += 4) {
      const T* x0 = x + r * rs;
      const T* x1 = x0 + rs;
      const T* x2 = x1 + rs;
      const T* x3 = x2 + rs;
      for (int64_t j = 0; j < m; ++j)
        acc[j] = Op::elem(Op::elem(Op::elem(Op::elem(acc[j], x0[j]), x1[j]), x2[j]), x3[j]);
    }
    for (; r < rows; ++r) {
      const T* x0 = x + r * rs;
      for (int64_t j = 0; j < m; ++j) acc[j] = Op::elem(acc[j], x0[j]);
    }
  } else {
    for (; r < rows; ++r)
      for (int64_t j = 0; j < m; ++j) acc[j] = Op::elem(acc[j], x[r * rs + j * s]);
  }
}

// ---- Geometry, Note [Reduction layout] ------------------------------------------------

struct RDim {
  int64_t size;
  int64_t in_stride;   // elements
  int64_t out_stride;  // elements; 0 for reduced dims
};

struct ReducePlan {
  std::vector<RDim> kept;  // outermost first
  std::vector<RDim> red;
};

std::vector<RDim> order_and_merge(std::vector<RDim> dims) {
  std::stable_sort(dims.begin(), dims.end(),
                   [](const RDim& a, const RDim& b) { return a.in_stride > b.in_stride; });
  std::vector<RDim> out;
  for (const RDim& d : dims) {
    if (!out.empty() && out.back().in_stride == d.in_stride * d.size &&
        out.back().out_stride == d.out_stride * d.size) {
      out.back() = {out.back().size * d.size, d.in_stride, d.out_stride};
    } else {
      out.push_back(d);
    }
  }
  return out;
}

// `reduced[d]` says whether input dim d is reduced; out strides come from `out`.
ReducePlan make_reduce_plan(const Tensor& out, const Tensor& in, const std::vector<bool>& reduced) {
  std::vector<RDim> kept, red;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (in.size(d) == 1) continue;
    if (reduced[d])
      red.push_back({in.size(d), in.stride(d), 0});
    else
      kept.push_back({in.size(d), in.stride(d), out.stride(d)});
  }
  ReducePlan p{order_and_merge(std::move(kept)), order_and_merge(std::move(red))};
  if (p.red.empty()) p.red.push_back({1, 0, 0});
  return p;
}

int64_t product(const RDim* d, size_t n) {
  int64_t p = 1;
  for (size_t i = 0; i < n; ++i) p *= d[i].size;
  return p;
}

// Walks the index space of `n` dims in row-major order, tracking input/output offsets.
class Odometer {
 public:
  Odometer(const RDim* dims, int n) : dims_(dims), n_(n) {}
  void seek(int64_t linear) {
    in_ = out_ = 0;
    for (int d = n_ - 1; d >= 0; --d) {
      idx_[d] = linear % dims_[d].size;
      linear /= dims_[d].size;
      in_ += idx_[d] * dims_[d].in_stride;
      out_ += idx_[d] * dims_[d].out_stride;
    }
  }
  void next() {
    for (int d = n_ - 1; d >= 0; --d) {
      in_ += dims_[d].in_stride;
      out_ += dims_[d].out_stride;
      if (++idx_[d] < dims_[d].size) return;
      in_ -= dims_[d].in_stride * dims_[d].size;
      out_ -= dims_[d].out_stride * dims_[d].size;
      idx_[d] = 0;
    }
  }
  int64_t in() const { return in_; }
  int64_t out() const { return out_; }

 private:
  const RDim* dims_;
  int n_;
  int64_t idx_[kMaxDims] = {0};
  int64_t in_ = 0, out_ = 0;
};

// Runs fn(task) for tasks [0, n), in parallel when each chunk of `grain` tasks is worth it.
template <class F>
void for_tasks(int64_t n, int64_t grain, F&& fn) {
  parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) fn(t);
  });
}

// Inner mode: the smallest-stride dim is reduced.
template <class Op, class T>
void reduce_inner(const ReducePlan& p, T* out, const T* in) {
  using Acc = typename Op::Acc;
  const RDim row = p.red.back();
  const int nro = static_cast<int>(p.red.size()) - 1;  // reduced dims around the row
  const int nk = static_cast<int>(p.kept.size());
  const int64_t groups = product(p.kept.data(), p.kept.size());
  const int64_t red_outer = product(p.red.data(), nro);
  // The reduction of one output is a sequence of units: pieces of rows of at most
  // kGrainSize elements.
  const int64_t piece = std::max<int64_t>(1, std::min(row.size, kGrainSize));
  const int64_t pieces = (row.size + piece - 1) / piece;
  const int64_t units = red_outer * pieces;
  auto reduce_units = [&](int64_t base, int64_t u0, int64_t u1) {
    Acc a = Op::id();
    Odometer od(p.red.data(), nro);
    od.seek(u0 / pieces);
    int64_t k = u0 % pieces;
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t start = k * piece;
      const int64_t len = std::min(piece, row.size - start);
      a = Op::combine(
          a, reduce_row<Op>(in + base + od.in() + start * row.in_stride, len, row.in_stride));
      if (++k == pieces) {
        k = 0;
        od.next();
      }
    }
    return a;
  };
  const int64_t total = groups * red_outer * row.size;
  if (groups < kFewTasks && total >= 2 * kGrainSize && units >= 2) {
    const int64_t per_task = std::max<int64_t>(1, kGrainSize / piece);
    const int64_t tasks = (units + per_task - 1) / per_task;
    std::unique_ptr<Acc[]> partial(new Acc[groups * tasks]);  // not vector: Acc may be bool
    for_tasks(groups * tasks, 1, [&](int64_t i) {
      Odometer g(p.kept.data(), nk);
      g.seek(i / tasks);
      const int64_t t = i % tasks;
      partial[i] = reduce_units(g.in(), t * per_task, std::min(units, (t + 1) * per_task));
    });
    Odometer g(p.kept.data(), nk);
    g.seek(0);
    for (int64_t gi = 0; gi < groups; ++gi, g.next()) {
      Acc a = Op::id();
      for (int64_t t = 0; t < tasks; ++t) a = Op::combine(a, partial[gi * tasks + t]);
      out[g.out()] = Op::finish(a);
    }
    return;
  }
  const int64_t per_group = std::max<int64_t>(1, red_outer * row.size);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / per_group);
  auto run = [&](int64_t g0, int64_t g1) {
    Odometer g(p.kept.data(), nk);
    g.seek(g0);
    for (int64_t gi = g0; gi < g1; ++gi, g.next())
      out[g.out()] = Op::finish(reduce_units(g.in(), 0, units));
  };
  parallel_for(0, groups, grain, run);
}

// Outer mode: the smallest-stride dim is kept; input rows are added into blocks of
// kColBlock accumulators.
template <class Op, class T>
void reduce_outer(const ReducePlan& p, T* out, const T* in) {
  using Acc = typename Op::Acc;
  const RDim col = p.kept.back();
  const int nko = static_cast<int>(p.kept.size()) - 1;
  const int nr = static_cast<int>(p.red.size());
  const int64_t blocks = (col.size + kColBlock - 1) / kColBlock;
  const int64_t tasks = product(p.kept.data(), nko) * blocks;
  const int64_t red_n = product(p.red.data(), nr);
  // Accumulates reduced positions [r0, r1) of task `t` into acc; returns the block width.
  auto run_task = [&](int64_t t, int64_t r0, int64_t r1, Acc* acc, int64_t* in_base,
                      int64_t* out_base) {
    Odometer g(p.kept.data(), nko);
    g.seek(t / blocks);
    const int64_t j0 = (t % blocks) * kColBlock;
    const int64_t m = std::min(kColBlock, col.size - j0);
    *in_base = g.in() + j0 * col.in_stride;
    *out_base = g.out() + j0 * col.out_stride;
    std::fill(acc, acc + m, Op::id());
    // Rows [r0, r1) in runs along the innermost reduced dim (constant row stride).
    const RDim inner = p.red.back();
    Odometer r(p.red.data(), nr - 1);
    int64_t i = r0;
    r.seek(i / inner.size);
    while (i < r1) {
      const int64_t k = i % inner.size;
      const int64_t run = std::min(inner.size - k, r1 - i);
      reduce_cols<Op>(acc, in + *in_base + r.in() + k * inner.in_stride, m, col.in_stride, run,
                      inner.in_stride);
      i += run;
      r.next();
    }
    return m;
  };
  auto store = [&](const Acc* acc, int64_t m, int64_t out_base) {
    for (int64_t j = 0; j < m; ++j) out[out_base + j * col.out_stride] = Op::finish(acc[j]);
  };
  const int64_t width = std::min(kColBlock, col.size);
  const int64_t total = tasks * width * red_n;
  if (tasks < kFewTasks && total >= 2 * kGrainSize && red_n >= 2) {
    const int64_t per_chunk = std::max<int64_t>(1, kGrainSize / width);
    const int64_t chunks = (red_n + per_chunk - 1) / per_chunk;
    std::unique_ptr<Acc[]> partial(new Acc[tasks * chunks * kColBlock]);
    for_tasks(tasks * chunks, 1, [&](int64_t i) {
      const int64_t c = i % chunks;
      int64_t ib, ob;
      run_task(i / chunks, c * per_chunk, std::min(red_n, (c + 1) * per_chunk),
               &partial[i * kColBlock], &ib, &ob);
    });
    for (int64_t t = 0; t < tasks; ++t) {
      Acc* acc = &partial[t * chunks * kColBlock];
      int64_t ib, ob;
      Acc scratch[kColBlock];
      const int64_t m = run_task(t, 0, 0, scratch, &ib, &ob);  // geometry only
      for (int64_t c = 1; c < chunks; ++c)
        for (int64_t j = 0; j < m; ++j) acc[j] = Op::combine(acc[j], acc[c * kColBlock + j]);
      store(acc, m, ob);
    }
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, width * red_n));
  for_tasks(tasks, grain, [&](int64_t t) {
    Acc acc[kColBlock];
    int64_t ib, ob;
    const int64_t m = run_task(t, 0, red_n, acc, &ib, &ob);
    store(acc, m, ob);
  });
}

template <class Op, class T>
void reduce_typed(const Tensor& out, const Tensor& in, const std::vector<bool>& reduced) {
  T* o = out.data_ptr<T>();
  const T* x = in.data_ptr<T>();
  if (out.numel() == 0) return;
  if (in.numel() == 0) {  // empty reduction: the identity
    const T v = Op::finish(Op::id());
    for_each_row(make_plan<1>({&out}), [&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
    });
    return;
  }
  ReducePlan plan = make_reduce_plan(out, in, reduced);
  if (!plan.kept.empty() && plan.kept.back().in_stride < plan.red.back().in_stride)
    reduce_outer<Op>(plan, o, x);
  else
    reduce_inner<Op>(plan, o, x);
}

// ---- arg_reduce ------------------------------------------------------------------------

// True when v should replace the current best c: strictly better, or the first NaN.
// Bitwise operators (no short circuit) keep the lane loops branch-free for the vectorizer.
template <class T, bool IsMax>
inline bool better(T v, T c) {
  const bool strict = IsMax ? (v > c) : (v < c);
  return strict | (is_nan(v) & !is_nan(c));
}

constexpr int kArgLanes = 16;

// Arg-reduce of a contiguous row in two vectorized passes: the extreme value (NaN
// propagating), then the first position holding it, found block by block. Same result
// as the sequential scan: first index on ties, first NaN.
template <class T, bool IsMax>
void arg_row_lanes(const T* x, int64_t n, T* best_out, int64_t* index_out) {
  const T m = reduce_row<MaxMinOp<T, IsMax>>(x, n, 1);
  const bool want_nan = is_nan(m);
  constexpr int64_t kFind = 64;
  int64_t i = 0;
  for (; i + kFind <= n; i += kFind) {
    bool hit = false;
    if (want_nan) {
      for (int64_t j = 0; j < kFind; ++j) hit |= is_nan(x[i + j]);
    } else {
      for (int64_t j = 0; j < kFind; ++j) hit |= x[i + j] == m;
    }
    if (hit) break;
  }
  for (; i < n; ++i)
    if (want_nan ? is_nan(x[i]) : x[i] == m) break;
  *best_out = m;
  *index_out = i;
}

template <class T, bool IsMax>
void arg_reduce_typed(const Tensor& out_index, const Tensor& out_value, const Tensor& in,
                      int64_t dim) {
  NABLA_ASSERT(out_index.strides() == out_value.strides(),
               "arg_reduce: index and value outputs must share strides");
  std::vector<bool> reduced(in.dim(), false);
  reduced[dim] = true;
  ReducePlan p = make_reduce_plan(out_index, in, reduced);
  const RDim r = p.red.back();  // a single dim (or the size-1 placeholder)
  const T* x = in.data_ptr<T>();
  int64_t* oi = out_index.data_ptr<int64_t>();
  T* ov = out_value.data_ptr<T>();
  if (out_index.numel() == 0) return;
  const int nk = static_cast<int>(p.kept.size());
  const bool outer = !p.kept.empty() && p.kept.back().in_stride < r.in_stride;
  if (!outer) {
    const int64_t groups = product(p.kept.data(), p.kept.size());
    const int64_t grain = std::max<int64_t>(1, kGrainSize / r.size);
    auto run = [&](int64_t g0, int64_t g1) {
      Odometer g(p.kept.data(), nk);
      g.seek(g0);
      for (int64_t gi = g0; gi < g1; ++gi, g.next()) {
        const T* row = x + g.in();
        T best = row[0];
        int64_t bi = 0;
        if (r.in_stride == 1 && r.size >= 4 * kArgLanes && r.size < (int64_t(1) << 31)) {
          arg_row_lanes<T, IsMax>(row, r.size, &best, &bi);
          oi[g.out()] = bi;
          ov[g.out()] = best;
          continue;
        }
        for (int64_t k = 1; k < r.size; ++k) {
          T v = row[k * r.in_stride];
          if (better<T, IsMax>(v, best)) {
            best = v;
            bi = k;
          }
        }
        oi[g.out()] = bi;
        ov[g.out()] = best;
      }
    };
    parallel_for(0, groups, grain, run);
    return;
  }
  const RDim col = p.kept.back();
  const int64_t blocks = (col.size + kColBlock - 1) / kColBlock;
  const int64_t tasks = product(p.kept.data(), nk - 1) * blocks;
  const int64_t grain = std::max<int64_t>(
      1, kGrainSize / std::max<int64_t>(1, std::min(kColBlock, col.size) * r.size));
  for_tasks(tasks, grain, [&](int64_t t) {
    Odometer g(p.kept.data(), nk - 1);
    g.seek(t / blocks);
    const int64_t j0 = (t % blocks) * kColBlock;
    const int64_t m = std::min(kColBlock, col.size - j0);
    const T* base = x + g.in() + j0 * col.in_stride;
    T best[kColBlock];
    int64_t bi[kColBlock];
    for (int64_t j = 0; j < m; ++j) {
      best[j] = base[j * col.in_stride];
      bi[j] = 0;
    }
    for (int64_t k = 1; k < r.size; ++k) {
      const T* row = base + k * r.in_stride;
      for (int64_t j = 0; j < m; ++j) {
        T v = row[j * col.in_stride];
        if (better<T, IsMax>(v, best[j])) {
          best[j] = v;
          bi[j] = k;
        }
      }
    }
    const int64_t ob = g.out() + j0 * col.out_stride;
    for (int64_t j = 0; j < m; ++j) {
      oi[ob + j * col.out_stride] = bi[j];
      ov[ob + j * col.out_stride] = best[j];
    }
  });
}

// ---- cumsum and sort: lines along one dim ------------------------------------------------

// Calls fn(in_offset, out_offset) for every line along `dim` (element offsets), in
// parallel over lines; `work` is the cost of one line.
template <class F>
void for_each_line(const Tensor& out, const Tensor& in, int64_t dim, int64_t work, F&& fn) {
  std::vector<RDim> dims;
  for (int64_t d = 0; d < in.dim(); ++d)
    if (d != dim && in.size(d) != 1) dims.push_back({in.size(d), in.stride(d), out.stride(d)});
  const int64_t lines = product(dims.data(), dims.size());
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work));
  auto run = [&](int64_t l0, int64_t l1) {
    Odometer od(dims.data(), static_cast<int>(dims.size()));
    od.seek(l0);
    for (int64_t l = l0; l < l1; ++l, od.next()) fn(od.in(), od.out());
  };
  parallel_for(0, lines, grain, run);
}

template <class T>
void cumsum_typed(const Tensor& out, const Tensor& in, int64_t dim) {
  using Acc = typename SumOp<T>::Acc;
  const T* x = in.data_ptr<T>();
  T* o = out.data_ptr<T>();
  const int64_t n = in.size(dim), si = in.stride(dim), so = out.stride(dim);
  for_each_line(out, in, dim, n, [&](int64_t ib, int64_t ob) {
    Acc a = 0;
    for (int64_t k = 0; k < n; ++k) {
      a += static_cast<Acc>(x[ib + k * si]);
      o[ob + k * so] = SumOp<T>::finish(a);
    }
  });
}

template <class T>
void sort_typed(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                bool descending) {
  const T* x = in.data_ptr<T>();
  T* ov = values.data_ptr<T>();
  int64_t* oi = indices.data_ptr<int64_t>();
  NABLA_ASSERT(values.strides() == indices.strides(), "sort: outputs must share strides");
  const int64_t n = in.size(dim), k = values.size(dim);
  const int64_t si = in.stride(dim), so = values.stride(dim);
  // Ties break on the position, which makes the order total: partial_sort and sort then
  // give the stable order.
  auto before = [descending](T a, int64_t ia, T b, int64_t ib) {
    const bool na = is_nan(a), nb = is_nan(b);
    if (na || nb) {
      if (na && nb) return ia < ib;
      return descending ? na : nb;
    }
    if (a != b) return descending ? a > b : a < b;
    return ia < ib;
  };
  using Item = std::pair<T, int64_t>;  // (value, position): sorting reads memory in order
  auto cmp = [&](const Item& a, const Item& b) {
    return before(a.first, a.second, b.first, b.second);
  };
  for_each_line(values, in, dim, n * 8, [&](int64_t ib, int64_t ob) {
    std::vector<Item> items(n);
    for (int64_t j = 0; j < n; ++j) items[j] = {x[ib + j * si], j};
    if (k < n)
      std::partial_sort(items.begin(), items.begin() + k, items.end(), cmp);
    else
      std::sort(items.begin(), items.end(), cmp);
    for (int64_t j = 0; j < k; ++j) {
      oi[ob + j * so] = items[j].second;
      ov[ob + j * so] = items[j].first;
    }
  });
}

}  // namespace

void CpuBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  NABLA_ASSERT(out.dim() == in.dim() && out.scalar_type() == in.scalar_type(),
               "reduce: out must be the keepdim shape in the input's dtype");
  std::vector<bool> reduced(in.dim(), false);
  for (int64_t d : dims) reduced[d] = true;
  dispatch_all(in.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (op) {
      case ReduceOp::Sum:
        return reduce_typed<SumOp<T>, T>(out, in, reduced);
      case ReduceOp::Prod:
        return reduce_typed<ProdOp<T>, T>(out, in, reduced);
      case ReduceOp::Max:
        return reduce_typed<MaxMinOp<T, true>, T>(out, in, reduced);
      case ReduceOp::Min:
        return reduce_typed<MaxMinOp<T, false>, T>(out, in, reduced);
      case ReduceOp::All:
      case ReduceOp::Any:
        if constexpr (std::is_same_v<T, bool>) {
          if (op == ReduceOp::All) return reduce_typed<LogicalOp<true>, T>(out, in, reduced);
          return reduce_typed<LogicalOp<false>, T>(out, in, reduced);
        }
        NABLA_ASSERT(false, "reduce: all/any need bool tensors, got ", in.scalar_type());
    }
  });
}

void CpuBackend::arg_reduce(bool is_max, const Tensor& out_index, const Tensor& out_value,
                            const Tensor& in, int64_t dim) {
  dispatch_all(in.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (is_max)
      arg_reduce_typed<T, true>(out_index, out_value, in, dim);
    else
      arg_reduce_typed<T, false>(out_index, out_value, in, dim);
  });
}

void CpuBackend::cumsum(const Tensor& out, const Tensor& in, int64_t dim) {
  if (out.numel() == 0) return;
  dispatch_all(in.scalar_type(),
               [&](auto tag) { cumsum_typed<typename decltype(tag)::type>(out, in, dim); });
}

void CpuBackend::sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                      bool descending) {
  if (values.numel() == 0) return;
  dispatch_all(in.scalar_type(), [&](auto tag) {
    sort_typed<typename decltype(tag)::type>(values, indices, in, dim, descending);
  });
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
