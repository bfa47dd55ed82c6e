// Kernel libraries side by side (how the CPU kernels were chosen): sgemm through OpenBLAS and
// through oneDNN's dnnl_sgemm, and 2-D convolutions through nabla (im2col + OpenBLAS)
// and through oneDNN's convolution primitives, at W3's layers and ResNet-style layers.
// Prints GFLOP/s per library and pass; oneDNN is timed twice: its primitive alone on
// the blocked layouts it prefers, and with the reorders an NCHW framework pays per call.
//
//   ./build/bench/bench_kernels [--threads N] [--gemm-only] [--only SUBSTRING]
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <nabla/nabla.h>

#include "backend/cpu/gemm/gemm.h"
#include "backend/cpu/onednn/onednn.h"

#include NABLA_CBLAS_HEADER

namespace {

using Clock = std::chrono::steady_clock;

// Median seconds per call of `f` over 7 rounds of at least 50 ms each (after a warm-up).
double time_call(const std::function<void()>& f) {
  f();
  std::vector<double> rounds;
  for (int r = 0; r < 7; ++r) {
    int n = 0;
    const auto t0 = Clock::now();
    double dt = 0;
    do {
      f();
      ++n;
      dt = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (dt < 0.05);
    rounds.push_back(dt / n);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

void gemm_row(int64_t m, int64_t n, int64_t k) {
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n);
  const double flop = 2.0 * m * n * k;
  const double t_blas = time_call([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.f, a.data(), k, b.data(), n,
                0.f, c.data(), n);
  });
  const double t_dnnl = time_call(
      [&] { dnnl_sgemm('N', 'N', m, n, k, 1.f, a.data(), k, b.data(), n, 0.f, c.data(), n); });
  const double t_nabla = time_call([&] {
    nabla::cpu::gemm::sgemm(m, n, k, 1.f, a.data(), k, 1, b.data(), n, 1, 0.f, c.data(), n);
  });
  std::printf("| sgemm %lldx%lldx%lld | %.1f | %.1f | %.1f |\n", (long long)m, (long long)n,
              (long long)k, flop / t_blas / 1e9, flop / t_dnnl / 1e9, flop / t_nabla / 1e9);
}

struct Conv {
  const char* name;
  int64_t n, c, h, w, o, k, stride, pad;
  int64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
  double flop() const { return 2.0 * n * o * oh() * ow() * c * k * k; }
};

// oneDNN: forward, backward-data and backward-weights primitives on the layouts oneDNN
// picks (format_tag::any); `with_reorders` adds NCHW <-> blocked reorders of the
// activations and the weights, as a framework keeping NCHW tensors pays each call.
struct DnnlConv {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  using md = dnnl::memory::desc;
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;

  double fwd = 0, bwd_data = 0, bwd_weights = 0, fwd_reorder = 0, bwd_reorder = 0;

  explicit DnnlConv(const Conv& cv) {
    const dnnl::memory::dims src{cv.n, cv.c, cv.h, cv.w}, wei{cv.o, cv.c, cv.k, cv.k}, bias{cv.o},
        dst{cv.n, cv.o, cv.oh(), cv.ow()}, strides{cv.stride, cv.stride}, pad{cv.pad, cv.pad};
    const md src_any(src, dt::f32, tag::any), wei_any(wei, dt::f32, tag::any),
        dst_any(dst, dt::f32, tag::any), bias_md(bias, dt::f32, tag::a);
    const md src_plain(src, dt::f32, tag::nchw), wei_plain(wei, dt::f32, tag::oihw),
        dst_plain(dst, dt::f32, tag::nchw);
    auto fwd_pd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                        dnnl::algorithm::convolution_direct, src_any, wei_any,
                                        bias_md, dst_any, strides, pad, pad),
        eng);
    auto bwd_d_pd = dnnl::convolution_backward_data::primitive_desc(
        dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, src_any, wei_any,
                                              dst_any, strides, pad, pad),
        eng, fwd_pd);
    auto bwd_w_pd = dnnl::convolution_backward_weights::primitive_desc(
        dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, src_any,
                                                 wei_any, bias_md, dst_any, strides, pad, pad),
        eng, fwd_pd);
    auto mem = [&](const md& d) {
      dnnl::memory m(d, eng);
      std::memset(m.get_data_handle(), 0, d.get_size());
      return m;
    };
    dnnl::memory src_m = mem(fwd_pd.src_desc()), wei_m = mem(fwd_pd.weights_desc()),
                 bias_m = mem(bias_md), dst_m = mem(fwd_pd.dst_desc()),
                 dsrc_m = mem(bwd_d_pd.diff_src_desc()), ddst_m = mem(bwd_d_pd.diff_dst_desc()),
                 dwei_m = mem(bwd_w_pd.diff_weights_desc()), dbias_m = mem(bias_md),
                 ddst_w_m = mem(bwd_w_pd.diff_dst_desc()), src_w_m = mem(bwd_w_pd.src_desc());
    dnnl::memory src_p = mem(src_plain), wei_p = mem(wei_plain), dst_p = mem(dst_plain),
                 dsrc_p = mem(src_plain), dwei_p = mem(wei_plain);
    dnnl::convolution_forward f(fwd_pd);
    dnnl::convolution_backward_data bd(bwd_d_pd);
    dnnl::convolution_backward_weights bw(bwd_w_pd);
    auto run_fwd = [&] {
      f.execute(strm, {{DNNL_ARG_SRC, src_m},
                       {DNNL_ARG_WEIGHTS, wei_m},
                       {DNNL_ARG_BIAS, bias_m},
                       {DNNL_ARG_DST, dst_m}});
      strm.wait();
    };
    auto run_bd = [&] {
      bd.execute(
          strm,
          {{DNNL_ARG_DIFF_DST, ddst_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DIFF_SRC, dsrc_m}});
      strm.wait();
    };
    auto run_bw = [&] {
      bw.execute(strm, {{DNNL_ARG_SRC, src_w_m},
                        {DNNL_ARG_DIFF_DST, ddst_w_m},
                        {DNNL_ARG_DIFF_WEIGHTS, dwei_m},
                        {DNNL_ARG_DIFF_BIAS, dbias_m}});
      strm.wait();
    };
    auto reorder = [&](dnnl::memory& from, dnnl::memory& to) {
      if (from.get_desc() != to.get_desc()) dnnl::reorder(from, to).execute(strm, from, to);
    };
    fwd = time_call(run_fwd);
    bwd_data = time_call(run_bd);
    bwd_weights = time_call(run_bw);
    // Per call an NCHW framework reorders the input and weights in and the output out;
    // in backward the output gradient in, the input gradient and weight gradient out.
    fwd_reorder = time_call([&] {
      reorder(src_p, src_m);
      reorder(wei_p, wei_m);
      run_fwd();
      reorder(dst_m, dst_p);
      strm.wait();
    });
    bwd_reorder = time_call([&] {
      reorder(dst_p, ddst_m);
      run_bd();
      reorder(dsrc_m, dsrc_p);
      reorder(dst_p, ddst_w_m);
      reorder(src_p, src_w_m);
      run_bw();
      reorder(dwei_m, dwei_p);
      strm.wait();
    });
  }
};

