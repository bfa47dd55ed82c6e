// CudaBackend's direct float32 convolutions through cuDNN's legacy convolution API
// (ConvAlgorithm::Library; every other algorithm is left to the op's im2col + gemm).
//
// Each device has one cuDNN handle, created on first use and never destroyed (the driver
// may be gone by the time static destructors run), and a cache of the algorithm chosen
// per problem. A handle serves one thread at a time, so each entry holds its device's
// lock while it uses the handle; the work itself is only queued, on the current stream.
// The algorithm honours globalContext(): benchmarkCuDNN times the candidates
// (cudnnFind*Ex, once per problem; this waits for the device), otherwise cuDNN's
// heuristics (cudnnGet*_v7) choose; deterministicCuDNN / deterministicAlgorithms keep
// only deterministic algorithms; without allowTF32CuDNN only FMA (full float32) kernels.
#include "backend/cuda/cuda_backend.h"

#if NABLA_HAVE_CUDNN
#include "nabla/core/detail/cuda/libraries.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <mutex>

#include "nabla/core/context.h"
#endif

namespace nabla::cuda_kernels {

#if NABLA_HAVE_CUDNN
namespace {

// cuDNN's functions, opened on first use (Note [CUDA libraries on first use]); the entries
// below run only once cuda::cudnn_is_available() said it opened.
const cuda::detail::CudnnApi& dnn() { return *cuda::detail::cudnn(); }

constexpr int kMaxDevices = 16;
constexpr int kMaxAlgos = 16;  // more than any of the three algorithm enums holds
// cudnnFind*Ex's scratch is capped here: a candidate that needs more is not timed.
constexpr size_t kMaxFindWorkspace = size_t(1) << 30;

void check(cudnnStatus_t status, const char* call) {
  NABLA_CHECK(status == CUDNN_STATUS_SUCCESS, "cuDNN error: ", dnn().cudnnGetErrorString(status),
              " in ", call);
}
#define NABLA_CUDNN_CHECK(call) check((call), #call)

// The statuses that mean cuDNN has no kernel for the problem (the op then falls back);
// anything else but success is an error.
bool refused(cudnnStatus_t status) {
  const int category = CUDNN_STATUS_CATEGORY(static_cast<int>(status));
  return category == CUDNN_STATUS_BAD_PARAM || category == CUDNN_STATUS_NOT_SUPPORTED;
}

enum class Pass : int64_t { Forward, BackwardData, BackwardFilter };

/// One problem's algorithm (ok false: cuDNN has none, remembered too).
struct Choice {
  bool ok = false;
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};

using Key = std::array<int64_t, 17>;

struct DeviceState {
  std::mutex mutex;  // guards both fields and every use of the handle
  cudnnHandle_t handle = nullptr;
  std::map<Key, Choice> choices;
};

DeviceState& device_state(int64_t device) {
  static DeviceState* states = new DeviceState[kMaxDevices];  // never destroyed, as the handles
  return states[device];
}

/// The descriptors of one problem, destroyed with it.
struct Descriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  Descriptors() = default;
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
  ~Descriptors() {
    if (x) dnn().cudnnDestroyTensorDescriptor(x);
    if (y) dnn().cudnnDestroyTensorDescriptor(y);
    if (bias) dnn().cudnnDestroyTensorDescriptor(bias);
    if (w) dnn().cudnnDestroyFilterDescriptor(w);
    if (conv) dnn().cudnnDestroyConvolutionDescriptor(conv);
  }
};

/// A problem in cuDNN's terms, with the switches of globalContext() that shape its choice.
struct Problem {
  int64_t device = 0;
  int n = 0, c = 0, h = 0, w = 0, o = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  int sh = 0, sw = 0, ph = 0, pw = 0, dh = 0, dw = 0, groups = 1;
  bool tf32 = true, deterministic = false, benchmark = false;

