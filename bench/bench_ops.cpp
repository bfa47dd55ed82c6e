// Per-op micro-benchmark against LibTorch (bench/README.md's rules): every entry of
// the op table (tests/conformance, docs/testing.md) is timed in both libraries, in one
// process, on the same inputs and at the same thread count — the forward alone, and
// forward + backward with the floating inputs requiring grad (gradients reset to none
// before each call, as zero_grad does). Inputs: the entry's bench sample (training-sized
// shapes for the ops of W2/W3) or else the largest of its table samples. Prints a
// Markdown table of median times per call and ratios nabla / LibTorch (below 1: nabla
// is faster), then geometric means per group and the slowest ratios.
//
//   bench_ops [--threads N] [--filter TEXT] [--min-ms M] [--rounds R]
#include <ATen/Parallel.h>
#include <c10/util/Logging.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libtorch_side.h"

namespace {

using conform::NTensor;
using conform::OpEntry;
using conform::TTensor;

struct Args {
  int threads = 1;
  std::string filter;
  double min_ms = 2;  // each timed round runs the op at least this long
  int rounds = 5;     // the median of these is reported
};

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class F>
double seconds_for(F& f, int n) {
  const double t0 = seconds_now();
  for (int i = 0; i < n; ++i) f();
  return seconds_now() - t0;
}

int calls_per_round(double one_call_s, const Args& a) {
  return static_cast<int>(std::clamp(a.min_ms * 1e-3 / std::max(one_call_s, 1e-9), 1.0, 1e5));
}

// Median µs per call of fn and ft, their rounds interleaved so drifts of the machine
// (frequency, other load) reach both alike.
template <class FN, class FT>
std::pair<double, double> time_pair(FN fn, FT ft, const Args& a) {
  fn();
  ft();  // warm-up: allocator caches, lazy initialisation
  const int nn = calls_per_round(seconds_for(fn, 1), a),
            nt = calls_per_round(seconds_for(ft, 1), a);
  std::vector<double> tn, tt;
  for (int r = 0; r < a.rounds; ++r) {
    tn.push_back(seconds_for(fn, nn) / nn);
    tt.push_back(seconds_for(ft, nt) / nt);
  }
  std::sort(tn.begin(), tn.end());
  std::sort(tt.begin(), tt.end());
  return {tn[tn.size() / 2] * 1e6, tt[tt.size() / 2] * 1e6};
}

int64_t total_elements(const conform::Sample& s) {
  int64_t n = 0;
  for (const auto& t : s.inputs) n += t.numel();
  return n;
}

std::vector<TTensor> to_torch_all(const std::vector<NTensor>& in) {
  std::vector<TTensor> out;
  for (const auto& t : in) out.push_back(conform::to_torch(t));
  return out;
}

// The sample to time: the entry's bench sample, else its largest sample that LibTorch
// accepts (float32).
std::optional<conform::Sample> pick_sample(const OpEntry& e) {
  conform::Rng rng(12345);
  conform::Samples samples = e.bench ? e.bench(rng, nabla::kFloat) : e.gen(rng, nabla::kFloat);
  std::sort(samples.begin(), samples.end(),
            [](const auto& a, const auto& b) { return total_elements(a) > total_elements(b); });
  for (auto& s : samples) {
    try {
      (*e.torch_fn)(to_torch_all(s.inputs));
      e.nabla_fn(s.inputs);
      return s;
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

// Sum of out_i * g_i over the outputs that carry gradients (one output: backward(g)).
template <class T>
void backward_through(const std::vector<T>& outs, const std::vector<T>& gs) {
  std::vector<size_t> live;
  for (size_t i = 0; i < outs.size(); ++i)
    if (outs[i].is_floating_point() && outs[i].requires_grad()) live.push_back(i);
  if (live.size() == 1) return outs[live[0]].backward(gs[live[0]]);
  T loss;
  for (size_t i : live) {
    T term = (outs[i] * gs[i]).sum();
    loss = loss.defined() ? loss + term : term;
  }
  loss.backward();
}

template <class T>
bool any_differentiable(const std::vector<T>& outs) {
  for (const auto& o : outs)
    if (o.is_floating_point() && o.requires_grad()) return true;
  return false;
}

struct Row {
  std::string group, name, inputs;
  double fwd_n = NAN, fwd_t = NAN, bwd_n = NAN, bwd_t = NAN;
  std::string note;
};

Row measure(const OpEntry& e, const conform::Sample& s, const Args& a) {
  Row row{e.group, e.name, s.what, NAN, NAN, NAN, NAN, {}};
  const std::vector<NTensor>& nin = s.inputs;
  const std::vector<TTensor> tin = to_torch_all(nin);
  std::tie(row.fwd_n, row.fwd_t) =
      time_pair([&] { e.nabla_fn(nin); }, [&] { (*e.torch_fn)(tin); }, a);

  // Forward + backward on leaves that require grad (those LibTorch can differentiate).
  const std::vector<size_t> wanted = conform::differentiable_inputs(e, nin);
  std::vector<NTensor> ngin;
  std::vector<TTensor> tgin;
  for (size_t i = 0; i < nin.size(); ++i) {
    const bool want = std::find(wanted.begin(), wanted.end(), i) != wanted.end();
    ngin.push_back(nin[i].detach().requires_grad_(want));
    tgin.push_back(conform::to_torch(nin[i]).detach().requires_grad_(want));
  }
  std::vector<NTensor> nout;
  std::vector<TTensor> tout;
  try {
    nout = e.nabla_fn(ngin).list;
    tout = (*e.torch_fn)(tgin).list;
  } catch (const std::exception& err) {
    row.note = "backward not timed: " + std::string(err.what()).substr(0, 80);
    return row;
  }
  if (!any_differentiable(nout) || !any_differentiable(tout)) return row;
  std::vector<NTensor> ng;
  std::vector<TTensor> tg;
  conform::Rng rng(777);
  for (const auto& o : nout) {
    ng.push_back(conform::make(rng, o.sizes().vec(),
                               o.is_floating_point() ? o.scalar_type() : nabla::kFloat));
    tg.push_back(conform::to_torch(ng.back()).to(tout[ng.size() - 1].scalar_type()));
  }
  auto nabla_step = [&] {
    for (auto& t : ngin)
      if (t.requires_grad()) t.mutable_grad() = NTensor();
    backward_through(e.nabla_fn(ngin).list, ng);
  };
  auto torch_step = [&] {
    for (auto& t : tgin)
      if (t.requires_grad()) t.mutable_grad() = TTensor();
    backward_through((*e.torch_fn)(tgin).list, tg);
  };
  try {
    std::tie(row.bwd_n, row.bwd_t) = time_pair(nabla_step, torch_step, a);
  } catch (const std::exception& err) {
    row.note = "backward not timed: " + std::string(err.what()).substr(0, 80);
  }
  return row;
}

std::string fmt(double us) {
  if (std::isnan(us)) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, us < 10 ? "%.2f" : us < 1000 ? "%.1f" : "%.0f", us);
  return buf;
}
std::string ratio(double n, double t) {
  if (std::isnan(n) || std::isnan(t)) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", n / t);
  return buf;
}

struct GeoMean {
  double log_sum = 0;
  int n = 0;
  void add(double n_us, double t_us) {
    if (std::isnan(n_us) || std::isnan(t_us) || t_us <= 0 || n_us <= 0) return;
    log_sum += std::log(n_us / t_us);
    ++n;
  }
  std::string str() const {
    if (n == 0) return "—";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2f (%d)", std::exp(log_sum / n), n);
    return buf;
  }
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_ops: %s needs a value\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--threads")
      a.threads = std::atoi(value().c_str());
    else if (k == "--filter")
      a.filter = value();
    else if (k == "--min-ms")
      a.min_ms = std::atof(value().c_str());
    else if (k == "--rounds")
      a.rounds = std::atoi(value().c_str());
    else {
      std::fprintf(stderr,
                   "usage: bench_ops [--threads N] [--filter TEXT] [--min-ms M] [--rounds R]\n");
      std::exit(2);
    }
  }
  if (a.threads < 1 || a.rounds < 1 || !(a.min_ms > 0)) {
    std::fprintf(stderr, "bench_ops: --threads and --rounds must be >= 1, --min-ms > 0\n");
    std::exit(2);
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  nabla::set_num_threads(a.threads);
  at::set_num_threads(a.threads);
  c10::SetStackTraceFetcher([] { return std::string(); });

  std::vector<Row> rows;
  for (const OpEntry& e : conform::registry()) {
    const std::string id = e.group + "." + e.name;
    if (!e.error_fragment.empty()) continue;  // error entries have nothing to time
    if (!a.filter.empty() && id.find(a.filter) == std::string::npos) continue;
    auto s = pick_sample(e);
    if (!s) continue;  // every sample is an error case for one library
    try {
      rows.push_back(measure(e, *s, a));
    } catch (const std::exception& err) {
      std::fprintf(stderr, "bench_ops: %s: %s\n", id.c_str(), err.what());
    }
    std::fprintf(stderr, "\r%zu entries timed", rows.size());
  }
  std::fprintf(stderr, "\n");

  std::printf("%s\n", nabla::show_config().c_str());  // the CPU and kernel paths
  std::printf(
      "bench_ops: %d thread(s), median of %d rounds of >= %.1f ms; times in µs per call;\n"
      "ratio = nabla / LibTorch (below 1: nabla faster)\n\n",
      a.threads, a.rounds, a.min_ms);
  std::printf(
      "| op | inputs | fwd nabla | fwd LibTorch | fwd ratio | fwd+bwd nabla | fwd+bwd LibTorch | "
      "fwd+bwd ratio |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  std::map<std::string, std::pair<GeoMean, GeoMean>> groups;
  GeoMean all_fwd, all_bwd;
  for (const Row& r : rows) {
    std::printf("| %s.%s | %s | %s | %s | %s | %s | %s | %s |%s\n", r.group.c_str(), r.name.c_str(),
                r.inputs.c_str(), fmt(r.fwd_n).c_str(), fmt(r.fwd_t).c_str(),
                ratio(r.fwd_n, r.fwd_t).c_str(), fmt(r.bwd_n).c_str(), fmt(r.bwd_t).c_str(),
                ratio(r.bwd_n, r.bwd_t).c_str(), r.note.empty() ? "" : (" " + r.note).c_str());
    groups[r.group].first.add(r.fwd_n, r.fwd_t);
    groups[r.group].second.add(r.bwd_n, r.bwd_t);
    all_fwd.add(r.fwd_n, r.fwd_t);
    all_bwd.add(r.bwd_n, r.bwd_t);
  }
  std::printf(
      "\nGeometric mean of the ratios (entries):\n\n| group | fwd | fwd+bwd |\n|---|---:|---:|\n");
  for (const auto& [g, m] : groups)
    std::printf("| %s | %s | %s |\n", g.c_str(), m.first.str().c_str(), m.second.str().c_str());
  std::printf("| **all** | %s | %s |\n", all_fwd.str().c_str(), all_bwd.str().c_str());

  // The entries where nabla is slowest relative to LibTorch, by the worse of the two ratios.
  std::vector<std::pair<double, const Row*>> worst;
  for (const Row& r : rows) {
    double w = r.fwd_n / r.fwd_t;
    if (!std::isnan(r.bwd_n) && !std::isnan(r.bwd_t)) w = std::max(w, r.bwd_n / r.bwd_t);
    if (!std::isnan(w)) worst.push_back({w, &r});
  }
  std::sort(worst.begin(), worst.end(),
            [](const auto& x, const auto& y) { return x.first > y.first; });
  std::printf("\nSlowest ratios:\n\n");
  for (size_t i = 0; i < std::min<size_t>(15, worst.size()); ++i)
    std::printf("- %s.%s: %.2f (fwd %s vs %s µs, fwd+bwd %s vs %s µs)\n",
                worst[i].second->group.c_str(), worst[i].second->name.c_str(), worst[i].first,
                fmt(worst[i].second->fwd_n).c_str(), fmt(worst[i].second->fwd_t).c_str(),
                fmt(worst[i].second->bwd_n).c_str(), fmt(worst[i].second->bwd_t).c_str());
  return 0;
}
