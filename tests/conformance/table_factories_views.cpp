// Conformance entries: deterministic factories (values and inferred dtypes) and views
// (values, and strides/offset: a view must alias its base as LibTorch's does). View
// samples include non-contiguous, expanded, empty and 0-d inputs; where LibTorch
// rejects one (view of a transposed tensor, t() of a 3-d tensor) nabla must too.
#include <torch/csrc/autograd/generated/variable_factories.h>  // torch::tensor

#include "conformance.h"

namespace conform {
namespace {

using nabla::kDouble;
using nabla::kFloat;
using nabla::kLong;

// A 0-d tensor carrying the dtype each factory should use (see dtype_only()).
std::vector<OpEntry> factory_entries() {
  const std::string g = "factories";
  const Opt all = Opt().dtypes(kAllTypes);
  const Opt fl = Opt().dtypes(kFloats);
  return {
      op2(
          g, "zeros", dtype_only(),
          [](const auto& x) {
            return nabla::zeros({2, 3}, x[0].scalar_type());
          },
          [](const auto& x) {
            return at::zeros({2, 3}, x[0].scalar_type());
          },
          all),
      op2(
          g, "ones", dtype_only(),
          [](const auto& x) {
            return nabla::ones({3, 0, 2}, x[0].scalar_type());
          },
          [](const auto& x) {
            return at::ones({3, 0, 2}, x[0].scalar_type());
          },
          all),
      op2(
          g, "ones_0d", dtype_only(),
          [](const auto& x) { return nabla::ones({}, x[0].scalar_type()); },
          [](const auto& x) { return at::ones({}, x[0].scalar_type()); }, all),
      op2(
          g, "full", dtype_only(),
          [](const auto& x) { return nabla::full({4}, 3, x[0].scalar_type()); },
          [](const auto& x) { return at::full({4}, 3, x[0].scalar_type()); }, all),
      op2(
          g, "full_infers_int64", dtype_only(),
          [](const auto&) {
            return nabla::full({2, 2}, 7);
          },
          [](const auto&) {
            return at::full({2, 2}, 7);
          }),
      op2(
          g, "full_infers_bool", dtype_only(), [](const auto&) { return nabla::full({3}, true); },
          [](const auto&) { return at::full({3}, true); }),
      op2(
          g, "full_infers_float", dtype_only(), [](const auto&) { return nabla::full({3}, 2.5); },
          [](const auto&) { return at::full({3}, 2.5); }),
      op2(
          g, "scalar_tensor", dtype_only(), [](const auto&) { return nabla::scalar_tensor(3); },
          [](const auto&) { return at::scalar_tensor(3); }),
      op2(
          g, "arange_end", dtype_only(), [](const auto&) { return nabla::arange(10); },
          [](const auto&) { return at::arange(10); }),
      op2(
          g, "arange_dtype", dtype_only(),
          [](const auto& x) { return nabla::arange(7, x[0].scalar_type()); },
          [](const auto& x) { return at::arange(7, x[0].scalar_type()); },
          Opt().dtypes({kFloat, kDouble, kLong, nabla::kInt, nabla::kByte})),
      op2(
          g, "arange_step", dtype_only(), [](const auto&) { return nabla::arange(2, 20, 3); },
          [](const auto&) { return at::arange(2, 20, 3); }),
      op2(
          g, "arange_negative_step", dtype_only(),
          [](const auto&) { return nabla::arange(5, -5, -2); },
          [](const auto&) { return at::arange(5, -5, -2); }),
      op2(
          g, "arange_float", dtype_only(), [](const auto&) { return nabla::arange(0.0, 1.0, 0.1); },
          [](const auto&) { return at::arange(0.0, 1.0, 0.1); }),
      op2(
          g, "arange_float_dtype", dtype_only(),
          [](const auto& x) { return nabla::arange(-1, 1, 0.25, x[0].scalar_type()); },
          [](const auto& x) { return at::arange(-1, 1, 0.25, x[0].scalar_type()); }, fl),
      op2(
          g, "arange_empty", dtype_only(), [](const auto&) { return nabla::arange(3, 3); },
          [](const auto&) { return at::arange(3, 3); }),
      op2(
          g, "arange_bad_step", dtype_only(), [](const auto&) { return nabla::arange(0, 5, -1); },
          [](const auto&) { return at::arange(0, 5, -1); }, Opt().throws("arange")),
      op2(
          g, "linspace", dtype_only(),
          [](const auto& x) { return nabla::linspace(-2, 3, 11, x[0].scalar_type()); },
          [](const auto& x) { return at::linspace(-2, 3, 11, x[0].scalar_type()); }, fl),
      op2(
          g, "linspace_default_dtype", dtype_only(),
          [](const auto&) { return nabla::linspace(0, 1, 5); },
          [](const auto&) { return at::linspace(0, 1, 5); }),
      op2(
          g, "linspace_one_step", dtype_only(),
          [](const auto&) { return nabla::linspace(4, 9, 1); },
          [](const auto&) { return at::linspace(4, 9, 1); }, Opt()),
      op2(
          g, "linspace_zero_steps", dtype_only(),
          [](const auto&) { return nabla::linspace(4, 9, 0); },
          [](const auto&) { return at::linspace(4, 9, 0); }),
      op2(
          g, "linspace_int", dtype_only(),
          [](const auto&) { return nabla::linspace(0, 10, 4, kLong); },
          [](const auto&) { return at::linspace(0, 10, 4, at::kLong); }),
      op2(
          g, "logspace", dtype_only(),
          [](const auto& x) { return nabla::logspace(-1, 2, 7, 10.0, x[0].scalar_type()); },
          [](const auto& x) { return at::logspace(-1, 2, 7, 10.0, x[0].scalar_type()); }, fl),
      op2(
          g, "eye", dtype_only(), [](const auto& x) { return nabla::eye(4, x[0].scalar_type()); },
          [](const auto& x) { return at::eye(4, x[0].scalar_type()); }, all),
      op2(
          g, "eye_rect", dtype_only(), [](const auto&) { return nabla::eye(2, 5); },
          [](const auto&) { return at::eye(2, 5); }),
      op2(
          g, "eye_empty", dtype_only(), [](const auto&) { return nabla::eye(0); },
          [](const auto&) { return at::eye(0); }),
      op2(
          g, "tensor_int_list", dtype_only(),
          [](const auto&) {
            return nabla::tensor({1, 2, 3});
          },
          [](const auto&) {
            return torch::tensor({1, 2, 3});
          }),
      op2(
          g, "tensor_float_list", dtype_only(),
          [](const auto&) {
            return nabla::tensor({1.5, -2.0});
          },
          [](const auto&) {
            return torch::tensor({1.5, -2.0});
          }),
      op2(
          g, "tensor_nested", dtype_only(),
          [](const auto&) {
            return nabla::tensor({{1, 2}, {3, 4}, {5, 6}});
          },
          [](const auto&) {
            return torch::tensor({{1, 2}, {3, 4}, {5, 6}});
          }),
      op2(
          g, "tensor_scalar", dtype_only(), [](const auto&) { return nabla::tensor(2.5); },
          [](const auto&) { return torch::tensor(2.5); }),
      op2(
          g, "tensor_bool", dtype_only(),
          [](const auto&) {
            return nabla::tensor({true, false});
          },
          [](const auto&) {
            return torch::tensor({true, false});
          }),
      op2(
          g, "tensor_with_dtype", dtype_only(),
          [](const auto& x) {
            return nabla::tensor({1, 0, 3}, x[0].scalar_type());
          },
          [](const auto& x) {
            return torch::tensor({1, 0, 3}, x[0].scalar_type());
          },
          all),
      op2(
          g, "tensor_vector", dtype_only(),
          [](const auto&) {
            return nabla::tensor(std::vector<double>{0.5, 1.5, 2.5});
          },
          [](const auto&) {
            return torch::tensor(std::vector<double>{0.5, 1.5, 2.5});
          },
          Opt()),
      op2(
          g, "tensor_ragged", dtype_only(),
          [](const auto&) {
            return nabla::tensor({{1, 2}, {3}});
          },
          [](const auto&) {
            return torch::tensor({{1, 2}, {3}});
          },
          Opt().throws("tensor")),
      op2(
          g, "zeros_negative_size", dtype_only(),
          [](const auto&) {
            return nabla::zeros({2, -1});
          },
          [](const auto&) {
            return at::zeros({2, -1});
          },
          Opt().throws("")),
      // *_like keep the input's dtype unless told otherwise; the input here is a sample.
      op2(
          g, "zeros_like", unary(), [](const auto& x) { return nabla::zeros_like(x[0]); },
          [](const auto& x) { return at::zeros_like(x[0]); }, all),
      op2(
          g, "ones_like_dtype", unary(),
          [](const auto& x) { return nabla::ones_like(x[0], kDouble); },
          [](const auto& x) { return at::ones_like(x[0], at::kDouble); }, all),
      op2(
          g, "full_like", unary(), [](const auto& x) { return nabla::full_like(x[0], 2.5); },
          [](const auto& x) { return at::full_like(x[0], 2.5); },
          Opt().dtypes({kFloat, kDouble, kLong, nabla::kInt})),
      op2(
          g, "empty_like_shape", unary(),
          [](const auto& x) { return nabla::empty_like(x[0]).zero_(); },
          [](const auto& x) { return at::empty_like(x[0]).zero_(); }, all),
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
          g, "view_flat", s, [](const auto& x) { return x[0].view({-1}); }, v),
      op(
          g, "view_4_6", s,
          [](const auto& x) {
            return x[0].view({4, 6});
          },
          v),
      op(
          g, "view_infer", s,
          [](const auto& x) {
            return x[0].view({2, -1});
          },
          v),
      op(
          g, "view_two_infer", s,
          [](const auto& x) {
            return x[0].view({-1, -1});
          },
          v),
      op(
          g, "reshape_flat", s, [](const auto& x) { return x[0].reshape({-1}); }, v),
      op(
          g, "reshape_infer", s,
          [](const auto& x) {
            return x[0].reshape({4, -1});
          },
          v),
      op(
          g, "reshape_0d", s,
          [](const auto& x) {
            return x[0].reshape({1, 1});
          },
          v),
      op(
          g, "reshape_bad", s,
          [](const auto& x) {
            return x[0].reshape({5, -1});
          },
          v),
      op(
          g, "transpose", s, [](const auto& x) { return x[0].transpose(0, 1); }, v),
      op(
          g, "transpose_negative", s, [](const auto& x) { return x[0].transpose(-1, -2); }, v),
      op(
          g, "transpose_out_of_range", s, [](const auto& x) { return x[0].transpose(0, 3); }, v),
      op(
          g, "t", s, [](const auto& x) { return x[0].t(); }, v),
      op(
          g, "permute", s,
          [](const auto& x) {
            return x[0].permute({2, 0, 1});
          },
          v),
      op(
          g, "permute_negative", s,
          [](const auto& x) {
            return x[0].permute({-1, -3, -2});
          },
          v),
      op(
          g, "permute_repeated", s,
          [](const auto& x) {
            return x[0].permute({0, 0, 1});
          },
          v),
      op(
          g, "movedim", s, [](const auto& x) { return x[0].movedim(0, -1); },
          Opt(v).differs(
              "movedim(0, -1) of a 0-d tensor is allowed in LibTorch, an error in nabla")),
      op(
          g, "narrow", s, [](const auto& x) { return x[0].narrow(1, 1, 2); }, v),
      op(
          g, "narrow_negative_dim", s, [](const auto& x) { return x[0].narrow(-1, 0, 2); }, v),
      op(
          g, "narrow_too_long", s, [](const auto& x) { return x[0].narrow(0, 1, 5); }, v),
      op(
          g, "select", s, [](const auto& x) { return x[0].select(0, 1); }, v),
      op(
          g, "select_negative", s, [](const auto& x) { return x[0].select(-1, -1); }, v),
      op(
          g, "select_out_of_range", s, [](const auto& x) { return x[0].select(0, 7); }, v),
      op(
          g, "slice_step", s, [](const auto& x) { return x[0].slice(1, 0, 3, 2); }, v),
      op(
          g, "slice_clamped_end", s, [](const auto& x) { return x[0].slice(-1, 1, 100); }, v),
      op(
          g, "slice_negative_start", s, [](const auto& x) { return x[0].slice(0, -1, 10); }, v),
      op(
          g, "slice_empty", s, [](const auto& x) { return x[0].slice(-1, 3, 1); }, v),
      op(
          g, "index_int", s, [](const auto& x) { return x[0][1]; }, v),
      op(
          g, "expand", s,
          [](const auto& x) {
            return x[0].expand({3, 2, 3, 4});
          },
          v),
      op(
          g, "expand_keep", s,
          [](const auto& x) {
            return x[0].expand({-1, 3, -1});
          },
          v),
      op(
          g, "expand_as", s,
          [](const auto& x) {
            return x[0].expand_as(x[0].unsqueeze(0).expand({2, -1, -1, -1}).contiguous());
          },
          v),
      op(
          g, "squeeze", s, [](const auto& x) { return x[0].squeeze(); }, v),
      op(
          g, "squeeze_dim", s, [](const auto& x) { return x[0].squeeze(1); }, v),
      op(
          g, "squeeze_negative", s, [](const auto& x) { return x[0].squeeze(-1); }, v),
      op(
          g, "unsqueeze", s, [](const auto& x) { return x[0].unsqueeze(0); }, v),
      op(
          g, "unsqueeze_end", s, [](const auto& x) { return x[0].unsqueeze(-1); }, v),
      op(
          g, "unsqueeze_out_of_range", s, [](const auto& x) { return x[0].unsqueeze(5); }, v),
      op(
          g, "flatten", s, [](const auto& x) { return x[0].flatten(); }, v),
      op(
          g, "flatten_from_1", s, [](const auto& x) { return x[0].flatten(1); },
          Opt(v).differs(
              "flatten(1) of a 0-d tensor: LibTorch rejects dim 1 (range [-1, 0]), nabla accepts")),
      op(
          g, "flatten_0_1", s, [](const auto& x) { return x[0].flatten(0, 1); },
          Opt(v).differs("flatten(0, 1) of a 0-d tensor: LibTorch rejects dim 1, nabla accepts")),
      op(
          g, "unflatten", s,
          [](const auto& x) {
            return x[0].unflatten(-1, {2, 2});
          },
          v),
      op(
          g, "unflatten_infer", s,
          [](const auto& x) {
            return x[0].unflatten(0, {-1, 1});
          },
          Opt(v)),
      op(
          g, "diagonal", s, [](const auto& x) { return x[0].diagonal(); }, v),
      op(
          g, "diagonal_offset", s, [](const auto& x) { return x[0].diagonal(1, 0, 2); }, v),
      op(
          g, "diagonal_negative_offset", s, [](const auto& x) { return x[0].diagonal(-1, -1, -2); },
          v),
      op(
          g, "as_strided", s,
          [](const auto& x) {
            return x[0].contiguous().as_strided({2, 2}, {1, 2}, 1);
          },
          v),
      op(
          g, "unbind", s, [](const auto& x) { return x[0].unbind(1); }, v),
      op(
          g, "split", s, [](const auto& x) { return x[0].split(2, -1); }, v),
      op(
          g, "split_sizes", s,
          [](const auto& x) {
            return x[0].split_with_sizes({1, 2}, 1);
          },
          v),
      op(
          g, "chunk", s, [](const auto& x) { return x[0].chunk(2, 1); }, v),
      op(
          g, "chunk_uneven", s, [](const auto& x) { return x[0].chunk(3, -1); }, v),
      op(
          g, "contiguous", s, [](const auto& x) { return x[0].contiguous(); },
          Opt().dtypes(kAllTypes)),
      op(
          g, "clone", s, [](const auto& x) { return x[0].clone(); }, Opt().dtypes(kAllTypes)),
      op(
          g, "to_double", s, [](const auto& x) { return x[0].to(dtype_for(x[0], kDouble)); },
          Opt().dtypes(kAllTypes)),
      op(
          g, "to_int", s,
          [](const auto& x) { return x[0].mul(3).to(dtype_for(x[0], nabla::kInt)); },
          Opt().dtypes(kAllTypes)),
      op(
          g, "to_bool", s, [](const auto& x) { return x[0].to(dtype_for(x[0], nabla::kBool)); },
          Opt().dtypes(kAllTypes)),
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