  Key key(Pass pass) const {
    const int64_t kind = static_cast<int64_t>(pass);
    const int64_t flags = int64_t(tf32) | int64_t(deterministic) << 1 | int64_t(benchmark) << 2;
    return {kind, device, n, c, h, w, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, flags};
  }
};

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

// False for an empty problem, or one whose sizes do not fit cuDNN's int arguments.
bool make_problem(Problem& p, const Tensor& image, const Tensor& weight, const WindowGeometry& g,
                  int64_t groups) {
  const int64_t out_numel = image.size(0) * weight.size(0) * g.oh * g.ow;
  if (image.numel() == 0 || weight.numel() == 0 || out_numel == 0) return false;
  // Every size is at most its tensor's numel, so these cover them all.
  const int64_t limits[] = {image.numel(), weight.numel(), out_numel, groups, g.h,  g.w,  g.kh,
                            g.kw,          g.sh,           g.sw,      g.ph,   g.pw, g.dh, g.dw};
  for (int64_t v : limits)
    if (!fits_int(v)) return false;
  auto to_int = [](int64_t v) { return static_cast<int>(v); };
  p.device = image.device().index();
  p.n = to_int(image.size(0));
  p.c = to_int(image.size(1));
  p.h = to_int(g.h);
  p.w = to_int(g.w);
  p.o = to_int(weight.size(0));
  p.kh = to_int(g.kh);
  p.kw = to_int(g.kw);
  p.oh = to_int(g.oh);
  p.ow = to_int(g.ow);
  p.sh = to_int(g.sh);
  p.sw = to_int(g.sw);
  p.ph = to_int(g.ph);
  p.pw = to_int(g.pw);
  p.dh = to_int(g.dh);
  p.dw = to_int(g.dw);
  p.groups = to_int(groups);
  const Context& ctx = globalContext();
  p.tf32 = ctx.allowTF32CuDNN();
  p.deterministic = ctx.deterministicCuDNN() || ctx.deterministicAlgorithms();
  p.benchmark = ctx.benchmarkCuDNN();
  return true;
}

// The status of describing p (success, or refused / an error).
cudnnStatus_t describe(Descriptors& d, const Problem& p) {
  cudnnStatus_t s = CUDNN_STATUS_SUCCESS;
  auto step = [&](cudnnStatus_t r) {
    if (s == CUDNN_STATUS_SUCCESS) s = r;
  };
  step(dnn().cudnnCreateTensorDescriptor(&d.x));
  step(dnn().cudnnCreateTensorDescriptor(&d.y));
  step(dnn().cudnnCreateTensorDescriptor(&d.bias));
  step(dnn().cudnnCreateFilterDescriptor(&d.w));
  step(dnn().cudnnCreateConvolutionDescriptor(&d.conv));
  if (s != CUDNN_STATUS_SUCCESS) return s;
  step(dnn().cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p.n, p.c, p.h,
                                        p.w));
  step(dnn().cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p.n, p.o, p.oh,
                                        p.ow));
  step(dnn().cudnnSetTensor4dDescriptor(d.bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, p.o, 1, 1));
  step(dnn().cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, p.o,
                                        p.c / p.groups, p.kh, p.kw));
  step(dnn().cudnnSetConvolution2dDescriptor(d.conv, p.ph, p.pw, p.sh, p.sw, p.dh, p.dw,
                                             CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  step(dnn().cudnnSetConvolutionGroupCount(d.conv, p.groups));
  step(dnn().cudnnSetConvolutionMathType(d.conv, p.tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
  if (s != CUDNN_STATUS_SUCCESS) return s;
  // The op's geometry must be cuDNN's: otherwise cuDNN would write another shape.
  int n = 0, c = 0, h = 0, w = 0;
  step(dnn().cudnnGetConvolution2dForwardOutputDim(d.conv, d.x, d.w, &n, &c, &h, &w));
  if (s == CUDNN_STATUS_SUCCESS && (n != p.n || c != p.o || h != p.oh || w != p.ow))
    return CUDNN_STATUS_NOT_SUPPORTED_SHAPE;
  return s;
}

/// The scratch of a cuDNN call: a byte tensor on the device (the caching allocator).
struct Workspace {
  Tensor buffer;
  void* data = nullptr;
  size_t size = 0;
  Workspace(size_t bytes, Device device) : size(bytes) {
    if (bytes == 0) return;
    buffer = empty_contiguous({static_cast<int64_t>(bytes)}, kByte, device);
    data = buffer.data_ptr();
  }
};

// The algorithm of one pass: cached, else chosen (see the top of the file). `get` and
// `find` wrap cudnnGet*_v7 and cudnnFind*Ex (find takes the workspace), `workspace_of`
// cudnnGet*WorkspaceSize; the descriptor's math type is left at the choice's.
template <class Perf, class Get, class Find, class WorkspaceOf>
Choice choose(DeviceState& state, const Problem& p, Pass pass, Descriptors& d, Device device,
              Get&& get, Find&& find, WorkspaceOf&& workspace_of) {
  const Key key = p.key(pass);
  if (auto it = state.choices.find(key); it != state.choices.end()) return it->second;
  Choice choice;
  Perf perfs[kMaxAlgos];
  int count = 0;
  cudnnStatus_t s = get(kMaxAlgos, &count, perfs);
  if (s == CUDNN_STATUS_SUCCESS && p.benchmark) {
    size_t scratch = 0;
    for (int i = 0; i < count; ++i)
      if (perfs[i].status == CUDNN_STATUS_SUCCESS && perfs[i].memory <= kMaxFindWorkspace)
        scratch = std::max(scratch, perfs[i].memory);
    Workspace ws(scratch, device);
    Perf timed[kMaxAlgos];
    int timed_count = 0;
    const cudnnStatus_t f = find(kMaxAlgos, &timed_count, timed, ws.data, ws.size);
    if (f == CUDNN_STATUS_SUCCESS) {
      std::copy(timed, timed + timed_count, perfs);  // fastest first
      count = timed_count;
    } else if (!refused(f)) {
      check(f, "cudnnFind*AlgorithmEx");
    }
  }
  if (refused(s)) {
    state.choices.emplace(key, choice);
    return choice;
  }
  check(s, "cudnnGet*Algorithm_v7");
  for (int i = 0; i < count && !choice.ok; ++i) {
    const Perf& perf = perfs[i];
    if (perf.status != CUDNN_STATUS_SUCCESS) continue;
    if (p.deterministic && perf.determinism != CUDNN_DETERMINISTIC) continue;
    if (!p.tf32 && perf.mathType != CUDNN_FMA_MATH) continue;
    const cudnnStatus_t m = dnn().cudnnSetConvolutionMathType(d.conv, perf.mathType);
    size_t bytes = 0;
    if (m != CUDNN_STATUS_SUCCESS || workspace_of(perf.algo, &bytes) != CUDNN_STATUS_SUCCESS)
      continue;
    choice = {true, static_cast<int>(perf.algo), perf.mathType, bytes};
  }
  state.choices.emplace(key, choice);
  return choice;
}

Choice choose_forward(DeviceState& state, const Problem& p, Descriptors& d, Device device,
                      const void* x, const void* w, void* y) {
  cudnnHandle_t h = state.handle;
  return choose<cudnnConvolutionFwdAlgoPerf_t>(
      state, p, Pass::Forward, d, device,
      [&](int n, int* count, cudnnConvolutionFwdAlgoPerf_t* perfs) {
        return dnn().cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, n, count,
                                                            perfs);
      },
      [&](int n, int* count, cudnnConvolutionFwdAlgoPerf_t* perfs, void* ws, size_t ws_size) {
        return dnn().cudnnFindConvolutionForwardAlgorithmEx(h, d.x, x, d.w, w, d.conv, d.y, y, n,
                                                            count, perfs, ws, ws_size);
      },
      [&](cudnnConvolutionFwdAlgo_t algo, size_t* bytes) {
        return dnn().cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, algo, bytes);
      });
}

Choice choose_backward_data(DeviceState& state, const Problem& p, Descriptors& d, Device device,
                            const void* w, const void* dy, void* dx) {
  cudnnHandle_t h = state.handle;
  return choose<cudnnConvolutionBwdDataAlgoPerf_t>(
      state, p, Pass::BackwardData, d, device,
      [&](int n, int* count, cudnnConvolutionBwdDataAlgoPerf_t* perfs) {
        return dnn().cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x, n, count,
                                                                 perfs);
      },
      [&](int n, int* count, cudnnConvolutionBwdDataAlgoPerf_t* perfs, void* ws, size_t ws_size) {
        return dnn().cudnnFindConvolutionBackwardDataAlgorithmEx(h, d.w, w, d.y, dy, d.conv, d.x,
                                                                 dx, n, count, perfs, ws, ws_size);
      },
      [&](cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
        return dnn().cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w, d.y, d.conv, d.x, algo,
                                                                  bytes);
      });
}

