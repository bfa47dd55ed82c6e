#pragma once
// The `_out` forms of the common ops, as LibTorch's: `add_out(out, a, b)` computes
// add(a, b) into `out` and returns it; `add_outf(a, b, alpha, out)` is the same with
// `out` last and no defaults. `out` is resized when its shape differs (LibTorch resizes
// it too, with a warning when it held elements) and must be able to hold the result's
// dtype (a float result cannot go into an int64 `out`). As in LibTorch, `_out` forms do
// not record autograd history: an input or `out` that requires grad, with grad mode on,
// is an error.
#include <tuple>

#include "nabla/core/tensor.h"
#include "nabla/ops/activation.h"
#include "nabla/ops/functions.h"

namespace nabla {

namespace detail {
/// Writes `result` into `out` with the checks above; `op` names the caller.
Tensor& assign_out(Tensor& out, const Tensor& result, const char* op);
}  // namespace detail

// ---- Elementwise ---------------------------------------------------------------------
// The binary ops' forms (add_out, eq_out, pow_outf, ...) follow from their rows in
// core/op_list/binary.def (nabla/ops/functions.h declares them); max_out / min_out of two
// tensors are maximum's and minimum's.
Tensor& max_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& min_out(Tensor& out, const Tensor& self, const Tensor& other);

// One-input elementwise ops: name_out(out, self).
// The elementwise unary ops of core/op_list/unary.def (tanh_out, ...).
#define NABLA_UNARY_OP(name, ...) Tensor& name##_out(Tensor& out, const Tensor& self);
#define NABLA_UNARY_PREDICATE(name, Kernel) NABLA_UNARY_OP(name)
#include "nabla/core/op_list/unary.def"

// ---- Reductions and scans ------------------------------------------------------------
std::tuple<Tensor&, Tensor&> max_out(Tensor& max, Tensor& max_values, const Tensor& self,
                                     int64_t dim, bool keepdim = false);
std::tuple<Tensor&, Tensor&> min_out(Tensor& min, Tensor& min_indices, const Tensor& self,
                                     int64_t dim, bool keepdim = false);
std::tuple<Tensor&, Tensor&> sort_out(Tensor& values, Tensor& indices, const Tensor& self,
                                      int64_t dim = -1, bool descending = false);
std::tuple<Tensor&, Tensor&> topk_out(Tensor& values, Tensor& indices, const Tensor& self,
                                      int64_t k, int64_t dim = -1, bool largest = true,
                                      bool sorted = true);

// ---- The ops declared by schema rows ---------------------------------------------------
// Their `_out` and `_outf` forms follow from the rows (Note [Op schemas], "Variants") and are
// declared beside the functions: matmul_out, mm_out, bmm_out, mv_out, dot_out,
// outer_out, addmm_out, linear_out (functions.h), softmax_out, log_softmax_out
// (activation.h), conv2d_out (convolution.h), ...

// ---- Factories (out's dtype) -----------------------------------------------------------
Tensor& zeros_out(Tensor& out, IntArrayRef size);
Tensor& ones_out(Tensor& out, IntArrayRef size);
Tensor& full_out(Tensor& out, IntArrayRef size, const Scalar& fill_value);
Tensor& arange_out(Tensor& out, const Scalar& end);
Tensor& arange_out(Tensor& out, const Scalar& start, const Scalar& end, const Scalar& step = 1);
Tensor& linspace_out(Tensor& out, const Scalar& start, const Scalar& end, int64_t steps);
Tensor& rand_out(Tensor& out, IntArrayRef size, optional<Generator> generator = nullopt);
Tensor& randn_out(Tensor& out, IntArrayRef size, optional<Generator> generator = nullopt);
Tensor& randint_out(Tensor& out, int64_t high, IntArrayRef size);
Tensor& randint_out(Tensor& out, int64_t low, int64_t high, IntArrayRef size);
Tensor& randperm_out(Tensor& out, int64_t n);

// ---- The `_outf` spellings: the same functions with `out` last -------------------------
#define NABLA_UNARY_OUTF(name) \
  inline Tensor& name##_outf(const Tensor& self, Tensor& out) { return name##_out(out, self); }
NABLA_UNARY_OUTF(neg)
NABLA_UNARY_OUTF(abs)
NABLA_UNARY_OUTF(sqrt)
NABLA_UNARY_OUTF(exp)
NABLA_UNARY_OUTF(log)
NABLA_UNARY_OUTF(sin)
NABLA_UNARY_OUTF(cos)
NABLA_UNARY_OUTF(tanh)
NABLA_UNARY_OUTF(sigmoid)
#undef NABLA_UNARY_OUTF

}  // namespace nabla
