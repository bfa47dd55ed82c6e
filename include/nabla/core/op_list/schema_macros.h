#pragma once
// One schema per op (Note [Op schemas]; docs/architecture.md, "Adding an op"). An op is
// declared once, as a row of a file in include/nabla/ops/schema/ (or, for an op that is
// also a Tensor method, in include/nabla/core/op_list/):
//
//   NABLA_OP(conv2d, Tensor, IN(input), IN(weight), OPT_IN(bias, {}), INTS(stride, 1),
//            INTS(padding, 0), INTS(dilation, 1), INT(groups, 1))
//
// and everything else follows from the row by the preprocessor: the public declaration
// (`Tensor conv2d(const Tensor& input, ..., int64_t groups = 1)`), its body (record the
// call while tracing, else call `ops::conv2d_impl`, the hand-written implementation),
// the declaration of conv2d_impl, the registry entry (`ops::call("conv2d", ...)`: inputs,
// attributes with types and defaults), and the graph builder (`graph::conv2d(Value, ...)`).
//
// Note [Op schemas]
// A row is NABLA_OP(name, result, arguments...): the result is a type, parenthesized when
// it holds a comma ((std::tuple<Tensor, Tensor>)) or when it is a view or a list of
// views ((Tensor), (std::vector<Tensor>): no `_out` form, as LibTorch's views have none);
// each argument is a kind and a name, and
// optionally the C++ default, which is also the registry's default:
//   IN(x)            a tensor input                      const Tensor&
//   INPLACE(self)    a tensor input, first, that the op's in-place form name_ writes
//                    into (Variants, below)              const Tensor&
//   INPLACE_IMPL(self)  the same, the in-place form being a kernel of its own: the
//                    hand-written ops::name_inplace_impl (add_, mul_)
//   OPT_IN(x[, {}])  an optional tensor input (a bias)   const Tensor&, undefined = absent
//   OPT_TENSOR(x[, {}])  the same, typed as LibTorch types diff's prepend or
//                    bincount's weights                  const optional<Tensor>&
//   IN_LIST(x)       all the inputs (cat's tensors)      TensorList
//   BOOL, INT, DOUBLE, STRING, INTS, DTYPE, SCALAR (x[, default]): an attribute of type
//                    bool, int64_t, double, std::string_view, IntArrayRef, ScalarType, Scalar
//   OPT_INT, OPT_DOUBLE, OPT_SCALAR, OPT_DTYPE (x[, nullopt]): an attribute the caller
//                    may leave out, optional<...> in C++
//   OPTIONS(options, {})  a factory's TensorOptions; by name its dtype only, the
//                    optional attribute `dtype`        const TensorOptions&
//   MEMORY_FORMAT(memory_format, nullopt)  a *_like factory's layout, C++ only (by name
//                    and in a graph the input's layout: Preserve)  optional<MemoryFormat>
// A default is one preprocessor argument: 1, {}, "none", kFloat; one with a comma is
// parenthesized ((IntArrayRef{0, 1}): rot90's dims). Where C++
// cannot have a default (an argument before one without), the registry can: a third
// field, after an empty C++ default, is ops::call's (DOUBLE(momentum, , 0.1)). The
// tensor inputs are ops::call's inputs x[0], x[1], ... in the row's order, wherever they
// stand among the attributes (index_copy(self, dim, index, source): x = {self, index,
// source}). NABLA_METHOD_OP(name, result, IN(self), ...) rows are also Tensor methods.
// Several rows of one name are overloads: C++ sees each, and the registry entry tries
// them in row order, taking the first whose attributes fit the call (conv2d's padding as
// an int list or as "same"/"valid"); an attribute without a default in one row takes the
// default of the same name and type from an earlier row.
// This file holds the rows' syntax and what core needs of it (the declarations); the
// contexts that reach ops, the registry and the graph are nabla/ops/schema.h.

// ---- Preprocessor iteration -----------------------------------------------------------------

#define NABLA_PP_PARENS ()
#define NABLA_PP_EXPAND(...) NABLA_PP_EXPAND3(NABLA_PP_EXPAND3(NABLA_PP_EXPAND3(__VA_ARGS__)))
#define NABLA_PP_EXPAND3(...) NABLA_PP_EXPAND2(NABLA_PP_EXPAND2(NABLA_PP_EXPAND2(__VA_ARGS__)))
#define NABLA_PP_EXPAND2(...) NABLA_PP_EXPAND1(NABLA_PP_EXPAND1(NABLA_PP_EXPAND1(__VA_ARGS__)))
#define NABLA_PP_EXPAND1(...) __VA_ARGS__
/// m(ctx, e) for each e, side by side (up to 27 elements).
#define NABLA_PP_EACH(m, ctx, ...) __VA_OPT__(NABLA_PP_EXPAND(NABLA_PP_EACH_(m, ctx, __VA_ARGS__)))
#define NABLA_PP_EACH_(m, ctx, e, ...) \
  m(ctx, e) __VA_OPT__(NABLA_PP_EACH_AGAIN NABLA_PP_PARENS(m, ctx, __VA_ARGS__))
