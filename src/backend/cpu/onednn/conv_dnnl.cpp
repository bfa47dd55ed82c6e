// oneDNN convolution primitives behind conv_dnnl.h.
//
// Threads: nabla owns the thread budget. A batch of two or more samples is cut into
// chunks that nabla's pool takes dynamically, each run by single-threaded primitives (so
// a core slowed by another process gets fewer chunks, and no OpenMP team spins beside the
// pool); a single sample runs one primitive on OpenMP threads, as many as nabla's.
#include "backend/cpu/onednn/conv_dnnl.h"

#include "backend/cpu/onednn/onednn.h"

#if NABLA_HAVE_DNNL

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "nabla/backend/isa.h"
#include "nabla/backend/parallel.h"
#include "nabla/core/error.h"
#include "nabla/core/storage.h"

namespace nabla::cpu::conv {
namespace {

using dnnl::memory;
using dims = memory::dims;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

dnnl::engine& engine() {
  static dnnl::engine* eng = [] {
    (void)onednn::available();  // the ISA cap first
    return new dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return *eng;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

// A 64-byte aligned buffer from nabla's caching allocator.
// Note [Chunk scratch]
// The batch chunks' reorder buffers and oneDNN scratchpads come from workspaces, one
// per thread, each as large as the largest chunk of any convolution run so far needs.
// A convolution reserves its chunks' size before they start, growing every idle
// workspace then, so all growth happens on the first call of each shape: training then
// allocates nothing, whichever thread takes which chunk (per-chunk blocks from the shared
// cache, or per-thread ones grown on a thread's first chunk, made the allocations depend
// on when the pool's workers woke up).
constexpr size_t kScratchAlign = 64;

size_t aligned_size(size_t bytes) {
  return (bytes + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
}

class Workspace {
 public:
  ~Workspace() { cpu_free(p_, cap_); }  // the allocator outlives every thread
  void grow(size_t bytes) {
    if (cap_ >= bytes) return;
    cpu_free(p_, cap_);
    p_ = nullptr;
    cap_ = 0;
    p_ = cpu_alloc(bytes);
    cap_ = bytes;
  }
  void reset() { used_ = 0; }
  // nullptr when the workspace is full (the caller then allocates).
  void* take(size_t bytes) {
    const size_t n = aligned_size(bytes);
    if (used_ + n > cap_) return nullptr;
    void* p = static_cast<char*>(p_) + used_;
    used_ += n;
    return p;
  }

 private:
  void* p_ = nullptr;
  size_t cap_ = 0, used_ = 0;
};

class ScratchPool {
 public:
  static ScratchPool& instance() {
    static ScratchPool* pool = new ScratchPool();  // never destroyed: threads may outlive statics
    return *pool;
  }
  // Chunks of `bytes` are about to run on up to `threads` threads.
  void reserve(size_t bytes, int threads) {
    std::lock_guard<std::mutex> lock(mutex_);
    need_ = std::max(need_, bytes);
    while (static_cast<int>(all_.size()) < threads) add();
    for (Workspace* w : idle_) w->grow(need_);
  }
  Workspace* acquire() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_.empty()) add();  // more concurrent chunks than reserved for (nested callers)
    Workspace* w = idle_.back();
    idle_.pop_back();
    w->grow(need_);
    w->reset();
    return w;
  }
  void release(Workspace* w) {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(w);
  }

 private:
  void add() {
    all_.push_back(std::make_unique<Workspace>());
    idle_.push_back(all_.back().get());
  }
  std::mutex mutex_;
  std::vector<std::unique_ptr<Workspace>> all_;
  std::vector<Workspace*> idle_;
  size_t need_ = 0;
};

// The workspace of the chunk running on this thread (null outside chunks).
thread_local Workspace* t_workspace = nullptr;

// Holds a workspace for one chunk's body.
class ChunkScope {
 public:
  ChunkScope() : w_(ScratchPool::instance().acquire()), outer_(t_workspace) { t_workspace = w_; }
  ~ChunkScope() {
    t_workspace = outer_;
    ScratchPool::instance().release(w_);
  }
  ChunkScope(const ChunkScope&) = delete;
  ChunkScope& operator=(const ChunkScope&) = delete;

 private:
  Workspace* w_;
  Workspace* outer_;
};

// Scratch memory: from the chunk's workspace, else (outside chunks, or past a reserve
// that under-estimated) from nabla's allocator.
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t bytes) {
    if (bytes == 0) return;
    if (t_workspace != nullptr) p_ = t_workspace->take(bytes);
    if (p_ == nullptr) {
      p_ = cpu_alloc(bytes);
      owned_ = bytes;
    }
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : p_(o.p_), owned_(o.owned_) {
    o.p_ = nullptr;
    o.owned_ = 0;
  }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(owned_, o.owned_);
    return *this;
  }
  ~Buffer() {
    if (owned_) cpu_free(p_, owned_);
  }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
  size_t owned_ = 0;
};

// A reorder between a plain (NCHW / OIHW) layout and oneDNN's chosen one; empty when the
// two are the same and the plain data is used in place.
struct Reorder {
  std::optional<dnnl::reorder> prim;
  static Reorder make(const memory::desc& from, const memory::desc& to) {
    Reorder r;
    if (from != to)
      r.prim = dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from, engine(), to));
    return r;
  }
};

