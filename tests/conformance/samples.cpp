#include "samples.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace conform {

using nabla::ScalarType;
using nabla::Tensor;

namespace {

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Tensor from_values(std::vector<double> v, const Shape& shape, ScalarType dtype) {
  Tensor d = nabla::from_blob(v.data(), shape, nabla::TensorOptions(nabla::kDouble));
  return d.to(dtype, /*non_blocking=*/false, /*copy=*/true);
}

void add_specials(Rng& rng, std::vector<double>& v) {
  static const double kInf = std::numeric_limits<double>::infinity();
  static const double kSpecial[] = {0.0, -0.0, kInf, -kInf, std::nan("")};
  if (v.size() < 8) return;
  std::uniform_int_distribution<size_t> pos(0, v.size() - 1);
  for (double s : kSpecial) v[pos(rng)] = s;
}

}  // namespace

Tensor make(Rng& rng, const Shape& shape, ScalarType dtype, Dom dom) {
  std::vector<double> v(static_cast<size_t>(numel_of(shape)));
  if (dtype == nabla::kBool) {
    std::bernoulli_distribution coin(0.5);
    for (double& x : v) x = coin(rng) ? 1 : 0;
  } else if (nabla::isIntegralType(dtype, false)) {
    double lo = std::max(std::ceil(dom.lo), dtype == nabla::kByte ? 0.0 : -20.0);
    double hi = std::min(std::floor(dom.hi), 20.0);
    if (hi < lo) hi = lo;
    std::uniform_int_distribution<int64_t> u(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (double& x : v) x = static_cast<double>(u(rng));
  } else {
    std::uniform_real_distribution<double> u(dom.lo, dom.hi);
    for (double& x : v) x = u(rng);
    if (dom.specials) add_specials(rng, v);
  }
  return from_values(std::move(v), shape, dtype);
}

Tensor make_signed(Rng& rng, const Shape& shape, ScalarType dtype, Dom dom) {
  Tensor m = make(rng, shape, dtype, dom);
  if (dtype == nabla::kBool || dtype == nabla::kByte) return m;
  Tensor sign = make(rng, shape, nabla::kBool);
  return m.where(sign, m.neg());
}

Tensor make_bool(Rng& rng, const Shape& shape) { return make(rng, shape, nabla::kBool); }

Tensor make_index(Rng& rng, const Shape& shape, int64_t bound) {
  std::vector<double> v(static_cast<size_t>(numel_of(shape)));
  std::uniform_int_distribution<int64_t> u(0, std::max<int64_t>(bound - 1, 0));
  for (double& x : v) x = static_cast<double>(u(rng));
  return from_values(std::move(v), shape, nabla::kLong);
}

Tensor make_layout(Rng& rng, const Shape& shape, ScalarType dtype, Dom dom, Layout layout) {
  const size_t nd = shape.size();
  switch (layout) {
    case Layout::Contiguous:
      break;
    case Layout::Transposed:
      if (nd >= 2) {
        Shape s = shape;
        std::swap(s[nd - 1], s[nd - 2]);
        return make(rng, s, dtype, dom).transpose(-1, -2);
      }
      break;
    case Layout::Strided:
      if (nd >= 1) {
        Shape s = shape;
        s[nd - 1] = std::max<int64_t>(2 * s[nd - 1], 1);
        return make(rng, s, dtype, dom).slice(-1, 0, nabla::nullopt, 2);
      }
      break;
    case Layout::Expanded:
      if (nd >= 1) {
        Shape s = shape;
        s[0] = 1;
        return make(rng, s, dtype, dom).expand(shape);
      }
      break;
    case Layout::Offset: {
      int64_t n = numel_of(shape);
      return make(rng, {n + 3}, dtype, dom).narrow(0, 3, n).view(shape);
    }
  }
  return make(rng, shape, dtype, dom);
}

namespace {

struct Arg {
  Shape shape;
  Layout layout = Layout::Contiguous;
};
using L = Layout;

Samples build(Rng& rng, ScalarType dtype, const std::vector<std::vector<Arg>>& cases,
              const std::vector<Dom>& doms, bool divisor_last = false) {
  Samples out;
  for (const auto& args : cases) {
    Sample s;
    for (size_t i = 0; i < args.size(); ++i) {
      Dom dom = doms[std::min(i, doms.size() - 1)];
      bool divisor = divisor_last && i + 1 == args.size();
      Tensor t = divisor ? make_signed(rng, args[i].shape, dtype, dom).contiguous()
                         : make_layout(rng, args[i].shape, dtype, dom, args[i].layout);
      if (divisor && args[i].layout == L::Transposed && args[i].shape.size() >= 2)
        t = t.transpose(-1, -2).contiguous().transpose(-1, -2);
      if (!s.what.empty()) s.what += ", ";
      s.what += describe(t);
      s.inputs.push_back(t);
    }
    out.push_back(std::move(s));
  }
  return out;
}

const std::vector<std::vector<Arg>>& unary_cases() {
  static const std::vector<std::vector<Arg>> c = {
      {{{}}},
      {{{0}}},
      {{{0, 3}}},
      {{{7}}},
      {{{3, 4}}},
      {{{2, 3, 5}}},
      {{{4, 5}, L::Transposed}},
      {{{3, 6}, L::Strided}},
      {{{4, 3}, L::Expanded}},
      {{{2, 5}, L::Offset}},
      {{{2, 3, 4}, L::Transposed}},
      {{{129, 300}}},  // above the parallel grain
  };
  return c;
}

const std::vector<std::vector<Arg>>& binary_cases() {
  static const std::vector<std::vector<Arg>> c = {
      {{{3, 4}}, {{3, 4}}},
      {{{3, 1}}, {{1, 4}}},
      {{{4}}, {{2, 3, 4}}},
      {{{2, 1, 5}}, {{3, 1}}},
      {{{}}, {{3, 4}}},
      {{{3, 4}}, {{}}},
      {{{}}, {{}}},
      {{{0, 4}}, {{4}}},
      {{{0}}, {{1}}},
      {{{5, 6}, L::Transposed}, {{5, 6}}},
      {{{5, 6}}, {{5, 6}, L::Strided}},
      {{{4, 3}, L::Expanded}, {{3}}},
      {{{2, 3}, L::Offset}, {{2, 3}, L::Transposed}},
      {{{129, 257}}, {{257}}},  // above the parallel grain
  };
  return c;
}

}  // namespace

Gen unary(Dom dom) {
  return [dom](Rng& rng, ScalarType t) { return build(rng, t, unary_cases(), {dom}); };
}

Gen binary(Dom da, Dom db) {
  return [da, db](Rng& rng, ScalarType t) { return build(rng, t, binary_cases(), {da, db}); };
}

Gen binary_divisor(Dom da) {
  return [da](Rng& rng, ScalarType t) {
    return build(rng, t, binary_cases(), {da, kNonZero}, /*divisor_last=*/true);
  };
}

Gen ternary(Dom d) {
  return [d](Rng& rng, ScalarType t) {
    static const std::vector<std::vector<Arg>> c = {
        {{{3, 4}}, {{3, 4}}, {{3, 4}}},
        {{{3, 1}}, {{1, 4}}, {{4}}},
        {{{}}, {{2, 3}}, {{3}}},
        {{{0, 3}}, {{3}}, {{1}}},
        {{{4, 5}, L::Transposed}, {{4, 5}, L::Strided}, {{4, 5}, L::Expanded}},
    };
    return build(rng, t, c, {d});
  };
}

Gen where_samples() {
  return [](Rng& rng, ScalarType t) {
    static const std::vector<std::tuple<Shape, Shape, Shape, Layout>> c = {
        {{3, 4}, {3, 4}, {3, 4}, L::Contiguous},
        {{3, 1}, {1, 4}, {}, L::Contiguous},
        {{4}, {2, 4}, {1}, L::Contiguous},
        {{0, 2}, {2}, {}, L::Contiguous},
        {{}, {}, {}, L::Contiguous},
        {{5, 6}, {5, 6}, {6}, L::Transposed},
        {{4, 3}, {4, 3}, {4, 3}, L::Expanded},
    };
    Samples out;
    for (const auto& [sc, sa, sb, layout] : c) {
      Sample s;
      s.inputs = {make_layout(rng, sc, nabla::kBool, kAny, layout),
                  make_layout(rng, sa, t, kAny, layout), make(rng, sb, t)};
      s.what = describe(s.inputs[0]) + ", " + describe(s.inputs[1]) + ", " + describe(s.inputs[2]);
      out.push_back(std::move(s));
    }
    return out;
  };
}

Gen fixed(std::vector<std::vector<Shape>> shapes, Dom dom) {
  return [shapes = std::move(shapes), dom](Rng& rng, ScalarType t) {
    std::vector<std::vector<Arg>> cases;
    for (const auto& group : shapes) {
      std::vector<Arg> args;
      for (const auto& s : group) args.push_back({s});
      cases.push_back(std::move(args));
    }
    return build(rng, t, cases, {dom});
  };
}

Gen layouts(std::vector<LayoutCase> cases, Dom dom) {
  return [cases = std::move(cases), dom](Rng& rng, ScalarType t) {
    std::vector<std::vector<Arg>> args;
    for (const auto& c : cases) {
      std::vector<Arg> a;
      for (const auto& [shape, layout] : c) a.push_back({shape, layout});
      args.push_back(std::move(a));
    }
    return build(rng, t, args, {dom});
  };
}

Sample sample_of(std::vector<Tensor> inputs) {
  Sample s;
  for (const auto& t : inputs) s.what += (s.what.empty() ? "" : ", ") + describe(t);
  s.inputs = std::move(inputs);
  return s;
}

Tensor make_permutation(Rng& rng, int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<double>(i);
  std::shuffle(v.begin(), v.end(), rng);
  return from_values(std::move(v), {n}, nabla::kLong);
}

Gen dtype_only() {
  return [](Rng&, ScalarType t) {
    Tensor z = nabla::zeros({}, nabla::TensorOptions(t));
    return Samples{{{z}, describe(z)}};
  };
}

std::string describe(const Tensor& t) {
  std::ostringstream os;
  os << nabla::dtype_name(t.scalar_type()) << t.sizes();
  if (!t.is_contiguous() || t.storage_offset() != 0)
    os << " strides " << t.strides() << " offset " << t.storage_offset();
  return os.str();
}

}  // namespace conform