#define NABLA_PP_EACH_AGAIN() NABLA_PP_EACH_
/// m(ctx, e) for each e, separated by commas.
#define NABLA_PP_LIST(m, ctx, ...) __VA_OPT__(NABLA_PP_EXPAND(NABLA_PP_LIST_(m, ctx, __VA_ARGS__)))
#define NABLA_PP_LIST_(m, ctx, e, ...) \
  m(ctx, e) __VA_OPT__(, NABLA_PP_LIST_AGAIN NABLA_PP_PARENS(m, ctx, __VA_ARGS__))
#define NABLA_PP_LIST_AGAIN() NABLA_PP_LIST_
/// `x` without its parentheses when it has them: (std::tuple<A, B>) -> std::tuple<A, B>.
#define NABLA_PP_UNPAREN(x) NABLA_PP_UNPAREN_ESC(NABLA_PP_UNPAREN_ISH x)
#define NABLA_PP_UNPAREN_ISH(...) NABLA_PP_UNPAREN_ISH __VA_ARGS__
#define NABLA_PP_UNPAREN_ESC(...) NABLA_PP_UNPAREN_ESC_(__VA_ARGS__)
#define NABLA_PP_UNPAREN_ESC_(...) NABLA_PP_UNPAREN_VAN##__VA_ARGS__
#define NABLA_PP_UNPAREN_VANNABLA_PP_UNPAREN_ISH

// ---- Argument kinds -------------------------------------------------------------------------
// Each kind becomes a descriptor: (category, C++ parameter type, stored type, AttrReader
// getter, AttrType, name[, default]). The categories are IN, OPT_IN, OPT_TENSOR, LIST
// (inputs), ATTR and OPT_ATTR.