// Memory in a primitive's layout: the plain data itself, or a buffer reordered from or to it.
struct Operand {
  memory plain, mem;
  Buffer buf;
  Operand(const memory::desc& plain_md, const memory::desc& md, void* data) {
    plain = memory(plain_md, engine(), data);
    if (plain_md == md) {
      mem = plain;
    } else {
      buf = Buffer(md.get_size());
      mem = memory(md, engine(), buf.get());
    }
  }
  void load(const Reorder& r) {
    if (r.prim) r.prim->execute(stream(), plain, mem);
  }
  void store(const Reorder& r) {
    if (r.prim) r.prim->execute(stream(), mem, plain);
  }
};

// oneDNN fixes a primitive's thread count (its work partition) when it is created, from
// OpenMP's setting then: the count is part of the key, and set before creation.
struct Key {
  int64_t n, c, h, w, o, kh, kw, s0, s1, p0, p1, d0, d1, g;
  bool bias;
  int threads;
  auto tie() const {
    return std::tie(n, c, h, w, o, kh, kw, s0, s1, p0, p1, d0, d1, g, bias, threads);
  }
  bool operator<(const Key& k) const { return tie() < k.tie(); }
};

// Primitives for one geometry and batch size. Backward ones are made on first use.
struct Entry {
  memory::desc src_plain, wei_plain, dst_plain, bias_md;
  dnnl::convolution_forward::primitive_desc fwd_pd;
  dnnl::convolution_forward fwd;
  Reorder src_in, wei_in, dst_out;

  std::once_flag bwd_once;
  dnnl::convolution_backward_data::primitive_desc bwd_d_pd;
  dnnl::convolution_backward_data bwd_d;
  dnnl::convolution_backward_weights::primitive_desc bwd_w_pd;
  dnnl::convolution_backward_weights bwd_w;
  Reorder gy_in_d, wei_in_d, gx_out, gy_in_w, src_in_w, gw_out;

  dims strides, dilates, pad;
  dnnl::primitive_attr attr;
  memory::desc src_any, wei_any, dst_any;

  Entry(const ConvShape& s, int64_t n, bool with_bias) {
    const bool grouped = s.groups > 1;
    const dims src{n, s.c, s.h, s.w}, dst{n, s.o, s.oh, s.ow};
    const dims wei = grouped ? dims{s.groups, s.o / s.groups, s.c / s.groups, s.kh, s.kw}
                             : dims{s.o, s.c, s.kh, s.kw};
    src_plain = memory::desc(src, f32, tag::nchw);
    dst_plain = memory::desc(dst, f32, tag::nchw);
    wei_plain = memory::desc(wei, f32, grouped ? tag::goihw : tag::oihw);
    bias_md = memory::desc({s.o}, f32, tag::a);
    src_any = memory::desc(src, f32, tag::any);
    wei_any = memory::desc(wei, f32, tag::any);
    dst_any = memory::desc(dst, f32, tag::any);
    strides = {s.stride[0], s.stride[1]};
    dilates = {s.dilation[0] - 1, s.dilation[1] - 1};
    pad = {s.padding[0], s.padding[1]};
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const auto kind = dnnl::prop_kind::forward_training;
    const auto algo = dnnl::algorithm::convolution_direct;
    fwd_pd = with_bias ? dnnl::convolution_forward::primitive_desc(
                             dnnl::convolution_forward::desc(kind, algo, src_any, wei_any, bias_md,
                                                             dst_any, strides, dilates, pad, pad),
                             attr, engine())
                       : dnnl::convolution_forward::primitive_desc(
                             dnnl::convolution_forward::desc(kind, algo, src_any, wei_any, dst_any,
                                                             strides, dilates, pad, pad),
                             attr, engine());
    fwd = dnnl::convolution_forward(fwd_pd);
    src_in = Reorder::make(src_plain, fwd_pd.src_desc());
    wei_in = Reorder::make(wei_plain, fwd_pd.weights_desc());
    dst_out = Reorder::make(fwd_pd.dst_desc(), dst_plain);
  }

