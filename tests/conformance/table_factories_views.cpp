// Conformance entries: deterministic factories (values and inferred dtypes) and views
// (values, and strides/offset: a view must alias its base as LibTorch's does). View
// samples include non-contiguous, expanded, empty and 0-d inputs; where LibTorch
// rejects one (view of a transposed tensor, t() of a 3-d tensor) nabla must too.
#include "table.h"

#if NABLA_CONFORMANCE_LIBTORCH
#include <torch/csrc/autograd/generated/variable_factories.h>  // torch::tensor
#endif

namespace conform {
namespace {

using nabla::kDouble;
using nabla::kFloat;
using nabla::kLong;
using IL = std::vector<int64_t>;

// No inputs at all: factories called by name (ops::call passes the sample's inputs).
Gen no_inputs() {
  return [](Rng&, nabla::ScalarType) { return Samples{{{}, "no inputs"}}; };
}

// A 0-d tensor carrying the dtype each factory should use (see dtype_only()).
std::vector<OpEntry> factory_entries() {
  const std::string g = "factories";
  const Opt all = Opt().dtypes(kAllTypes);
  const Opt fl = Opt().dtypes(kFloats);
  const Opt once = Opt().dtypes({kFloat});  // no inputs: the dtype loop has nothing to vary
  return {
      op2(
          g, "zeros", dtype_only(),
          [](const auto& x) {
            return nabla::zeros({2, 3}, x[0].scalar_type());
          },
          LIBTORCH([](const auto& x) {
            return at::zeros({2, 3}, x[0].scalar_type());
          }),
          all),
      op2(
          g, "ones", dtype_only(),
          [](const auto& x) {
            return nabla::ones({3, 0, 2}, x[0].scalar_type());
          },
          LIBTORCH([](const auto& x) {
            return at::ones({3, 0, 2}, x[0].scalar_type());
          }),
          all),
      op2(
          g, "ones_0d", dtype_only(),
          [](const auto& x) { return nabla::ones({}, x[0].scalar_type()); },
          LIBTORCH([](const auto& x) { return at::ones({}, x[0].scalar_type()); }), all),
      op2(
          g, "full", dtype_only(),
          [](const auto& x) { return nabla::full({4}, 3, x[0].scalar_type()); },
          LIBTORCH([](const auto& x) { return at::full({4}, 3, x[0].scalar_type()); }), all),
      op2(
          g, "full_infers_int64", no_inputs(),
          [](const auto&) {
            return nabla::full({2, 2}, 7);
          },
          LIBTORCH([](const auto&) {
            return at::full({2, 2}, 7);
          }),
          Opt(once).call("full", {{"size", IL{2, 2}}, {"fill_value", 7}})),
      op2(
          g, "full_infers_bool", dtype_only(), [](const auto&) { return nabla::full({3}, true); },
          LIBTORCH([](const auto&) { return at::full({3}, true); })),
      op2(
          g, "full_infers_float", no_inputs(), [](const auto&) { return nabla::full({3}, 2.5); },
          LIBTORCH([](const auto&) { return at::full({3}, 2.5); }),
          Opt(once).call("full", {{"size", IL{3}}, {"fill_value", 2.5}})),
      op2(
          g, "scalar_tensor", no_inputs(), [](const auto&) { return nabla::scalar_tensor(3); },
          LIBTORCH([](const auto&) { return at::scalar_tensor(3); }),
          Opt(once).call("scalar_tensor", {{"s", 3}})),
      op2(
          g, "arange_end", no_inputs(), [](const auto&) { return nabla::arange(10); },
          LIBTORCH([](const auto&) { return at::arange(10); }),
          Opt(once).call("arange", {{"end", 10}})),
      op2(
          g, "arange_dtype", dtype_only(),
          [](const auto& x) { return nabla::arange(7, x[0].scalar_type()); },
          LIBTORCH([](const auto& x) { return at::arange(7, x[0].scalar_type()); }),
          Opt().dtypes({kFloat, kDouble, kLong, nabla::kInt, nabla::kByte})),
      op2(
          g, "arange_step", no_inputs(), [](const auto&) { return nabla::arange(2, 20, 3); },
          LIBTORCH([](const auto&) { return at::arange(2, 20, 3); }),
          Opt(once).call("arange", {{"start", 2}, {"end", 20}, {"step", 3}})),
      op2(
          g, "arange_negative_step", no_inputs(),
          [](const auto&) { return nabla::arange(5, -5, -2); },
          LIBTORCH([](const auto&) { return at::arange(5, -5, -2); }),
          Opt(once).call("arange", {{"start", 5}, {"end", -5}, {"step", -2}})),
      op2(
          g, "arange_float", no_inputs(), [](const auto&) { return nabla::arange(0.0, 1.0, 0.1); },
          LIBTORCH([](const auto&) { return at::arange(0.0, 1.0, 0.1); }),
          Opt(once).call("arange", {{"start", 0.0}, {"end", 1.0}, {"step", 0.1}})),
      op2(
          g, "arange_float_dtype", dtype_only(),
          [](const auto& x) { return nabla::arange(-1, 1, 0.25, x[0].scalar_type()); },
          LIBTORCH([](const auto& x) { return at::arange(-1, 1, 0.25, x[0].scalar_type()); }), fl),
      op2(
          g, "arange_empty", no_inputs(), [](const auto&) { return nabla::arange(3, 3); },
          LIBTORCH([](const auto&) { return at::arange(3, 3); }),
          Opt(once).call("arange", {{"start", 3}, {"end", 3}})),
      op2(
          g, "arange_bad_step", no_inputs(), [](const auto&) { return nabla::arange(0, 5, -1); },
          LIBTORCH([](const auto&) { return at::arange(0, 5, -1); }),
          Opt(once).throws("arange").call("arange", {{"end", 5}, {"step", -1}})),
      op2(
          g, "linspace", dtype_only(),
          [](const auto& x) { return nabla::linspace(-2, 3, 11, x[0].scalar_type()); },
          LIBTORCH([](const auto& x) { return at::linspace(-2, 3, 11, x[0].scalar_type()); }), fl),
      op2(
          g, "linspace_default_dtype", no_inputs(),
          [](const auto&) { return nabla::linspace(0, 1, 5); },
          LIBTORCH([](const auto&) { return at::linspace(0, 1, 5); }),
          Opt(once).call("linspace", {{"start", 0}, {"end", 1}, {"steps", 5}})),
      op2(
          g, "linspace_one_step", no_inputs(), [](const auto&) { return nabla::linspace(4, 9, 1); },
          LIBTORCH([](const auto&) { return at::linspace(4, 9, 1); }),
          Opt(once).call("linspace", {{"start", 4}, {"end", 9}, {"steps", 1}})),
      op2(
          g, "linspace_zero_steps", no_inputs(),
          [](const auto&) { return nabla::linspace(4, 9, 0); },
          LIBTORCH([](const auto&) { return at::linspace(4, 9, 0); }),
          Opt(once).call("linspace", {{"start", 4}, {"end", 9}, {"steps", 0}})),
      op2(
          g, "linspace_int", no_inputs(),
          [](const auto&) { return nabla::linspace(0, 10, 4, kLong); },
          LIBTORCH([](const auto&) { return at::linspace(0, 10, 4, at::kLong); }),
          Opt(once).call("linspace", {{"start", 0}, {"end", 10}, {"steps", 4}, {"dtype", kLong}})),
      op2(
          g, "logspace", dtype_only(),
          [](const auto& x) { return nabla::logspace(-1, 2, 7, 10.0, x[0].scalar_type()); },
          LIBTORCH([](const auto& x) { return at::logspace(-1, 2, 7, 10.0, x[0].scalar_type()); }),
          fl),
      op2(
          g, "logspace_base2", no_inputs(),
          [](const auto&) { return nabla::logspace(0, 3, 4, 2.0, kDouble); },
          LIBTORCH([](const auto&) { return at::logspace(0, 3, 4, 2.0, at::kDouble); }),
          Opt(once).call(
              "logspace",
              {{"start", 0}, {"end", 3}, {"steps", 4}, {"base", 2.0}, {"dtype", kDouble}})),
      op2(
          g, "eye", dtype_only(), [](const auto& x) { return nabla::eye(4, x[0].scalar_type()); },
          LIBTORCH([](const auto& x) { return at::eye(4, x[0].scalar_type()); }), all),
      op2(
          g, "eye_rect", no_inputs(), [](const auto&) { return nabla::eye(2, 5); },
          LIBTORCH([](const auto&) { return at::eye(2, 5); }),
          Opt(once).call("eye", {{"n", 2}, {"m", 5}})),
      op2(
          g, "eye_empty", no_inputs(), [](const auto&) { return nabla::eye(0); },
          LIBTORCH([](const auto&) { return at::eye(0); }), Opt(once).call("eye", {{"n", 0}})),
      op2(
          g, "eye_long", no_inputs(), [](const auto&) { return nabla::eye(3, kLong); },
          LIBTORCH([](const auto&) { return at::eye(3, at::kLong); }),
          Opt(once).call("eye", {{"n", 3}, {"dtype", kLong}})),
      op2(
          g, "tensor_int_list", dtype_only(),
          [](const auto&) {
            return nabla::tensor({1, 2, 3});
          },
          LIBTORCH([](const auto&) {
            return torch::tensor({1, 2, 3});
          })),
      op2(
          g, "tensor_float_list", dtype_only(),
          [](const auto&) {
            return nabla::tensor({1.5, -2.0});
          },
          LIBTORCH([](const auto&) {
            return torch::tensor({1.5, -2.0});
          })),
      op2(
          g, "tensor_nested", dtype_only(),
          [](const auto&) {
            return nabla::tensor({{1, 2}, {3, 4}, {5, 6}});
          },
          LIBTORCH([](const auto&) {
            return torch::tensor({{1, 2}, {3, 4}, {5, 6}});
          })),
      op2(
          g, "tensor_scalar", dtype_only(), [](const auto&) { return nabla::tensor(2.5); },
          LIBTORCH([](const auto&) { return torch::tensor(2.5); })),
      op2(
          g, "tensor_bool", dtype_only(),
          [](const auto&) {
            return nabla::tensor({true, false});
          },
          LIBTORCH([](const auto&) {
            return torch::tensor({true, false});
          })),
      op2(
          g, "tensor_with_dtype", dtype_only(),
          [](const auto& x) {
            return nabla::tensor({1, 0, 3}, x[0].scalar_type());
          },
          LIBTORCH([](const auto& x) {
            return torch::tensor({1, 0, 3}, x[0].scalar_type());
          }),
          all),
      op2(
          g, "tensor_vector", dtype_only(),
          [](const auto&) {
            return nabla::tensor(std::vector<double>{0.5, 1.5, 2.5});
          },
          LIBTORCH([](const auto&) {
            return torch::tensor(std::vector<double>{0.5, 1.5, 2.5});
          }),
          Opt()),
      op2(
          g, "tensor_ragged", dtype_only(),
          [](const auto&) {
            return nabla::tensor({{1, 2}, {3}});
          },
          LIBTORCH([](const auto&) {
            return torch::tensor({{1, 2}, {3}});
          }),
          Opt().throws("tensor")),
      op2(
          g, "zeros_negative_size", no_inputs(),
          [](const auto&) {
            return nabla::zeros({2, -1});
          },
          LIBTORCH([](const auto&) {
            return at::zeros({2, -1});
          }),
          Opt(once).throws("").call("zeros", {{"size", IL{2, -1}}})),
      op2(
          g, "zeros_long", no_inputs(),
          [](const auto&) {
            return nabla::zeros({2, 3}, kLong);
          },
          LIBTORCH([](const auto&) {
            return at::zeros({2, 3}, at::kLong);
          }),
          Opt(once).call("zeros", {{"size", IL{2, 3}}, {"dtype", kLong}})),
      op2(
          g, "ones_default_dtype", no_inputs(),
          [](const auto&) {
            return nabla::ones({3, 0, 2});
          },
          LIBTORCH([](const auto&) {
            return at::ones({3, 0, 2});
          }),
          Opt(once).call("ones", {{"size", IL{3, 0, 2}}})),
      // *_like keep the input's dtype unless told otherwise; the input here is a sample.
      op2(
          g, "zeros_like", unary(), [](const auto& x) { return nabla::zeros_like(x[0]); },
          LIBTORCH([](const auto& x) { return at::zeros_like(x[0]); }),
          Opt(all).call("zeros_like")),
      op2(
          g, "ones_like_dtype", unary(),
          [](const auto& x) { return nabla::ones_like(x[0], kDouble); },
          LIBTORCH([](const auto& x) { return at::ones_like(x[0], at::kDouble); }),
          Opt(all).call("ones_like", {{"dtype", kDouble}})),
      op2(
          g, "full_like", unary(), [](const auto& x) { return nabla::full_like(x[0], 2.5); },
          LIBTORCH([](const auto& x) { return at::full_like(x[0], 2.5); }),
          Opt()
              .dtypes({kFloat, kDouble, kLong, nabla::kInt})
              .call("full_like", {{"fill_value", 2.5}})),
      op2(
          g, "empty_like_shape", unary(),
          [](const auto& x) { return nabla::empty_like(x[0]).zero_(); },
          LIBTORCH([](const auto& x) { return at::empty_like(x[0]).zero_(); }), all),
  };
}

// 3-d samples in every layout, plus a few shapes views often trip on.
Gen view_samples() {
  return [](Rng& rng, nabla::ScalarType t) {
    Samples out;
    for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Strided, Layout::Expanded,
                     Layout::Offset}) {
      NTensor x = make_layout(rng, {2, 3, 4}, t, kAny, l);
      out.push_back({{x}, describe(x)});
    }
    for (const Shape& s : std::vector<Shape>{{0, 3, 4}, {}, {4}, {2, 1, 4}, {1, 3, 1}, {4, 4}}) {
      NTensor x = make(rng, s, t);
      out.push_back({{x}, describe(x)});
    }
    return out;
  };
}