void conv_row(const Conv& cv) {
  using namespace nabla;
  Tensor x = rand({cv.n, cv.c, cv.h, cv.w}), w = rand({cv.o, cv.c, cv.k, cv.k}), b = rand({cv.o});
  const double t_fwd = time_call([&] {
    NoGradGuard g;
    (void)conv2d(x, w, b, cv.stride, cv.pad);
  });
  Tensor xg = x.clone().requires_grad_(), wg = w.clone().requires_grad_(),
         bg = b.clone().requires_grad_();
  Tensor out = conv2d(xg, wg, bg, cv.stride, cv.pad);
  Tensor go = ones_like(out);
  const double t_both = time_call([&] {
    xg.mutable_grad() = Tensor();
    wg.mutable_grad() = Tensor();
    bg.mutable_grad() = Tensor();
    conv2d(xg, wg, bg, cv.stride, cv.pad).backward(go);
  });
  const double t_bwd = std::max(t_both - t_fwd, 1e-9);
  DnnlConv d(cv);
  const double f = cv.flop();
  std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", cv.name, f / t_fwd / 1e9,
              2 * f / t_bwd / 1e9, f / d.fwd / 1e9, f / d.fwd_reorder / 1e9, f / d.bwd_data / 1e9,
              f / d.bwd_weights / 1e9, 2 * f / d.bwd_reorder / 1e9);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  bool gemm_only = false;
  std::string only;  // --only SUBSTRING: the conv rows whose names contain it
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--only" && i + 1 < argc) only = argv[i + 1];
    if (std::string(argv[i]) == "--threads" && i + 1 < argc) threads = std::stoi(argv[i + 1]);
    if (std::string(argv[i]) == "--gemm-only") gemm_only = true;
  }
  nabla::set_num_threads(threads);
  openblas_set_num_threads(threads);
  nabla::cpu::onednn::set_threads(threads);  // dnnl_sgemm called directly runs on OpenMP
  // The CPU (model, family, model number) and every kernel path, as the trainer prints them.
  std::printf("%s\n", nabla::show_config().c_str());
  std::printf(
      "GFLOP/s, higher is better.\n\n| sgemm (row-major) | OpenBLAS | dnnl_sgemm | %s "
      "|\n|---|---:|---:|---:|\n",
      nabla::cpu::gemm::describe().c_str());
  gemm_row(1024, 1024, 1024);
  gemm_row(2048, 2048, 2048);
  gemm_row(64 * 196, 64, 288);  // W3 conv2 forward as im2col gemm: [N*OH*OW, C*K*K] x [C*K*K, O]
  gemm_row(3136, 64, 576);      // ResNet 3x3 64ch 56x56, batch 1
  gemm_row(256, 3136, 128);
  if (gemm_only) return 0;
  std::printf(
      "\n| conv2d | nabla fwd | nabla bwd (data+weights) | oneDNN fwd | oneDNN fwd + reorders | "
      "oneDNN bwd data | "
      "oneDNN bwd weights | oneDNN bwd + reorders |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  const Conv convs[] = {
      {"W3 conv1 64x1x28x28 -> 32, 3x3 p1", 64, 1, 28, 28, 32, 3, 1, 1},
      {"W3 conv2 64x32x14x14 -> 64, 3x3 p1", 64, 32, 14, 14, 64, 3, 1, 1},
      {"ResNet 1x64x56x56 -> 64, 3x3", 1, 64, 56, 56, 64, 3, 1, 1},
      {"ResNet 32x64x56x56 -> 64, 3x3", 32, 64, 56, 56, 64, 3, 1, 1},
      {"ResNet 32x256x56x56 -> 64, 1x1", 32, 256, 56, 56, 64, 1, 1, 0},
      {"ResNet 32x128x28x28 -> 128, 3x3", 32, 128, 28, 28, 128, 3, 1, 1},
      {"ResNet 32x256x14x14 -> 256, 3x3", 32, 256, 14, 14, 256, 3, 1, 1},
      {"ResNet 1x512x7x7 -> 512, 3x3", 1, 512, 7, 7, 512, 3, 1, 1},
      {"ResNet 1x256x7x7 -> 256, 3x3", 1, 256, 7, 7, 256, 3, 1, 1},
      {"ResNet 32x256x7x7 -> 256, 3x3", 32, 256, 7, 7, 256, 3, 1, 1},
      {"ResNet 1x256x14x14 -> 256, 1x1", 1, 256, 14, 14, 256, 1, 1, 0},
      {"ResNet 32x128x14x14 -> 256, 1x1", 32, 128, 14, 14, 256, 1, 1, 0},
      {"ResNet 32x64x7x7 -> 256, 1x1", 32, 64, 7, 7, 256, 1, 1, 0},
      {"ResNet 32x128x56x56 -> 128, 3x3 s2", 32, 128, 56, 56, 128, 3, 2, 1},
  };
  for (const auto& cv : convs)
    if (std::string(cv.name).find(only) != std::string::npos) conv_row(cv);
}