  // Chunk scratch (Note [Chunk scratch]) of forward_chunk and of the backward body.
  size_t forward_scratch() const {
    return operand_bytes(src_plain, fwd_pd.src_desc()) +
           operand_bytes(wei_plain, fwd_pd.weights_desc()) +
           operand_bytes(dst_plain, fwd_pd.dst_desc()) +
           aligned_size(fwd_pd.scratchpad_desc().get_size());
  }
  size_t backward_scratch(bool input_grad, bool weight_grad) const {
    size_t n = 0;
    if (input_grad)
      n += operand_bytes(dst_plain, bwd_d_pd.diff_dst_desc()) +
           operand_bytes(wei_plain, bwd_d_pd.weights_desc()) +
           operand_bytes(src_plain, bwd_d_pd.diff_src_desc()) +
           aligned_size(bwd_d_pd.scratchpad_desc().get_size());
    if (weight_grad)
      n += operand_bytes(src_plain, bwd_w_pd.src_desc()) +
           operand_bytes(dst_plain, bwd_w_pd.diff_dst_desc()) +
           operand_bytes(wei_plain, bwd_w_pd.diff_weights_desc()) +
           aligned_size(bwd_w_pd.scratchpad_desc().get_size());
    return n;
  }
  static size_t operand_bytes(const memory::desc& plain, const memory::desc& md) {
    return plain == md ? 0 : aligned_size(md.get_size());
  }

  void make_backward(bool with_bias) {
    std::call_once(bwd_once, [&] {
      const auto algo = dnnl::algorithm::convolution_direct;
      bwd_d_pd = dnnl::convolution_backward_data::primitive_desc(
          dnnl::convolution_backward_data::desc(algo, src_any, wei_any, dst_any, strides, dilates,
                                                pad, pad),
          attr, engine(), fwd_pd);
      bwd_d = dnnl::convolution_backward_data(bwd_d_pd);
      bwd_w_pd =
          with_bias ? dnnl::convolution_backward_weights::primitive_desc(
                          dnnl::convolution_backward_weights::desc(
                              algo, src_any, wei_any, bias_md, dst_any, strides, dilates, pad, pad),
                          attr, engine(), fwd_pd)
                    : dnnl::convolution_backward_weights::primitive_desc(
                          dnnl::convolution_backward_weights::desc(algo, src_any, wei_any, dst_any,
                                                                   strides, dilates, pad, pad),
                          attr, engine(), fwd_pd);
      bwd_w = dnnl::convolution_backward_weights(bwd_w_pd);
      gy_in_d = Reorder::make(dst_plain, bwd_d_pd.diff_dst_desc());
      wei_in_d = Reorder::make(wei_plain, bwd_d_pd.weights_desc());
      gx_out = Reorder::make(bwd_d_pd.diff_src_desc(), src_plain);
      gy_in_w = Reorder::make(dst_plain, bwd_w_pd.diff_dst_desc());
      src_in_w = Reorder::make(src_plain, bwd_w_pd.src_desc());
      gw_out = Reorder::make(bwd_w_pd.diff_weights_desc(), wei_plain);
    });
  }
};

// The primitives for batch size n, created (and later run) on `threads` OpenMP threads.
std::shared_ptr<Entry> entry_for(const ConvShape& s, int64_t n, bool with_bias, int threads) {
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<Entry>> cache;
  const Key key{
      n,           s.c,         s.h,          s.w,          s.o,           s.kh,          s.kw,
      s.stride[0], s.stride[1], s.padding[0], s.padding[1], s.dilation[0], s.dilation[1], s.groups,
      with_bias,   threads};
  onednn::set_threads(threads);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (cache.size() >= 256) cache.clear();  // a bound for programs that vary shapes endlessly
  auto e = std::make_shared<Entry>(s, n, with_bias);
  cache.emplace(key, e);
  return e;
}

