// Conformance entries: shape ops (cat, stack, split, repeat, flip, roll, tril/triu,
// padding) and index ops (index_select, gather, scatter, masked ops, TensorIndex
// indexing and index_put_). Index tensors are generated in range, except in the
// entries that check out-of-range errors.
#include <type_traits>

#include "table.h"

namespace conform {
namespace {

using L = Layout;
using nabla::ScalarType;
constexpr L C = L::Contiguous;
using IL = std::vector<int64_t>;

// The tensor-list argument, typed so that argument-dependent lookup finds nabla::cat
// for nabla tensors and at::cat for LibTorch's.
template <class V>
auto list(const V& x, std::initializer_list<size_t> which) {
  std::vector<std::decay_t<decltype(x[0])>> out;
  for (size_t i : which) out.push_back(x[i]);
  return out;
}

// x of `shape` plus int64 indices in [0, bound) of `index_shape`.
Gen with_index(Shape shape, Shape index_shape, int64_t bound, L layout = C) {
  return [=](Rng& rng, ScalarType t) {
    return Samples{
        sample_of({make_layout(rng, shape, t, kAny, layout), make_index(rng, index_shape, bound)})};
  };
}

// Several (x, index) samples for dim-wise ops: in range along dim 1 of a 2-d or 3-d x.
Gen gather_samples() {
  return [](Rng& rng, ScalarType t) {
    return Samples{
        sample_of({make(rng, {3, 5}, t), make_index(rng, {3, 4}, 5)}),
        sample_of({make_layout(rng, {4, 5}, t, kAny, L::Transposed), make_index(rng, {2, 3}, 5)}),
        sample_of({make(rng, {2, 3, 4}, t), make_index(rng, {2, 2, 4}, 3)}),
        sample_of({make(rng, {3, 5}, t), make_index(rng, {0, 2}, 5)}),
    };
  };
}

// (self, index, src) for scatter along dim 1 with distinct indices per row (LibTorch
// leaves the winner of duplicate indices unspecified).
Gen scatter_samples() {
  return [](Rng& rng, ScalarType t) {
    Samples out;
    for (int rep = 0; rep < 2; ++rep) {
      std::vector<NTensor> rows;
      for (int r = 0; r < 3; ++r)
        rows.push_back(make_permutation(rng, 5).narrow(0, 0, 4).unsqueeze(0));
      NTensor index = nabla::cat(rows, 0);
      out.push_back(sample_of({make(rng, {3, 5}, t), index, make(rng, {3, 4}, t)}));
    }
    return out;
  };
}

// `gen`'s samples without their last input (scatter with a value instead of src).
Gen drop_last(Gen gen) {
  return [gen](Rng& rng, ScalarType t) {
    Samples out;
    for (Sample& s : gen(rng, t)) {
      s.inputs.pop_back();
      out.push_back(sample_of(s.inputs));
    }
    return out;
  };
}

// (self, index, values) for index_put along dim 0: distinct rows (a repeated one is
// written once but gets the values' gradient twice, as in LibTorch) with values of the
// indexing result's shape, and repeated rows with broadcast values (for accumulate).
Gen index_put_samples(bool distinct) {
  return [distinct](Rng& rng, ScalarType t) {
    if (distinct)
      return Samples{
          sample_of({make(rng, {4, 5}, t), make_permutation(rng, 4).narrow(0, 0, 3),
                     make(rng, {3, 5}, t)}),
          sample_of(
              {make(rng, {4, 5}, t), make_permutation(rng, 4).narrow(0, 0, 2), make(rng, {5}, t)}),
      };
    return Samples{
        sample_of({make(rng, {5, 3}, t), make_index(rng, {8}, 5), make(rng, {3}, t)}),
        sample_of({make(rng, {5, 3}, t), make_index(rng, {2, 4}, 5), make(rng, {2, 4, 3}, t)}),
    };
  };
}

// Tensors with some zero elements (the values of nonzero's samples).
Gen with_zeros() {
  return [](Rng& rng, ScalarType t) {
    Samples out;
    for (Shape shape : {Shape{3, 4}, Shape{}, Shape{0, 3}, Shape{2, 3, 4}})
      out.push_back(sample_of({make(rng, shape, t).masked_fill(make_bool(rng, shape), 0)}));
    out.push_back(sample_of(
        {make_layout(rng, {4, 5}, t, kAny, L::Transposed).masked_fill(make_bool(rng, {4, 5}), 0)}));
    return out;
  };
}

Gen masked_samples() {
  return [](Rng& rng, ScalarType t) {
    return Samples{
        sample_of({make(rng, {3, 4}, t), make_bool(rng, {3, 4})}),
        sample_of({make(rng, {3, 4}, t), make_bool(rng, {4})}),
        sample_of({make_layout(rng, {4, 5}, t, kAny, L::Transposed), make_bool(rng, {4, 1})}),
        sample_of({make(rng, {}, t), make_bool(rng, {})}),
        sample_of({make(rng, {0, 3}, t), make_bool(rng, {3})}),
    };
  };
}

// masked_samples() with a 0-d value tensor of the same dtype as a third input.
Gen masked_value_samples() {
  return [](Rng& rng, ScalarType t) {
    Samples out;
    for (Sample& s : masked_samples()(rng, t)) {
      s.inputs.push_back(make(rng, {}, t));
      out.push_back(sample_of(s.inputs));
    }
    return out;
  };
}

Gen s3i() {
  return layouts(
      {{{{3, 4, 5}, C}}, {{{3, 4, 5}, L::Transposed}}, {{{3, 4}, L::Expanded}}, {{{0, 4, 2}, C}}});
}

std::vector<OpEntry> shape_entries() {
  const std::string g = "shape_ops";
  const Opt o = Opt().dtypes(kAllTypes).gradgrad();
  const Gen pairs = layouts({{{{2, 3}, C}, {{4, 3}, C}},
                             {{{2, 3}, L::Transposed}, {{1, 3}, L::Strided}},
                             {{{0, 3}, C}, {{2, 3}, C}},
                             {{{2, 3}, C}, {{2, 4}, C}}});
  const Gen same = layouts({{{{2, 3}, C}, {{2, 3}, L::Transposed}},
                            {{{0, 3}, C}, {{0, 3}, C}},
                            {{{}, C}, {{}, C}},
                            {{{2, 3}, C}, {{3, 2}, C}}});
  const Gen mat = layouts({{{{3, 4}, C}},
                           {{{4, 3}, L::Transposed}},
                           {{{3, 5}, L::Strided}},
                           {{{0, 3}, C}},
                           {{{5}, C}},
                           {{{}, C}}});
  const Gen s3 = layouts({{{{2, 3, 4}, C}},
                          {{{2, 3, 4}, L::Transposed}},
                          {{{4, 3}, L::Expanded}},
                          {{{0, 3}, C}},
                          {{{}, C}},
                          {{{5}, L::Strided}}});
  return {
      op(
          g, "cat", pairs,
          [](const auto& x) {
            return cat(list(x, {0, 1}));
          },
          Opt(o).call("cat")),
      op(
          g, "cat_dim1", same,
          [](const auto& x) {
            return cat(list(x, {0, 1}), 1);
          },
          Opt(o).call("cat", {{"dim", 1}})),
      op(
          g, "cat_negative_dim", same,
          [](const auto& x) {
            return cat(list(x, {0, 1, 0}), -1);
          },
          o),
      op(
          g, "cat_legacy_empty", fixed({{{0}, {2, 3}}}),
          [](const auto& x) {
            return cat(list(x, {0, 1}));
          },
          Opt(o).call("cat")),
      op(
          g, "cat_mixed_dtypes", fixed({{{2}, {3}}}),
          [](const auto& x) { return cat(list(x, {0})).mul(2); }, o),
      op(
          g, "stack", same,
          [](const auto& x) {
            return stack(list(x, {0, 1}));
          },
          Opt(o).call("stack")),
      op(
          g, "stack_last", same,
          [](const auto& x) {
            return stack(list(x, {0, 1}), -1);
          },
          Opt(o).call("stack", {{"dim", -1}})),
      op(
          g, "hstack", same,
          [](const auto& x) {
            return hstack(list(x, {0, 1}));
          },
          Opt(o).call("hstack")),
      op(
          g, "vstack", same,
          [](const auto& x) {
            return vstack(list(x, {0, 1}));
          },
          Opt(o).call("vstack")),
      op(
          g, "split_free", s3, [](const auto& x) { return split(x[0], 2, -1); },
          Opt(o).call("split", {{"split_size", 2}, {"dim", -1}})),
      op(
          g, "chunk_free", s3, [](const auto& x) { return chunk(x[0], 2, 0); },
          Opt(o).call("chunk", {{"chunks", 2}, {"dim", 0}})),
      op(
          g, "unbind_free", s3, [](const auto& x) { return unbind(x[0], 0); },
          Opt(o).call("unbind", {{"dim", 0}})),
      op(
          g, "repeat", s3,
          [](const auto& x) {
            return x[0].repeat({2, 1, 3});
          },
          Opt(o).call("repeat", {{"repeats", IL{2, 1, 3}}})),
      op(
          g, "repeat_more_dims", s3,
          [](const auto& x) {
            return x[0].repeat({2, 2, 1, 1});
          },
          Opt(o).call("repeat", {{"repeats", IL{2, 2, 1, 1}}})),
      op(
          g, "repeat_zero", s3,
          [](const auto& x) {
            return x[0].repeat({0, 2, 1});
          },
          Opt(o).call("repeat", {{"repeats", IL{0, 2, 1}}})),
      op(
          g, "repeat_too_few", s3, [](const auto& x) { return x[0].repeat({2}); },
          Opt(o).call("repeat", {{"repeats", IL{2}}})),
      op(
          g, "flip", s3, [](const auto& x) { return x[0].flip({0}); },
          Opt(o).call("flip", {{"dims", IL{0}}})),
      op(
          g, "flip_two", s3,
          [](const auto& x) {
            return x[0].flip({-1, 0});
          },
          Opt(o).call("flip", {{"dims", IL{-1, 0}}})),
      op(
          g, "roll", s3, [](const auto& x) { return x[0].roll({1}, {0}); },
          Opt(o)
              .call("roll", {{"shifts", IL{1}}, {"dims", IL{0}}})
              .differs(
                  "roll(shifts, dims) of a 0-d tensor: LibTorch rejects dim 0, nabla accepts")),
      op(
          g, "roll_two", s3,
          [](const auto& x) {
            return x[0].roll({2, -1}, {0, -1});
          },
          Opt(o)
              .call("roll", {{"shifts", IL{2, -1}}, {"dims", IL{0, -1}}})
              .differs("roll of a 0-d tensor with dims: LibTorch rejects it, nabla accepts")),
      op(
          g, "roll_flat", s3, [](const auto& x) { return x[0].roll({3}); },
          Opt(o).call("roll", {{"shifts", IL{3}}})),
      op(
          g, "tril", s3, [](const auto& x) { return tril(x[0]); }, Opt(o).call("tril")),
      op(
          g, "tril_negative", s3, [](const auto& x) { return tril(x[0], -1); },
          Opt(o).call("tril", {{"diagonal", -1}})),
      op(
          g, "triu", s3, [](const auto& x) { return triu(x[0], 1); },
          Opt(o).call("triu", {{"diagonal", 1}})),
      op(
          g, "constant_pad_nd", s3,
          [](const auto& x) {
            return constant_pad_nd(x[0], {1, 2});
          },
          Opt(o).call("constant_pad_nd", {{"pad", IL{1, 2}}})),
      op(
          g, "constant_pad_2d_value", s3,
          [](const auto& x) {
            return constant_pad_nd(x[0], {1, 1, 2, 0}, 3);
          },
          Opt(o).call("constant_pad_nd", {{"pad", IL{1, 1, 2, 0}}, {"value", 3}})),
      op(
          g, "constant_pad_negative", s3,
          [](const auto& x) {
            return constant_pad_nd(x[0], {-1, 1});
          },
          Opt(o).call("constant_pad_nd", {{"pad", IL{-1, 1}}})),
      op(
          g, "broadcast_tensors", pairs,
          [](const auto& x) {
            return broadcast_tensors(list(x, {0, 1}));
          },
          Opt(o).call("broadcast_tensors")),
      op(
          g, "meshgrid", layouts({{{{3}, C}, {{4}, C}}, {{{0}, C}, {{2}, C}}}),
          [](const auto& x) {
            return meshgrid(list(x, {0, 1}), "ij");
          },
          Opt(o).call("meshgrid", {{"indexing", std::string("ij")}})),
      op(
          g, "repeat_interleave", s3, [](const auto& x) { return repeat_interleave(x[0], 2, 0); },
          Opt(o).call("repeat_interleave", {{"repeats", 2}, {"dim", 0}})),
      op(
          g, "diag", mat, [](const auto& x) { return x[0].diag(1); },
          Opt(o).call("diag", {{"diagonal", 1}})),
      op(
          g, "diag_embed", mat, [](const auto& x) { return x[0].diag_embed(-1); },
          Opt(o).call("diag_embed", {{"offset", -1}})),
      op(
          g, "diag_embed_dims", s3, [](const auto& x) { return x[0].diag_embed(0, 0, -1); },
          Opt(o).call("diag_embed", {{"dim1", 0}, {"dim2", -1}})),
      op(
          g, "diagflat", mat, [](const auto& x) { return x[0].diagflat(1); },
          Opt(o).call("diagflat", {{"offset", 1}})),
      op(
          g, "tile", mat,
          [](const auto& x) {
            return x[0].tile({2, 1, 2});
          },
          Opt(o).call("tile", {{"dims", IL{2, 1, 2}}})),
      op(
          g, "rot90", mat, [](const auto& x) { return x[0].rot90(); }, Opt(o).call("rot90")),
      op(
          g, "rot90_dims", s3,
          [](const auto& x) {
            return x[0].rot90(-1, {-1, 0});
          },
          Opt(o).call("rot90", {{"k", -1}, {"dims", IL{-1, 0}}})),
      op(
          g, "rot90_twice", s3,
          [](const auto& x) {
            return x[0].rot90(2, {0, 1});
          },
          Opt(o).call("rot90", {{"k", 2}})),
      op(
          g, "flipud", mat, [](const auto& x) { return x[0].flipud(); }, Opt(o).call("flipud")),
      op(
          g, "fliplr", mat, [](const auto& x) { return x[0].fliplr(); }, Opt(o).call("fliplr")),
      op(
          g, "sum_to_size", s3,
          [](const auto& x) {
            return x[0].sum_to_size({3, 1});
          },
          Opt().dtypes(kFloatsAndLong).call("sum_to_size", {{"size", IL{3, 1}}})),
      op(
          g, "sum_to_size_same_rank", s3,
          [](const auto& x) {
            return x[0].sum_to_size({1, 3, 1});
          },
          Opt().dtypes(kFloatsAndLong).call("sum_to_size", {{"size", IL{1, 3, 1}}})),
      op(
          g, "repeat_interleave_tensor", with_index({3, 4}, {3}, 3),
          [](const auto& x) { return x[0].repeat_interleave(x[1], 0); },
          Opt(o).call("repeat_interleave", {{"dim", 0}})),
      op(
          g, "repeat_interleave_flat", s3, [](const auto& x) { return repeat_interleave(x[0], 3); },
          Opt(o).call("repeat_interleave", {{"repeats", 3}})),
  };
}

std::vector<OpEntry> index_entries() {
  const std::string g = "index_ops";
  const Opt o = Opt().dtypes(kAllTypes).gradgrad();
  const Opt sum = Opt().dtypes(kFloatsAndLong).gradgrad();
  return {
      op(
          g, "index_select", with_index({4, 5}, {3}, 5),
          [](const auto& x) { return x[0].index_select(1, x[1]); },
          Opt(o).call("index_select", {{"dim", 1}})),
      op(
          g, "index_select_dim0_transposed", with_index({4, 5}, {6}, 4, L::Transposed),
          [](const auto& x) { return x[0].index_select(0, x[1]); },
          Opt(o).call("index_select", {{"dim", 0}})),
      op(
          g, "index_select_0d", with_index({}, {2}, 1),
          [](const auto& x) { return x[0].index_select(0, x[1]); },
          Opt(o).differs("index_select of a 0-d tensor with a 2-element index: LibTorch accepts "
                         "it, nabla rejects")),
      op(
          g, "index_select_out_of_range", with_index({4, 5}, {3}, 5),
          [](const auto& x) { return x[0].index_select(0, x[1].add(4)); },
          Opt(o).throws("index_select")),
      op(
          g, "gather", gather_samples(), [](const auto& x) { return x[0].gather(1, x[1]); },
          Opt(o).call("gather", {{"dim", 1}})),
      op(
          g, "gather_free", gather_samples(),
          [](const auto& x) { return gather(x[0], -1, x[1].clamp_max(2)); }, o),
      op(
          g, "gather_out_of_range", with_index({3, 5}, {3, 4}, 5),
          [](const auto& x) { return x[0].gather(1, x[1].add(5)); }, Opt(o).throws("gather")),
      op(
          g, "scatter", scatter_samples(),
          [](const auto& x) { return x[0].scatter(1, x[1], x[2]); },
          Opt(o).call("scatter", {{"dim", 1}})),
      op(
          g, "scatter_value", drop_last(scatter_samples()),
          [](const auto& x) { return x[0].scatter(1, x[1], 2); },
          Opt(o).call("scatter", {{"dim", 1}, {"value", 2}})),
      op(
          g, "scatter_", scatter_samples(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.scatter_(1, x[1], x[2]);
            return y;
          },
          o),
      op(
          g, "scatter_add", gather_samples(),
          [](const auto& x) {
            return x[0].scatter_add(1, x[1],
                                    x[0].narrow(1, 0, 1).expand(x[1].sizes()).contiguous());
          },
          sum),
      op(
          g, "scatter_add_src", scatter_samples(),
          [](const auto& x) { return x[0].scatter_add(1, x[1], x[2]); },
          Opt(sum).call("scatter_add", {{"dim", 1}})),
      op(
          g, "scatter_add_duplicates", with_index({2, 6}, {2, 9}, 6),
          [](const auto& x) {
            return x[0].scatter_add(1, x[1], x[1].to(x[0].scalar_type()).mul(0.5));
          },
          sum),
      op(
          g, "scatter_add_", gather_samples(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.scatter_add_(1, x[1], x[1].to(x[0].scalar_type()));
            return y;
          },
          sum),
      op(
          g, "masked_select", masked_samples(),
          [](const auto& x) { return x[0].masked_select(x[1]); }, Opt(o).call("masked_select")),
      op(
          g, "masked_fill", masked_samples(),
          [](const auto& x) { return x[0].masked_fill(x[1], 7); },
          Opt(o).call("masked_fill", {{"value", 7}})),
      op(
          g, "masked_fill_float", masked_samples(),
          [](const auto& x) { return x[0].masked_fill(x[1], -0.5); },
          Opt(o)
              .differs("masked_fill of a uint8 tensor with -0.5: LibTorch rejects the overflow, "
                       "nabla accepts")
              .call("masked_fill", {{"value", -0.5}})),
      op(
          g, "masked_fill_tensor", masked_samples(),
          [](const auto& x) { return x[0].masked_fill(x[1], x[0].sum().mul(0).add(3)); }, o),
      op(
          g, "masked_fill_value_tensor", masked_value_samples(),
          [](const auto& x) { return x[0].masked_fill(x[1], x[2]); }, Opt(o).call("masked_fill")),
      op(
          g, "masked_fill_", masked_samples(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.masked_fill_(x[1], 1);
            return y;
          },
          o),
      op(
          g, "nonzero", masked_samples(), [](const auto& x) { return x[0].gt(0).nonzero(); }, o),
      op(
          g, "nonzero_values", with_zeros(), [](const auto& x) { return x[0].nonzero(); },
          Opt(o).call("nonzero")),
      // TensorIndex: Slice and None are spelled per library, so these use op2.
      op2(
          g, "index_slice_int", s3i(),
          [](const auto& x) {
            return x[0].index({nabla::indexing::Slice(1, nabla::indexing::None), 0});
          },
          LIBTORCH([](const auto& x) {
            return x[0].index({at::indexing::Slice(1, at::indexing::None), 0});
          }),
          o),
      op2(
          g, "index_step_none_ellipsis", s3i(),
          [](const auto& x) {
            using namespace nabla::indexing;
            return x[0].index({Slice(None, None, 2), None, Ellipsis, -1});
          },
          LIBTORCH([](const auto& x) {
            using namespace at::indexing;
            return x[0].index({Slice(None, None, 2), None, Ellipsis, -1});
          }),
          o),
      op(
          g, "index_tensor", with_index({4, 5}, {3}, 4),
          [](const auto& x) { return x[0].index({x[1]}); }, Opt(o).call("index")),
      op(
          g, "index_mask", masked_samples(), [](const auto& x) { return x[0].index({x[1]}); }, o),
      op(
          g, "index_two_tensors", with_index({4, 4}, {2, 3}, 4),
          [](const auto& x) {
            return x[0].index({x[1], x[1].flip({0})});
          },
          o),
      op(
          g, "index_out_of_range", with_index({4, 5}, {3}, 4),
          [](const auto& x) { return x[0].index({x[1].add(4)}); }, Opt(o).throws("index")),
      op2(
          g, "index_optional_list", with_index({4, 5}, {3}, 5),
          [](const auto& x) {
            return x[0].index(std::vector<nabla::optional<NTensor>>{nabla::nullopt, x[1]});
          },
          LIBTORCH([](const auto& x) {
            c10::List<c10::optional<TTensor>> l;
            l.push_back(c10::nullopt);
            l.push_back(x[1]);
            return x[0].index(l);
          }),
          o),
      op2(
          g, "index_put_slice", s3i(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.index_put_({nabla::indexing::Slice(), 0}, 5);
            return y;
          },
          LIBTORCH([](const auto& x) {
            auto y = x[0].clone();
            y.index_put_({at::indexing::Slice(), 0}, 5);
            return y;
          }),
          o),
      op(
          g, "index_put_mask", masked_samples(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.index_put_({x[1]}, x[0].sum().mul(0).add(2));
            return y;
          },
          Opt(o).differs("index_put_ of a 0-d int64 value into an int32 tensor: LibTorch casts it, "
                         "nabla rejects the dtype mismatch")),
      op(
          g, "index_put_tensor",
          [](Rng& rng, ScalarType t) {  // distinct rows: a repeated one is written once but
                                        // gets the values' gradient twice, as in LibTorch
            return Samples{
                sample_of({make(rng, {4, 5}, t), make_permutation(rng, 4).narrow(0, 0, 3)})};
          },
          [](const auto& x) {
            auto y = x[0].clone();
            y.index_put_({x[1]}, y.select(0, 0).clone());
            return y;
          },
          o),
      op2(
          g, "index_put_accumulate", with_index({5, 3}, {8}, 5),
          [](const auto& x) {
            return x[0].index_put(std::vector<nabla::optional<NTensor>>{x[1]}, x[0].select(0, 1),
                                  true);
          },
          LIBTORCH([](const auto& x) {
            c10::List<c10::optional<TTensor>> l;
            l.push_back(x[1]);
            return x[0].index_put(l, x[0].select(0, 1), true);
          }),
          Opt().dtypes(kFloatsAndLong)),
      op2(
          g, "index_put_values", index_put_samples(true),
          [](const auto& x) {
            return x[0].index_put(std::vector<nabla::optional<NTensor>>{x[1]}, x[2]);
          },
          LIBTORCH([](const auto& x) {
            c10::List<c10::optional<TTensor>> l;
            l.push_back(x[1]);
            return x[0].index_put(l, x[2]);
          }),
          Opt(o).call("index_put")),
      op2(
          g, "index_put_values_accumulate", index_put_samples(false),
          [](const auto& x) {
            return x[0].index_put(std::vector<nabla::optional<NTensor>>{x[1]}, x[2], true);
          },
          LIBTORCH([](const auto& x) {
            c10::List<c10::optional<TTensor>> l;
            l.push_back(x[1]);
            return x[0].index_put(l, x[2], true);
          }),
          Opt(sum).call("index_put", {{"accumulate", true}})),
  };
}

const bool registered = add_entries(shape_entries()) && add_entries(index_entries());

// ---- More shape and index cases --------------------------------------------------------

// Slice, None and Ellipsis of the library of T: TensorIndex lists are spelled per library,
// so the lambdas below take them from here and stay generic.
template <class T>
struct Ix;
template <>
struct Ix<NTensor> {
  template <class... A>
  static nabla::indexing::Slice slice(A... a) {
    return nabla::indexing::Slice(a...);
  }
  static auto none() { return nabla::indexing::None; }
  static auto ellipsis() { return nabla::indexing::Ellipsis; }
};
#if NABLA_CONFORMANCE_LIBTORCH
template <>
struct Ix<TTensor> {
  template <class... A>
  static at::indexing::Slice slice(A... a) {
    return at::indexing::Slice(a...);
  }
  static auto none() { return at::indexing::None; }
  static auto ellipsis() { return at::indexing::Ellipsis; }
};
#endif
template <class V>
using IxOf = Ix<std::decay_t<decltype(std::declval<V>()[0])>>;

// A constant int64 tensor of `like`'s library.
NTensor longs(const NTensor& like, std::vector<int64_t> v, const Shape& shape) {
  return nabla::tensor(v, nabla::kLong).view(shape).to(like.device());
}
#if NABLA_CONFORMANCE_LIBTORCH
TTensor longs(const TTensor&, std::vector<int64_t> v, const Shape& shape) {
  return at::tensor(v, at::kLong).view(shape);
}
#endif

// The tensors given, as the list argument of cat, stack, broadcast_tensors.
template <class T, class... R>
std::vector<T> vec(const T& first, const R&... rest) {
  return {first, rest...};
}

std::vector<OpEntry> more_shape_entries() {
  const std::string g = "shape_ops";
  const Opt o = Opt().dtypes(kAllTypes).gradgrad();
  const Gen s3 = layouts({{{{2, 3, 4}, C}}, {{{2, 3, 4}, L::Transposed}}, {{{0, 3}, C}}});
  return {
      // Promotion across the inputs, and 1-d empty inputs: skipped whatever their dtype
      // and the dim (legacy behaviour), but still part of the promotion.
      op(
          g, "cat_promotes_dtypes", fixed({{{2}, {3}}}),
          [](const auto& x) {
            return cat(vec(x[0], x[1].to(dtype_for(x[1], nabla::kLong)), x[0].gt(0)));
          },
          o),
      op(
          g, "cat_legacy_empty_promotes", fixed({{{0}, {2, 3}}}),
          [](const auto& x) {
            return cat(vec(x[0].to(dtype_for(x[0], nabla::kLong)), x[1], x[0]), 1);
          },
          o),
      op(
          g, "cat_all_legacy_empty", fixed({{{0}, {0}}}),
          [](const auto& x) { return cat(vec(x[0].to(dtype_for(x[0], nabla::kLong)), x[1])); }, o),
      op(
          g, "cat_all_legacy_empty_any_dim", fixed({{{0}, {0}}}),
          [](const auto& x) {
            return cat(list(x, {0, 1}), 5);
          },
          o),
      op(
          g, "cat_zero_width_pieces", fixed({{{2, 0}, {2, 3}, {2, 0}}}),
          [](const auto& x) {
            return cat(list(x, {0, 1, 2}), 1);
          },
          o),
      op(
          g, "hstack_vstack_0d", fixed({{{}, {2}}}),
          [](const auto& x) {
            return vec(hstack(vec(x[0], x[1])),
                       vstack(vec(x[0].to(dtype_for(x[0], nabla::kLong)), x[0])));
          },
          o),
      op(
          g, "tril_triu_other_diagonals", s3,
          [](const auto& x) { return vec(tril(x[0], 1), triu(x[0], -1)); }, o),
      op(
          g, "constant_pad_float_value", fixed({{{2, 3}}, {{0}}}),
          [](const auto& x) {
            return constant_pad_nd(x[0], {1, 1}, 2.7);
          },
          o),
      op(
          g, "constant_pad_no_pad", fixed({{{}}, {{2, 3}}}),
          [](const auto& x) { return constant_pad_nd(x[0], {}); }, o),
      op(
          g, "concat", fixed({{{2, 3}, {1, 3}}}),
          [](const auto& x) {
            return concat(list(x, {0, 1}));
          },
          o),
      op(
          g, "constant_pad_crop_all", fixed({{{2, 3}}}),
          [](const auto& x) {
            return constant_pad_nd(x[0], {-3, 1}, 7);
          },
          o),
      op(
          g, "broadcast_tensors_three", fixed({{{3, 1}, {2}, {}}}),
          [](const auto& x) { return broadcast_tensors(x); }, o),
      op(
          g, "meshgrid_xy_counts", fixed({{{3}, {2}, {}}, {{3}}}),
          [](const auto& x) { return meshgrid(x, "xy"); }, o),
      op(
          g, "repeat_interleave_zero", fixed({{{2, 2}}}),
          [](const auto& x) { return repeat_interleave(x[0], 0, 1); }, o),
  };
}

// x of [2, 3, 4] in three layouts.
Gen x234() {
  return layouts({{{{2, 3, 4}, C}}, {{{2, 3, 4}, L::Transposed}}, {{{2, 3, 4}, L::Strided}}});
}

// (self [3, 4], index [2, 4] with distinct rows per column) for scatter along dim 0.
Gen scatter_dim0_samples() {
  return [](Rng& rng, ScalarType t) {
    std::vector<NTensor> cols;
    for (int c = 0; c < 4; ++c) cols.push_back(make_permutation(rng, 3).narrow(0, 0, 2));
    return Samples{sample_of({make(rng, {3, 4}, t), nabla::stack(cols, 1)})};
  };
}

// TensorIndex rules (which dims advanced indices replace, broadcasting between index
// tensors, masks, bool scalars, basic indices as views) and more index_put_,
// index_select, gather, scatter and mask cases.
std::vector<OpEntry> more_index_entries() {
  const std::string g = "index_ops";
  const Opt o = Opt().dtypes(kAllTypes).gradgrad();
  const Gen x = x234();
  return {
      op(
          g, "index_adjacent_tensors", x,
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            return x[0].index({I::slice(), longs(x[0], {0, 2}, {2}), longs(x[0], {1, 3}, {2})});
          },
          o),
      op(
          g, "index_broadcast_tensors_after_int", x,
          [](const auto& x) {
            return x[0].index({1, longs(x[0], {0, 2}, {2, 1}), longs(x[0], {0, 1, 3}, {3})});
          },
          o),
      // Advanced indices separated by a slice: the index dims go first.
      op(
          g, "index_separated_by_slice", x,
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            return x[0].index({longs(x[0], {0, 1}, {2}), I::slice(), longs(x[0], {0, 3}, {2})});
          },
          o),
      // Separated by an integer, which selects first: still adjacent in the view.
      op(
          g, "index_separated_by_int", x,
          [](const auto& x) {
            return x[0].index({longs(x[0], {0, 1}, {2}), 0, longs(x[0], {1, 2}, {2})});
          },
          o),
      op(
          g, "index_none_between_tensors", x,
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            return x[0].index({longs(x[0], {0, 1}, {2}), I::none(), longs(x[0], {0, 1}, {2})});
          },
          o),
      op(
          g, "index_negative_and_2d_tensors", x,
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            return vec(x[0].index({longs(x[0], {1, 0, -1}, {3})}),
                       x[0].index({I::slice(), longs(x[0], {0, 1, 2, 0}, {2, 2})}),
                       x[0][longs(x[0], {1}, {})]);
          },
          o),
      op(
          g, "operator_brackets_vector_index", x,
          [](const auto& x) {
            return x[0][longs(x[0], {1, 0}, {2})];
          },
          Opt(o).differs("x[t] with a 1-d index tensor: LibTorch's operator[] takes 0-d tensors "
                         "only (it throws); nabla's indexes, as x.index({t}) and Python's x[t]")),
      op(
          g, "index_masks", x,
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            auto mask = longs(x[0], {1, 0, 1}, {3}).gt(0);
            return vec(x[0].index({I::slice(), mask}), x[0].index({x[0].select(2, 0).gt(0)}),
                       x[0].index({x[0].gt(100)}));
          },
          o),
      op(
          g, "index_2d_mask_then_int", x,
          [](const auto& x) {
            return x[0].index({x[0].select(2, 0).gt(0), 1});
          },
          Opt(o).differs("a 2-d mask followed by an integer: LibTorch 1.13 moves past one dim per "
                         "mask (the integer selects dim 1, then the mask mismatches and it "
                         "throws); nabla moves past the mask's dims, as NumPy")),
      op(
          g, "index_bool_scalars", x,
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            return vec(x[0].index({true}), x[0].index({false}), x[0].index({I::slice(), false}),
                       x[0].index({true, 1}), x[0].index({longs(x[0], {1}, {}).gt(0)}));
          },
          o),
      op(
          g, "index_empty_index", x,
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            return x[0].index({I::slice(), longs(x[0], {}, {0})});
          },
          o),
      op(
          g, "index_zero_size_self", fixed({{{0, 3}}}),
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            return x[0].index({I::slice(), longs(x[0], {1}, {1})});
          },
          o),
      op(
          g, "index_basic_views", x,
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            const auto none = I::none();
            return vec(x[0].index({1, I::slice(none, none, 2), -1}), x[0].index({I::slice(-1), 2}),
                       x[0].index({none, I::ellipsis(), none}), x[0].index({"...", 1}),
                       x[0].index({0, none, I::slice(1, 3)}),
                       x[0].index({I::ellipsis(), I::slice(1, none, 2)}),
                       x[0].index({I::slice(1, 2), I::slice(0, 3, 2), I::slice(none, 10)}),
                       x[0].index({I::slice(5, 9)}), x[0].index({longs(x[0], {1}, {})}));
          },
          Opt(o).view()),
      op(
          g, "index_0d_self", fixed({{{}}}),
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            return vec(x[0].index({I::none()}), x[0].index({I::ellipsis()}), x[0].index({"..."}));
          },
          Opt(o).view()),
      op(
          g, "index_basic_then_tensor", x,
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            const auto none = I::none();
            return vec(x[0].index({1, I::slice(0, 4, 2), longs(x[0], {0, 3}, {2})}),
                       x[0].index({none, I::slice(1), -1}),
                       x[0].index({true, longs(x[0], {1, 0}, {2})}),
                       x[0].index({"...", longs(x[0], {3, 3, 1}, {3})}), x[0].index({"..."}),
                       x[0].index({I::slice(1), longs(x[0], {0}, {1})}));
          },
          o),
      op2(
          g, "index_list_0d_tensors", x,
          [](const auto& x) {
            return x[0].index(
                std::vector<nabla::optional<NTensor>>{longs(x[0], {1}, {}), longs(x[0], {2}, {})});
          },
          LIBTORCH([](const auto& x) {
            c10::List<c10::optional<TTensor>> l;
            l.push_back(longs(x[0], {1}, {}));
            l.push_back(longs(x[0], {2}, {}));
            return x[0].index(l);
          }),
          o),
      // Writes through basic indices (copy_ into a view: the value broadcasts, converts
      // and may have leading 1s) and advanced ones, each into its own clone.
      op(
          g, "index_put_tensor_index_lists", x,
          [](const auto& x) {
            using I = IxOf<decltype(x)>;
            const auto none = I::none();
            auto v0 = x[0].reshape({-1}).select(0, 5);  // a 0-d value
            std::vector<std::decay_t<decltype(x[0])>> out;
            for (int i = 0; i < 11; ++i) out.push_back(x[0].clone());
            out[0].index_put_({I::slice(), 1}, x[0].select(1, 0));
            out[1].index_put_({0}, x[0].select(0, 1).to(dtype_for(x[0], nabla::kLong)));
            out[2].index_put_({1}, x[0].select(0, 0).unsqueeze(0).unsqueeze(0));
            out[3].index_put_({I::ellipsis(), I::slice(none, none, 2)}, v0);
            out[4].index_put_({I::slice(), I::slice(), -1}, 3);
            out[5].index_put_({longs(x[0], {0, 1}, {2}), longs(x[0], {1, 2}, {2})}, v0);
            out[6].index_put_({longs(x[0], {0, 1}, {2}), I::slice(), longs(x[0], {1, 0}, {2})},
                              x[0].select(2, 0));
            out[7].index_put_({longs(x[0], {}, {0})}, v0);
            out[8].transpose(0, 2).index_put_({longs(x[0], {2, 1}, {2})},
                                              x[0].transpose(0, 2).narrow(0, 0, 2));
            out[9].index_put_({I::slice(), longs(x[0], {-1}, {1})}, 3);
            out[10].index_put_({I::slice(), I::slice(), longs(x[0], {3, 0}, {2})},
                               x[0].narrow(2, 0, 2));
            return out;
          },
          o),
      op(
          g, "index_put_mask_scalar", x,
          [](const auto& x) {
            auto y = x[0].clone();
            y.index_put_({y.gt(0)}, 2);
            return y;
          },
          o),
      op(
          g, "index_put_accumulate_transposed_self", x,
          [](const auto& x) {
            auto y = x[0].clone();
            y.transpose(0, 2).index_put_({longs(x[0], {1, 0, 1}, {3}), longs(x[0], {2, 0, 2}, {3})},
                                         x[0].select(2, 0).narrow(1, 0, 2).t(), true);
            return y;
          },
          Opt(o).dtypes(kFloatsAndLong)),
      op(
          g, "index_put_mask_floats", masked_samples(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.index_put_({x[1]}, x[0].sum().mul(0).add(2));
            return y;
          },
          Opt(o).dtypes(kFloats)),
      op2(
          g, "index_put_accumulate_inplace", with_index({4, 3}, {3}, 4),
          [](const auto& x) {
            auto y = x[0].clone();
            y.index_put_(std::vector<nabla::optional<NTensor>>{x[1]}, x[0].narrow(0, 1, 3), true);
            return y;
          },
          LIBTORCH([](const auto& x) {
            c10::List<c10::optional<TTensor>> l;
            l.push_back(x[1]);
            auto y = x[0].clone();
            y.index_put_(l, x[0].narrow(0, 1, 3), true);
            return y;
          }),
          Opt(o).dtypes(kFloatsAndLong)),
      op2(
          g, "index_put_accumulate_column_values",
          [](Rng& rng, ScalarType t) {
            return Samples{
                sample_of({make(rng, {5, 3}, t), make_index(rng, {8}, 5), make(rng, {8, 1}, t)})};
          },
          [](const auto& x) {
            return x[0].index_put(std::vector<nabla::optional<NTensor>>{x[1]}, x[2], true);
          },
          LIBTORCH([](const auto& x) {
            c10::List<c10::optional<TTensor>> l;
            l.push_back(x[1]);
            return x[0].index_put(l, x[2], true);
          }),
          Opt(o).dtypes(kFloatsAndLong)),
      op(
          g, "index_select_index_kinds",
          [](Rng& rng, ScalarType t) {
            return Samples{
                sample_of({make(rng, {3, 4}, t), make_index(rng, {2}, 4).to(nabla::kInt)}),
                sample_of({make(rng, {3, 4}, t), make_index(rng, {0}, 4)}),
                sample_of({make(rng, {3, 4}, t), make_index(rng, {}, 3)}),
            };
          },
          [](const auto& x) {
            return vec(x[0].index_select(-1, x[1]), x[0].index_select(-2, x[1]));
          },
          o),
      op(
          g, "index_select_0d_self", with_index({}, {1}, 1),
          [](const auto& x) { return x[0].index_select(0, x[1]); }, o),
      op(
          g, "gather_dim0_and_0d",
          [](Rng& rng, ScalarType t) {
            return Samples{sample_of({make(rng, {3, 4}, t), make_index(rng, {2, 3}, 3)}),
                           sample_of({make(rng, {}, t), make_index(rng, {}, 1)})};
          },
          [](const auto& x) { return x[0].gather(0, x[1]); }, o),
      op(
          g, "scatter_dim0_src_larger", scatter_dim0_samples(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.scatter_(0, x[1], -2);
            // (src a constant: LibTorch 1.13's ScatterBackward0 returns src's gradient in the
            // index's shape and fails when src is larger; tests/autograd checks nabla's.)
            auto src = longs(x[0], {4, 1, 3, 0, 2, 5, 7, 6, 2, 1, 0, 3, 4, 6, 5}, {3, 5})
                           .to(x[0].scalar_type());
            return vec(x[0].scatter(0, x[1], src), x[0].scatter(-2, x[1], 1.5),
                       x[0].t().scatter(1, x[1].t(), src.t()), y, x[0].scatter_add(0, x[1], src));
          },
          o),
      op(
          g, "scatter_0d",
          [](Rng& rng, ScalarType t) {
            return Samples{sample_of({make(rng, {}, t), make_index(rng, {}, 1), make(rng, {}, t)})};
          },
          [](const auto& x) {
            auto y = x[0].clone();
            y.scatter_(0, x[1], x[2]);
            return vec(x[0].scatter(0, x[1], x[2]), y);
          },
          o),
      op(
          g, "scatter_add_bool", scatter_samples(),
          [](const auto& x) { return x[0].scatter_add(1, x[1], x[2]); },
          Opt(o).dtypes({nabla::kBool})),
      op(
          g, "masked_fill_float_value", masked_samples(),
          [](const auto& x) { return x[0].masked_fill(x[1], 2.7); }, o),
      op(
          g, "masked_broadcast_self",
          [](Rng& rng, ScalarType t) {
            return Samples{sample_of({make(rng, {4}, t), make_bool(rng, {3, 4})}),
                           sample_of({make(rng, {3}, t), make_bool(rng, {2, 1})})};
          },
          [](const auto& x) { return vec(x[0].masked_fill(x[1], 0.5), x[0].masked_select(x[1])); },
          o),
      op(
          g, "masked_fill__value_tensor", masked_value_samples(),
          [](const auto& x) {
            auto y = x[0].clone();
            y.masked_fill_(x[1], x[2]);
            return y;
          },
          o),
  };
}

const bool registered_more = add_entries(more_shape_entries()) && add_entries(more_index_entries());

}  // namespace
}  // namespace conform
