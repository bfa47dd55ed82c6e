#pragma once
// The PNNX importer's state (graph::load_pnnx): src/graph/import_pnnx.cpp reads the files,
// the operands and pnnx's own operators (pnnx.Input, pnnx.Expression, ...);
// src/graph/import_pnnx_ops.cpp maps the nn.*, F.*, torch.* and Tensor.* operators.
//
// Note [PNNX operands]
// An operand is a node of the graph (a tensor) or a value known at import: a number or a
// list of them, which pnnx.Expression computes from shapes (`size(@0,1)`) and literals and
// which the ops read as settings (a reshape's `$shape`). Shapes are those of the example
// inputs (zeros of each pnnx.Input's annotated shape, or of the shape the caller gives;
// Note [Import shapes], src/graph/import_shapes.h): a size that pnnx left as an expression
// is fixed at import.
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/pnnx_param.h"
#include "nabla/graph/graph.h"
#include "nabla/serialize/detail/zip.h"

namespace nabla::graph::detail {

struct Term {
  enum class Kind { None, Value, Number, List };
  Kind kind = Kind::None;
  Value value;
  double number = 0;
  bool integral = false;
  std::vector<Term> items;
  static Term of(Value v) { return {Kind::Value, v, 0, false, {}}; }
  static Term num(double x, bool integral) { return {Kind::Number, {}, x, integral, {}}; }
};

class PnnxImporter {
 public:
  using Op = PnnxOperator;
  PnnxImporter(PnnxGraph graph, serialize::detail::ZipArchive& bin, std::string source,
               std::vector<std::vector<int64_t>> input_shapes)
      : pnnx_(std::move(graph)),
        bin_(bin),
        source_(std::move(source)),
        input_shapes_(std::move(input_shapes)) {}
  Graph run();

  // ---- for the operator table
  [[noreturn]] void fail(const Op& op, const std::string& what) const;
  /// Input i (or the input whose `$` argument is `arg`) as a graph value.
  Value in(const Op& op, size_t i);
  Value in(const Op& op, const char* arg);
  /// The input whose `$` argument is `arg`, or -1.
  int arg_index(const Op& op, const char* arg) const;
  /// A setting: the parameter `key`, or the input `$key` when known at import
  /// (Note [PNNX operands]). has() is false for an absent or None one.
  bool has(const Op& op, const char* key);
  int64_t int_of(const Op& op, const char* key);
  int64_t int_of(const Op& op, const char* key, int64_t fallback);
  double float_of(const Op& op, const char* key, double fallback);
  bool bool_of(const Op& op, const char* key, bool fallback);
  std::string str_of(const Op& op, const char* key, const std::string& fallback);
  std::vector<int64_t> ints_of(const Op& op, const char* key);
  std::vector<double> floats_of(const Op& op, const char* key);
  /// `ints_of`, a single integer repeated `n` times (pnnx writes kernel_size=3 or (3,3)).
  std::vector<int64_t> ints_of(const Op& op, const char* key, size_t n);
  /// The weight `@key` (entry "<op>.<key>" of the .pnnx.bin): a parameter named so when
  /// floating and `trainable`, else a constant.
  bool has_weight(const Op& op, const std::string& key) const { return op.weights.count(key) > 0; }
  Value weight(const Op& op, const std::string& key, bool trainable = true);
  Tensor weight_tensor(const Op& op, const std::string& key);
  /// The shape and value of `v` on the example inputs.
  std::vector<int64_t> shape_of(Value v);
  Tensor example_of(Value v);
  /// A node of `op`; the final one of an operator is named after it.
  Value call(const Op& op, const std::string& name, std::vector<Value> inputs,
             ops::Attributes attrs = {}, bool final = true);
  /// Sets output i of `op`.
  void define(const Op& op, size_t i, Term t);
  void define(const Op& op, Value v) { define(op, 0, Term::of(v)); }
  Graph& graph() { return g_; }

 private:
  void map(const Op& op);
  bool map_by_schema(const Op& op);
  void input_op(const Op& op);
  void expression(const Op& op);
  Term eval(const Op& op, const PnnxExpr& e);
  Term eval_call(const Op& op, const PnnxExpr& e);
  Term binary(const Op& op, const std::string& f, const Term& a, const Term& b);
  Value as_value(const Op& op, const Term& t);
  const Term& term(const Op& op, size_t i);
  std::optional<Term> setting(const Op& op, const char* key);
  std::vector<double> numbers_of(const Op& op, const char* key, bool integral);

  PnnxGraph pnnx_;
  serialize::detail::ZipArchive& bin_;
  std::string source_;
  Graph g_;
  std::unordered_map<std::string, Term> operands_;
  std::vector<Value> outputs_;
  std::vector<std::vector<int64_t>> input_shapes_;
  std::unordered_map<std::string, std::string> operand_of_input_;  // input name -> operand
  int64_t helper_nodes_ = 0;
  bool shapes_used_ = false;  // a size was read from the examples (Note [Import shapes])
};

/// torch's dtype names as pnnx writes them in casts and `dtype=` settings ("torch.float").
bool torch_dtype(const std::string& name, ScalarType& dtype);

/// The handler of each nn.*, F.*, torch.* and Tensor.* operator type (import_pnnx_ops.cpp).
using PnnxHandler = std::function<void(PnnxImporter&, const PnnxOperator&)>;
const std::unordered_map<std::string, PnnxHandler>& pnnx_operator_table();

}  // namespace nabla::graph::detail