void execute(dnnl::primitive& p, const dnnl::primitive_desc_base& pd,
             std::unordered_map<int, memory> args) {
  const memory::desc sd = pd.scratchpad_desc();
  Buffer scratch(sd.get_size());
  if (sd.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, memory(sd, engine(), scratch.get()));
  p.execute(stream(), args);
}

// The batch cut into chunks: sizes q + 1 (the first r chunks) and q.
struct Chunks {
  int64_t count, q, r;
  Chunks(int64_t n, int threads) {
    count = threads <= 1 ? 1 : std::min<int64_t>(n, 2 * threads);
    q = n / count;
    r = n % count;
  }
  int64_t begin(int64_t i) const { return i * q + std::min(i, r); }
};

int threads_here() { return in_parallel_region() ? 1 : get_num_threads(); }

Chunks chunks_for(const ConvShape& s) { return Chunks(s.n, s.n >= 2 ? threads_here() : 1); }

// Runs body(chunk index, its first sample, its primitives) over the batch's chunks on
// nabla's pool, each chunk's primitives single-threaded; one chunk (one thread, or a
// single sample) runs on as many OpenMP threads as nabla has.
// scratch(entry) prepares an entry for the body and returns the scratch bytes a chunk
// of it takes.
template <class Scratch, class Body>
void over_batch(const ConvShape& s, const Chunks& chunks, bool with_bias, Scratch&& scratch,
                Body&& body) {
  const int threads = chunks.count == 1 ? threads_here() : 1;
  std::shared_ptr<Entry> big = entry_for(s, chunks.q + (chunks.r ? 1 : 0), with_bias, threads);
  std::shared_ptr<Entry> small = chunks.r ? entry_for(s, chunks.q, with_bias, threads) : big;
  const size_t need = std::max(scratch(*big), scratch(*small));
  ScratchPool::instance().reserve(
      need, static_cast<int>(std::min<int64_t>(chunks.count, get_num_threads())));
  if (chunks.count == 1) {
    onednn::set_threads(threads);
    ChunkScope scope;
    body(0, 0, *big);
    stream().wait();
    return;
  }
  parallel_for(0, chunks.count, 1, [&](int64_t b, int64_t e) {
    onednn::set_threads(1);
    for (int64_t i = b; i < e; ++i) {
      ChunkScope scope;
      body(i, chunks.begin(i), i < chunks.r ? *big : *small);
      stream().wait();
    }
  });
}

template <class F>
bool guarded(const char* what, F&& f) {
  try {
    f();
    return true;
  } catch (const dnnl::error& e) {
    // Shapes oneDNN has no implementation for take nabla's own path.
    if (e.status == dnnl_unimplemented) return false;
    NABLA_CHECK(false, what, ": oneDNN failed: ", e.what());
  }
  return false;
}

void forward_chunk(const ConvShape& s, Entry& e, int64_t b0, const float* x, const float* w,
                   const float* b, float* y) {
  const int64_t x_step = s.c * s.h * s.w, y_step = s.o * s.oh * s.ow;
  Operand src(e.src_plain, e.fwd_pd.src_desc(), const_cast<float*>(x + b0 * x_step));
  Operand wei(e.wei_plain, e.fwd_pd.weights_desc(), const_cast<float*>(w));
  Operand dst(e.dst_plain, e.fwd_pd.dst_desc(), y + b0 * y_step);
  src.load(e.src_in);
  wei.load(e.wei_in);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src.mem}, {DNNL_ARG_WEIGHTS, wei.mem}, {DNNL_ARG_DST, dst.mem}};
  if (b) args.emplace(DNNL_ARG_BIAS, memory(e.bias_md, engine(), const_cast<float*>(b)));
  execute(e.fwd, e.fwd_pd, std::move(args));
  dst.store(e.dst_out);
}

}  // namespace

bool available() { return onednn::available(); }

bool forward(const ConvShape& s, const float* x, const float* w, const float* b, float* y) {
  return guarded("conv2d", [&] {
    over_batch(
        s, chunks_for(s), b != nullptr, [](Entry& e) { return e.forward_scratch(); },
        [&](int64_t, int64_t b0, Entry& e) { forward_chunk(s, e, b0, x, w, b, y); });
  });
}