Choice choose_backward_filter(DeviceState& state, const Problem& p, Descriptors& d, Device device,
                              const void* x, const void* dy, void* dw) {
  cudnnHandle_t h = state.handle;
  return choose<cudnnConvolutionBwdFilterAlgoPerf_t>(
      state, p, Pass::BackwardFilter, d, device,
      [&](int n, int* count, cudnnConvolutionBwdFilterAlgoPerf_t* perfs) {
        return dnn().cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.w, n,
                                                                   count, perfs);
      },
      [&](int n, int* count, cudnnConvolutionBwdFilterAlgoPerf_t* perfs, void* ws, size_t ws_size) {
        return dnn().cudnnFindConvolutionBackwardFilterAlgorithmEx(
            h, d.x, x, d.y, dy, d.conv, d.w, dw, n, count, perfs, ws, ws_size);
      },
      [&](cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes) {
        return dnn().cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x, d.y, d.conv, d.w, algo,
                                                                    bytes);
      });
}

// The device's state with its handle created and bound to `stream` (the caller holds the
// lock; the device is current).
void bind_handle(DeviceState& state, Stream stream) {
  if (!state.handle) NABLA_CUDNN_CHECK(dnn().cudnnCreate(&state.handle));
  NABLA_CUDNN_CHECK(dnn().cudnnSetStream(state.handle, stream));
}