#define NABLA_KIND_IN(n) (IN, const ::nabla::Tensor&, ::nabla::Tensor, _, _, n)
#define NABLA_KIND_INPLACE(n) (IN, const ::nabla::Tensor&, ::nabla::Tensor, _, _, n)
#define NABLA_KIND_INPLACE_IMPL(n) (IN, const ::nabla::Tensor&, ::nabla::Tensor, _, _, n)
#define NABLA_KIND_OPT_IN(n, ...) \
  (OPT_IN, const ::nabla::Tensor&, ::nabla::Tensor, _, _, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_OPT_TENSOR(n, ...)                                                            \
  (OPT_TENSOR, const ::nabla::optional<::nabla::Tensor>&, ::nabla::optional<::nabla::Tensor>, _, \
   _, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_IN_LIST(n) (LIST, ::nabla::TensorList, std::vector<::nabla::Tensor>, _, _, n)
#define NABLA_KIND_BOOL(n, ...) (ATTR, bool, bool, b, Bool, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_INT(n, ...) (ATTR, int64_t, int64_t, i, Int, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_DOUBLE(n, ...) (ATTR, double, double, d, Double, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_STRING(n, ...) \
  (ATTR, std::string_view, std::string, s, String, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_INTS(n, ...) \
  (ATTR, ::nabla::IntArrayRef, std::vector<int64_t>, ints, IntList, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_DTYPE(n, ...) \
  (ATTR, ::nabla::ScalarType, ::nabla::ScalarType, dtype, Dtype, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_SCALAR(n, ...) \
  (ATTR, const ::nabla::Scalar&, ::nabla::Scalar, scalar, Double, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_OPTIONS(n, ...)                                       \
  (OPTIONS, const ::nabla::TensorOptions&, ::nabla::TensorOptions, _, _, \
   n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_MEMORY_FORMAT(n, ...)                    \
  (MEMORY_FORMAT, ::nabla::optional<::nabla::MemoryFormat>, \
   ::nabla::optional<::nabla::MemoryFormat>, _, _, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_OPT_INT(n, ...)                                           \
  (OPT_ATTR, ::nabla::optional<int64_t>, ::nabla::optional<int64_t>, i, Int, \
   n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_OPT_DOUBLE(n, ...)                                         \
  (OPT_ATTR, ::nabla::optional<double>, ::nabla::optional<double>, d, Double, \
   n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_OPT_SCALAR(n, ...)                                                        \
  (OPT_ATTR, ::nabla::optional<::nabla::Scalar>, ::nabla::optional<::nabla::Scalar>, scalar, \
   Double, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_KIND_OPT_DTYPE(n, ...)                                                         \
  (OPT_ATTR, ::nabla::optional<::nabla::ScalarType>, ::nabla::optional<::nabla::ScalarType>, \
   dtype, Dtype, n __VA_OPT__(, ) __VA_ARGS__)

// ---- Contexts: what one argument becomes ----------------------------------------------------

#define NABLA_SCHEMA_ARG(ctx, e) NABLA_SCHEMA_ARG_(NABLA_ARG_##ctx, NABLA_KIND_##e)
#define NABLA_SCHEMA_ARG_(f, desc) f desc
/// The arguments of a row in context `ctx`, comma-separated or side by side.
#define NABLA_SCHEMA_ARGS(ctx, ...) NABLA_PP_LIST(NABLA_SCHEMA_ARG, ctx, __VA_ARGS__)
#define NABLA_SCHEMA_EACH(ctx, ...) NABLA_PP_EACH(NABLA_SCHEMA_ARG, ctx, __VA_ARGS__)

// An argument's defaults: `x, cpp` or `x, cpp, by_name`, where by_name is the registry's
// default when C++ has none there (batch_norm's momentum: DOUBLE(momentum, , 0.1)); the
// registry's reading is NABLA_DEFAULT_VALUE (nabla/ops/schema.h).
#define NABLA_PP_FIRST(first, ...) first
#define NABLA_DEFAULT_ASSIGN(...) __VA_OPT__(NABLA_DEFAULT_ASSIGN_(__VA_ARGS__))
#define NABLA_DEFAULT_ASSIGN_(cpp, ...) NABLA_DEFAULT_ASSIGN__(cpp)
#define NABLA_DEFAULT_ASSIGN__(...) __VA_OPT__(= __VA_ARGS__)

// A public parameter, with its default; one without (a definition's); its name; its type.
#define NABLA_ARG_DECL(cat, type, store, get, atype, n, ...) \
  type n NABLA_DEFAULT_ASSIGN(__VA_ARGS__)
#define NABLA_ARG_PARAM(cat, type, store, get, atype, n, ...) type n
#define NABLA_ARG_NAME(cat, type, store, get, atype, n, ...) n
#define NABLA_ARG_TYPE(cat, type, store, get, atype, n, ...) type
// An argument as `, name` (a method forwarding to its function).
#define NABLA_ARG_COMMA_NAME(cat, type, store, get, atype, n, ...) , n

// ---- Variants -------------------------------------------------------------------------------
// Beside its function (and, for a NABLA_METHOD_OP row, its method) a row gives:
//  - the `_out` forms when its result is `Tensor`: name_out(Tensor& out, args...) and
//    name_outf(args..., Tensor& out), as LibTorch's (PyTorch 2 gives nearly every
//    functional op an out= overload): the function's result written into `out`
//    (detail::assign_out: `out` resized, its dtype able to hold the result, no autograd).
//    Results other than `Tensor` are parenthesized types, and have none;
//  - the in-place form name_(self, args...) when its first argument is INPLACE(self): the
//    function's result written into self (ops::inplace_from: self's dtype and shape, and
//    autograd as every in-place op: self's history becomes the result's); a method row's
//    also as the method self.name_(args...). With INPLACE_IMPL(self) the in-place form
//    calls ops::name_inplace_impl instead, a kernel writing into self (add_, mul_: no
//    temporary). A few in-place forms outside rows (dropout_, addmm_) are hand-written.

#define NABLA_PP_CAT(a, ...) NABLA_PP_CAT_(a, __VA_ARGS__)
#define NABLA_PP_CAT_(a, ...) a##__VA_ARGS__
#define NABLA_PP_SECOND(...) NABLA_PP_SECOND_(__VA_ARGS__, )
#define NABLA_PP_SECOND_(a, b, ...) b
/// NABLA_PP_WHEN(c)(tokens): the tokens when c is 1, nothing when it is 0.
#define NABLA_PP_WHEN(c) NABLA_PP_CAT(NABLA_PP_WHEN_, c)
#define NABLA_PP_WHEN_1(...) __VA_ARGS__
#define NABLA_PP_WHEN_0(...)
/// 1 when x is parenthesized, else 0.
#define NABLA_PP_IS_PAREN(x) NABLA_PP_SECOND(NABLA_PP_IS_PAREN_PROBE x, 0)
#define NABLA_PP_IS_PAREN_PROBE(...) ~, 1
/// 1 when a row's result is `Tensor`, 0 when it is parenthesized (an unparenthesized
/// result other than Tensor does not compile: NABLA_RESULT_IS_TENSOR_<it> is not defined).
#define NABLA_RESULT_IS_TENSOR(result) \
  NABLA_PP_CAT(NABLA_RESULT_IS_TENSOR_, NABLA_PP_IS_PAREN(result))(result)
#define NABLA_RESULT_IS_TENSOR_1(result) 0
#define NABLA_RESULT_IS_TENSOR_0(result) NABLA_PP_CAT(NABLA_RESULT_IS_TENSOR_OF_, result)
#define NABLA_RESULT_IS_TENSOR_OF_Tensor 1
/// 1 when a row's first argument is INPLACE(...) or INPLACE_IMPL(...), else 0; and 1 for
/// INPLACE_IMPL only.
#define NABLA_HAS_INPLACE(first) NABLA_PP_SECOND(NABLA_PP_CAT(NABLA_INPLACE_PROBE_, first), 0)
#define NABLA_INPLACE_PROBE_INPLACE(n) ~, 1
#define NABLA_INPLACE_PROBE_INPLACE_IMPL(n) ~, 1
#define NABLA_HAS_INPLACE_IMPL(first) \
  NABLA_PP_SECOND(NABLA_PP_CAT(NABLA_INPLACE_IMPL_PROBE_, first), 0)
#define NABLA_INPLACE_IMPL_PROBE_INPLACE_IMPL(n) ~, 1
/// m(args...) for a row that has the variant, else nothing.
#define NABLA_WITH_OUT(result, m, ...) NABLA_PP_WHEN(NABLA_RESULT_IS_TENSOR(result))(m(__VA_ARGS__))
#define NABLA_WITH_INPLACE(first, m, ...) NABLA_PP_WHEN(NABLA_HAS_INPLACE(first))(m(__VA_ARGS__))
#define NABLA_WITH_INPLACE_IMPL(first, m, ...) \
  NABLA_PP_WHEN(NABLA_HAS_INPLACE_IMPL(first))(m(__VA_ARGS__))

// ---- What a row becomes in a declaration ----------------------------------------------------
// A public header: `#define NABLA_OP NABLA_OP_DECLARE` (and NABLA_METHOD_OP the same),
// include its schema file, #undef. NABLA_METHOD_OP rows are ops that are also Tensor
// methods: their first argument is `self`, and core/tensor.h declares the method with
// NABLA_METHOD_DECLARE (src/ops/registry/schema_functions.cpp defines it as the function
// called on *this). Both declare the row's variants too.
#define NABLA_OP_DECLARE(name, result, ...)                            \
  NABLA_PP_UNPAREN(result) name(NABLA_SCHEMA_ARGS(DECL, __VA_ARGS__)); \
  NABLA_WITH_OUT(result, NABLA_OUT_DECLARE, name, __VA_ARGS__)         \
  NABLA_WITH_INPLACE(NABLA_PP_FIRST(__VA_ARGS__), NABLA_INPLACE_DECLARE, name, __VA_ARGS__)
#define NABLA_OUT_DECLARE(name, ...)                                                       \
  ::nabla::Tensor& name##_out(::nabla::Tensor& out, NABLA_SCHEMA_ARGS(DECL, __VA_ARGS__)); \
  ::nabla::Tensor& name##_outf(NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__), ::nabla::Tensor& out);
#define NABLA_INPLACE_DECLARE(name, first, ...) \
  const ::nabla::Tensor& name##_(NABLA_SCHEMA_ARGS(DECL, first __VA_OPT__(, ) __VA_ARGS__));
#define NABLA_METHOD_DECLARE(name, result, self, ...)                        \
  NABLA_PP_UNPAREN(result) name(NABLA_SCHEMA_ARGS(DECL, __VA_ARGS__)) const; \
  NABLA_WITH_INPLACE(self, NABLA_INPLACE_METHOD_DECLARE, name, __VA_ARGS__)
#define NABLA_INPLACE_METHOD_DECLARE(name, ...) \
  const Tensor& name##_(NABLA_SCHEMA_ARGS(DECL, __VA_ARGS__)) const;
// A factory's row (nabla/ops/schema/factories.def: no tensor input) declares the function
// alone: its `_out` forms take their options from `out` (nabla/ops/out_functions.h).
#define NABLA_FACTORY_DECLARE(name, result, ...) \
  NABLA_PP_UNPAREN(result) name(NABLA_SCHEMA_ARGS(DECL, __VA_ARGS__));