bool backward(const ConvShape& s, const float* x, const float* w, const float* gy, float* gx,
              float* gw, float* gb) {
  return guarded("conv2d backward", [&] {
    const bool with_bias = gb != nullptr;
    const Chunks chunks = chunks_for(s);
    const int64_t x_step = s.c * s.h * s.w, y_step = s.o * s.oh * s.ow;
    const int64_t wsize = s.o * (s.c / s.groups) * s.kh * s.kw;
    // Per-chunk weight (and bias) gradients in plain layout, summed after the chunks.
    Buffer partial_buf(gw || gb ? sizeof(float) * chunks.count * (wsize + s.o) : 0);
    auto* partial = static_cast<float*>(partial_buf.get());
    auto scratch = [&](Entry& e) {
      e.make_backward(with_bias);
      return e.backward_scratch(gx != nullptr, gw || gb);
    };
    over_batch(s, chunks, with_bias, scratch, [&](int64_t i, int64_t b0, Entry& e) {
      float* gy_plain = const_cast<float*>(gy + b0 * y_step);
      std::optional<Operand> dy_d;  // the output gradient as backward-data took it
      if (gx) {
        dy_d.emplace(e.dst_plain, e.bwd_d_pd.diff_dst_desc(), gy_plain);
        Operand wei(e.wei_plain, e.bwd_d_pd.weights_desc(), const_cast<float*>(w));
        Operand dx(e.src_plain, e.bwd_d_pd.diff_src_desc(), gx + b0 * x_step);
        dy_d->load(e.gy_in_d);
        wei.load(e.wei_in_d);
        execute(e.bwd_d, e.bwd_d_pd,
                {{DNNL_ARG_DIFF_DST, dy_d->mem},
                 {DNNL_ARG_WEIGHTS, wei.mem},
                 {DNNL_ARG_DIFF_SRC, dx.mem}});
        dx.store(e.gx_out);
      }
      if (gw || gb) {
        float* pw = partial + i * (wsize + s.o);
        Operand src(e.src_plain, e.bwd_w_pd.src_desc(), const_cast<float*>(x + b0 * x_step));
        // Backward-weights mostly wants the output gradient in the layout backward-data
        // had it reordered to: reordered once then.
        const bool shared = dy_d && dy_d->mem.get_desc() == e.bwd_w_pd.diff_dst_desc();
        Operand dy(e.dst_plain, shared ? e.dst_plain : e.bwd_w_pd.diff_dst_desc(), gy_plain);
        if (shared) dy.mem = dy_d->mem;
        Operand dw(e.wei_plain, e.bwd_w_pd.diff_weights_desc(), pw);
        src.load(e.src_in_w);
        if (!shared) dy.load(e.gy_in_w);
        std::unordered_map<int, memory> args{
            {DNNL_ARG_SRC, src.mem}, {DNNL_ARG_DIFF_DST, dy.mem}, {DNNL_ARG_DIFF_WEIGHTS, dw.mem}};
        if (with_bias) args.emplace(DNNL_ARG_DIFF_BIAS, memory(e.bias_md, engine(), pw + wsize));
        execute(e.bwd_w, e.bwd_w_pd, std::move(args));
        dw.store(e.gw_out);
      }
    });
    if (gw || gb) {
      const float* p = partial;
      if (gw) std::copy(p, p + wsize, gw);
      if (gb) std::copy(p + wsize, p + wsize + s.o, gb);
      for (int64_t i = 1; i < chunks.count; ++i) {
        const float* q = p + i * (wsize + s.o);
        if (gw)
          for (int64_t j = 0; j < wsize; ++j) gw[j] += q[j];
        if (gb)
          for (int64_t j = 0; j < s.o; ++j) gb[j] += q[wsize + j];
      }
    }
  });
}

std::string describe() {
  if (!available()) return "im2col + nabla GEMM (" + onednn::describe() + ")";
  return onednn::describe() + ", batch chunks on nabla's pool";
}

}  // namespace nabla::cpu::conv

#else  // built without oneDNN

namespace nabla::cpu::conv {

bool available() { return false; }
bool forward(const ConvShape&, const float*, const float*, const float*, float*) { return false; }
bool backward(const ConvShape&, const float*, const float*, const float*, float*, float*, float*) {
  return false;
}
std::string describe() { return "im2col + nabla GEMM (built without oneDNN)"; }

}  // namespace nabla::cpu::conv

#endif