bool all_float(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->defined() && (t->scalar_type() != kFloat || !t->is_contiguous())) return false;
  return true;
}

// Runs a cuDNN call: true on success, false when cuDNN refused the problem.
bool run(cudnnStatus_t status, const char* call) {
  if (refused(status)) return false;
  check(status, call);
  return true;
}

}  // namespace
#endif  // NABLA_HAVE_CUDNN

bool CudaBackend::conv2d(ConvAlgorithm algo, const Tensor& out, const Tensor& image,
                         const Tensor& weight, const Tensor& bias, const WindowGeometry& g,
                         int64_t groups) {
#if NABLA_HAVE_CUDNN
  if (algo != ConvAlgorithm::Library || !cuda::detail::cudnn() ||
      !all_float({&out, &image, &weight, &bias}))
    return false;
  Problem p;
  if (!make_problem(p, image, weight, g, groups) || p.device < 0 || p.device >= kMaxDevices)
    return false;
  OnDevice on(image);
  DeviceState& state = device_state(p.device);
  std::lock_guard<std::mutex> lock(state.mutex);
  bind_handle(state, on.stream());
  Descriptors d;
  if (const cudnnStatus_t s = describe(d, p); s != CUDNN_STATUS_SUCCESS) {
    if (refused(s)) return false;
    check(s, "describing the convolution");
  }
  const Choice c = choose_forward(state, p, d, image.device(), image.data_ptr(), weight.data_ptr(),
                                  out.data_ptr());
  if (!c.ok ||
      !run(dnn().cudnnSetConvolutionMathType(d.conv, c.math), "cudnnSetConvolutionMathType"))
    return false;
  Workspace ws(c.workspace, image.device());
  const float one = 1, zero = 0;
  if (!run(dnn().cudnnConvolutionForward(state.handle, &one, d.x, image.data_ptr(), d.w,
                                         weight.data_ptr(), d.conv,
                                         static_cast<cudnnConvolutionFwdAlgo_t>(c.algo), ws.data,
                                         ws.size, &zero, d.y, out.data_ptr()),
           "cudnnConvolutionForward"))
    return false;
  if (bias.defined())
    NABLA_CUDNN_CHECK(dnn().cudnnAddTensor(state.handle, &one, d.bias, bias.data_ptr(), &one, d.y,
                                           out.data_ptr()));
  return true;
#else
  return false;
#endif
}