std::vector<OpEntry> view_entries() {
  const std::string g = "views";
  const Opt v = Opt().dtypes(kAllTypes).view();
  const Gen s = view_samples();
  return {
      op(
          g, "view_flat", s, [](const auto& x) { return x[0].view({-1}); },
          Opt(v).call("view", {{"size", IL{-1}}})),
      op(
          g, "view_4_6", s,
          [](const auto& x) {
            return x[0].view({4, 6});
          },
          Opt(v).call("view", {{"size", IL{4, 6}}})),
      op(
          g, "view_infer", s,
          [](const auto& x) {
            return x[0].view({2, -1});
          },
          Opt(v).call("view", {{"size", IL{2, -1}}})),
      op(
          g, "view_two_infer", s,
          [](const auto& x) {
            return x[0].view({-1, -1});
          },
          Opt(v).call("view", {{"size", IL{-1, -1}}})),
      op(
          g, "reshape_flat", s, [](const auto& x) { return x[0].reshape({-1}); },
          Opt(v).call("reshape", {{"shape", IL{-1}}})),
      op(
          g, "reshape_infer", s,
          [](const auto& x) {
            return x[0].reshape({4, -1});
          },
          Opt(v).call("reshape", {{"shape", IL{4, -1}}})),
      op(
          g, "reshape_0d", s,
          [](const auto& x) {
            return x[0].reshape({1, 1});
          },
          Opt(v).call("reshape", {{"shape", IL{1, 1}}})),
      op(
          g, "reshape_bad", s,
          [](const auto& x) {
            return x[0].reshape({5, -1});
          },
          Opt(v).call("reshape", {{"shape", IL{5, -1}}})),
      op(
          g, "transpose", s, [](const auto& x) { return x[0].transpose(0, 1); },
          Opt(v).call("transpose", {{"dim0", 0}, {"dim1", 1}})),
      op(
          g, "transpose_negative", s, [](const auto& x) { return x[0].transpose(-1, -2); },
          Opt(v).call("transpose", {{"dim0", -1}, {"dim1", -2}})),
      op(
          g, "transpose_out_of_range", s, [](const auto& x) { return x[0].transpose(0, 3); },
          Opt(v).call("transpose", {{"dim0", 0}, {"dim1", 3}})),
      op(
          g, "t", s, [](const auto& x) { return x[0].t(); }, Opt(v).call("t")),
      op(
          g, "permute", s,
          [](const auto& x) {
            return x[0].permute({2, 0, 1});
          },
          Opt(v).call("permute", {{"dims", IL{2, 0, 1}}})),
      op(
          g, "permute_negative", s,
          [](const auto& x) {
            return x[0].permute({-1, -3, -2});
          },
          Opt(v).call("permute", {{"dims", IL{-1, -3, -2}}})),
      op(
          g, "permute_repeated", s,
          [](const auto& x) {
            return x[0].permute({0, 0, 1});
          },
          Opt(v).call("permute", {{"dims", IL{0, 0, 1}}})),
      op(
          g, "movedim", s, [](const auto& x) { return x[0].movedim(0, -1); },
          Opt(v)
              .call("movedim", {{"source", IL{0}}, {"destination", IL{-1}}})
              .differs("movedim(0, -1) of a 0-d tensor is allowed in LibTorch, an error in nabla")),
      op(
          g, "narrow", s, [](const auto& x) { return x[0].narrow(1, 1, 2); },
          Opt(v).call("narrow", {{"dim", 1}, {"start", 1}, {"length", 2}})),
      op(
          g, "narrow_negative_dim", s, [](const auto& x) { return x[0].narrow(-1, 0, 2); },
          Opt(v).call("narrow", {{"dim", -1}, {"start", 0}, {"length", 2}})),
      op(
          g, "narrow_too_long", s, [](const auto& x) { return x[0].narrow(0, 1, 5); },
          Opt(v).call("narrow", {{"dim", 0}, {"start", 1}, {"length", 5}})),
      op(
          g, "select", s, [](const auto& x) { return x[0].select(0, 1); },
          Opt(v).call("select", {{"dim", 0}, {"index", 1}})),
      op(
          g, "select_negative", s, [](const auto& x) { return x[0].select(-1, -1); },
          Opt(v).call("select", {{"dim", -1}, {"index", -1}})),
      op(
          g, "select_out_of_range", s, [](const auto& x) { return x[0].select(0, 7); },
          Opt(v).call("select", {{"dim", 0}, {"index", 7}})),
      op(
          g, "slice_step", s, [](const auto& x) { return x[0].slice(1, 0, 3, 2); },
          Opt(v).call("slice", {{"dim", 1}, {"start", 0}, {"end", 3}, {"step", 2}})),
      op(
          g, "slice_clamped_end", s, [](const auto& x) { return x[0].slice(-1, 1, 100); },
          Opt(v).call("slice", {{"dim", -1}, {"start", 1}, {"end", 100}})),
      op(
          g, "slice_negative_start", s, [](const auto& x) { return x[0].slice(0, -1, 10); },
          Opt(v).call("slice", {{"dim", 0}, {"start", -1}, {"end", 10}})),
      op(
          g, "slice_empty", s, [](const auto& x) { return x[0].slice(-1, 3, 1); },
          Opt(v).call("slice", {{"dim", -1}, {"start", 3}, {"end", 1}})),
      op(
          g, "index_int", s, [](const auto& x) { return x[0][1]; }, v),
      op(
          g, "expand", s,
          [](const auto& x) {
            return x[0].expand({3, 2, 3, 4});
          },
          Opt(v).call("expand", {{"size", IL{3, 2, 3, 4}}})),
      op(
          g, "expand_keep", s,
          [](const auto& x) {
            return x[0].expand({-1, 3, -1});
          },
          Opt(v).call("expand", {{"size", IL{-1, 3, -1}}})),
      op(
          g, "expand_as_self", s,
          [](const auto& x) {
            return x[0].expand_as(x[0].unsqueeze(0).expand({2, -1, -1, -1}).contiguous());
          },
          v),
      op(
          g, "squeeze", s, [](const auto& x) { return x[0].squeeze(); }, Opt(v).call("squeeze")),
      op(
          g, "squeeze_dim", s, [](const auto& x) { return x[0].squeeze(1); },
          Opt(v).call("squeeze", {{"dim", 1}})),
      op(
          g, "squeeze_negative", s, [](const auto& x) { return x[0].squeeze(-1); },
          Opt(v).call("squeeze", {{"dim", -1}})),
      op(
          g, "unsqueeze", s, [](const auto& x) { return x[0].unsqueeze(0); },
          Opt(v).call("unsqueeze", {{"dim", 0}})),
      op(
          g, "unsqueeze_end", s, [](const auto& x) { return x[0].unsqueeze(-1); },
          Opt(v).call("unsqueeze", {{"dim", -1}})),
      op(
          g, "unsqueeze_out_of_range", s, [](const auto& x) { return x[0].unsqueeze(5); },
          Opt(v).call("unsqueeze", {{"dim", 5}})),
      op(
          g, "flatten", s, [](const auto& x) { return x[0].flatten(); }, Opt(v).call("flatten")),
      op(
          g, "flatten_from_1", s, [](const auto& x) { return x[0].flatten(1); },
          Opt(v)
              .call("flatten", {{"start_dim", 1}})
              .differs("flatten(1) of a 0-d tensor: LibTorch rejects dim 1 (range [-1, 0]), nabla "
                       "accepts")),
      op(
          g, "flatten_0_1", s, [](const auto& x) { return x[0].flatten(0, 1); },
          Opt(v)
              .call("flatten", {{"start_dim", 0}, {"end_dim", 1}})
              .differs("flatten(0, 1) of a 0-d tensor: LibTorch rejects dim 1, nabla accepts")),
      op(
          g, "unflatten", s,
          [](const auto& x) {
            return x[0].unflatten(-1, {2, 2});
          },
          Opt(v).call("unflatten", {{"dim", -1}, {"sizes", IL{2, 2}}})),
      op(
          g, "unflatten_infer", s,
          [](const auto& x) {
            return x[0].unflatten(0, {-1, 1});
          },
          Opt(v).call("unflatten", {{"dim", 0}, {"sizes", IL{-1, 1}}})),
      op(
          g, "diagonal", s, [](const auto& x) { return x[0].diagonal(); }, Opt(v).call("diagonal")),
      op(
          g, "diagonal_offset", s, [](const auto& x) { return x[0].diagonal(1, 0, 2); },
          Opt(v).call("diagonal", {{"offset", 1}, {"dim1", 0}, {"dim2", 2}})),
      op(
          g, "diagonal_negative_offset", s, [](const auto& x) { return x[0].diagonal(-1, -1, -2); },
          Opt(v).call("diagonal", {{"offset", -1}, {"dim1", -1}, {"dim2", -2}})),
      op(
          g, "as_strided", s,
          [](const auto& x) {
            return x[0].contiguous().as_strided({2, 2}, {1, 2}, 1);
          },
          v),
      op(
          g, "unbind", s, [](const auto& x) { return x[0].unbind(1); },
          Opt(v).call("unbind", {{"dim", 1}})),
      op(
          g, "split", s, [](const auto& x) { return x[0].split(2, -1); },
          Opt(v).call("split", {{"split_size", 2}, {"dim", -1}})),
      op(
          g, "split_sizes", s,
          [](const auto& x) {
            return x[0].split_with_sizes({1, 2}, 1);
          },
          Opt(v).call("split_with_sizes", {{"split_sizes", IL{1, 2}}, {"dim", 1}})),
      op(
          g, "chunk", s, [](const auto& x) { return x[0].chunk(2, 1); },
          Opt(v).call("chunk", {{"chunks", 2}, {"dim", 1}})),
      op(
          g, "chunk_uneven", s, [](const auto& x) { return x[0].chunk(3, -1); },
          Opt(v).call("chunk", {{"chunks", 3}, {"dim", -1}})),
      op(
          g, "mT", s, [](const auto& x) { return x[0].mT(); }, Opt(v).call("mT")),
      op(
          g, "unfold", s, [](const auto& x) { return x[0].unfold(-1, 2, 1); },
          Opt(v).call("unfold", {{"dimension", -1}, {"size", 2}, {"step", 1}})),
      op(
          g, "unfold_step", s, [](const auto& x) { return x[0].unfold(0, 1, 2); },
          Opt(v).call("unfold", {{"dimension", 0}, {"size", 1}, {"step", 2}})),
      op(
          g, "movedim_list", s,
          [](const auto& x) {
            return x[0].movedim(IL{0, 1}, IL{2, 0});
          },
          Opt(v).call("movedim", {{"source", IL{0, 1}}, {"destination", IL{2, 0}}})),
      op(
          g, "expand_as", fixed({{{3, 1}, {2, 3, 4}}, {{}, {2, 2}}, {{2, 3}, {2, 3}}}),
          [](const auto& x) { return x[0].expand_as(x[1]); }, Opt(v).call("expand_as")),
      op(
          g, "as_strided_offset", fixed({{{4, 4}}, {{9}}}),
          [](const auto& x) {
            return x[0].as_strided({2, 2}, {1, 2}, 1);
          },
          Opt(v).call("as_strided",
                      {{"size", IL{2, 2}}, {"stride", IL{1, 2}}, {"storage_offset", 1}})),
      op(
          g, "tensor_split", s, [](const auto& x) { return x[0].tensor_split(3, 1); },
          Opt(v).call("tensor_split", {{"sections", 3}, {"dim", 1}})),
      op(
          g, "tensor_split_indices", s,
          [](const auto& x) {
            return x[0].tensor_split(IL{1, 3}, -1);
          },
          Opt(v).call("tensor_split", {{"indices", IL{1, 3}}, {"dim", -1}})),
      op(
          g, "hsplit", s,
          [](const auto& x) {
            return x[0].hsplit(IL{1, 2});
          },
          Opt(v).call("hsplit", {{"indices", IL{1, 2}}})),
      op(
          g, "vsplit", s, [](const auto& x) { return x[0].vsplit(2); },
          Opt(v).call("vsplit", {{"sections", 2}})),
      op(
          g, "dsplit", s, [](const auto& x) { return x[0].dsplit(IL{1}); },
          Opt(v).call("dsplit", {{"indices", IL{1}}})),
      op(
          g, "contiguous", s, [](const auto& x) { return x[0].contiguous(); },
          Opt().dtypes(kAllTypes).call("contiguous")),
      op(
          g, "detach", s, [](const auto& x) { return x[0].detach(); },
          Opt().dtypes(kAllTypes).call("detach")),
      op(
          g, "clone", s, [](const auto& x) { return x[0].clone(); },
          Opt().dtypes(kAllTypes).call("clone")),
      op(
          g, "to_double", s, [](const auto& x) { return x[0].to(dtype_for(x[0], kDouble)); },
          Opt().dtypes(kAllTypes).call("to", {{"dtype", kDouble}})),
      op(
          g, "to_int", s,
          [](const auto& x) { return x[0].mul(3).to(dtype_for(x[0], nabla::kInt)); },
          Opt().dtypes(kAllTypes).no16("3x is rounded to 16 bits before it is truncated")),
      op(
          g, "to_bool", s, [](const auto& x) { return x[0].to(dtype_for(x[0], nabla::kBool)); },
          Opt().dtypes(kAllTypes).call("to", {{"dtype", nabla::kBool}})),
      op(
          g, "view_then_write", s,
          [](const auto& x) {
            auto base = x[0].clone();
            base.select(-1, 0).fill_(7);
            return base;
          },
          Opt().dtypes(kAllTypes)),
      op(
          g, "copy_broadcast", s,
          [](const auto& x) {
            auto base = x[0].clone();
            base.copy_(x[0].select(0, 0));
            return base;
          },
          Opt().dtypes(kAllTypes)),
  };
}

const bool registered = add_entries(factory_entries()) && add_entries(view_entries());

}  // namespace
}  // namespace conform