bool CudaBackend::conv2d_backward(ConvAlgorithm algo, const Tensor& grad_image,
                                  const Tensor& grad_weight, const Tensor& grad_bias,
                                  const Tensor& grad_out, const Tensor& image, const Tensor& weight,
                                  const WindowGeometry& g, int64_t groups) {
#if NABLA_HAVE_CUDNN
  if (algo != ConvAlgorithm::Library || !cuda::detail::cudnn() ||
      !all_float({&grad_image, &grad_weight, &grad_bias, &grad_out, &image, &weight}))
    return false;
  Problem p;
  if (!make_problem(p, image, weight, g, groups) || p.device < 0 || p.device >= kMaxDevices)
    return false;
  OnDevice on(image);
  DeviceState& state = device_state(p.device);
  std::lock_guard<std::mutex> lock(state.mutex);
  bind_handle(state, on.stream());
  // One set of descriptors per pass: each pass leaves its own math type on its descriptor.
  Descriptors dd, dw;
  for (Descriptors* d : {&dd, &dw}) {
    if (const cudnnStatus_t s = describe(*d, p); s != CUDNN_STATUS_SUCCESS) {
      if (refused(s)) return false;
      check(s, "describing the convolution");
    }
  }
  // Both algorithms first, so that a refusal returns before anything is written.
  Choice data, filter;
  if (grad_image.defined()) {
    data = choose_backward_data(state, p, dd, image.device(), weight.data_ptr(),
                                grad_out.data_ptr(), grad_image.data_ptr());
    if (!data.ok ||
        !run(dnn().cudnnSetConvolutionMathType(dd.conv, data.math), "cudnnSetConvolutionMathType"))
      return false;
  }
  if (grad_weight.defined()) {
    filter = choose_backward_filter(state, p, dw, image.device(), image.data_ptr(),
                                    grad_out.data_ptr(), grad_weight.data_ptr());
    if (!filter.ok || !run(dnn().cudnnSetConvolutionMathType(dw.conv, filter.math),
                           "cudnnSetConvolutionMathType"))
      return false;
  }
  const float one = 1, zero = 0;
  if (grad_image.defined()) {
    Workspace ws(data.workspace, image.device());
    if (!run(dnn().cudnnConvolutionBackwardData(
                 state.handle, &one, dd.w, weight.data_ptr(), dd.y, grad_out.data_ptr(), dd.conv,
                 static_cast<cudnnConvolutionBwdDataAlgo_t>(data.algo), ws.data, ws.size, &zero,
                 dd.x, grad_image.data_ptr()),
             "cudnnConvolutionBackwardData"))
      return false;
  }
  if (grad_weight.defined()) {
    Workspace ws(filter.workspace, image.device());
    if (!run(dnn().cudnnConvolutionBackwardFilter(
                 state.handle, &one, dw.x, image.data_ptr(), dw.y, grad_out.data_ptr(), dw.conv,
                 static_cast<cudnnConvolutionBwdFilterAlgo_t>(filter.algo), ws.data, ws.size, &zero,
                 dw.w, grad_weight.data_ptr()),
             "cudnnConvolutionBackwardFilter"))
      return false;
  }
  if (grad_bias.defined()) {
    if (!run(dnn().cudnnConvolutionBackwardBias(state.handle, &one, dd.y, grad_out.data_ptr(),
                                                &zero, dd.bias, grad_bias.data_ptr()),
             "cudnnConvolutionBackwardBias"))
      return false;
  }
  return true;
#else
  return false;
#endif
}

}  // namespace nabla::cuda_kernels
