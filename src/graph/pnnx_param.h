#pragma once
// The text of a .pnnx.param file and of its pnnx.Expression operators, parsed into plain
// structs (graph::load_pnnx maps them to nodes, src/graph/import_pnnx.cpp).
//
// A file is the magic 7767517, "<operators> <operands>", then one operator a line:
//   <type> <name> <#inputs> <#outputs> <input operands...> <output operands...> <items...>
// where an item is `key=value` (a parameter), `@key=(shape)dtype` (a weight stored in the
// .pnnx.bin as the entry "<name>.<key>"), `$arg=<operand>` (the argument an input is) or
// `#<operand>=(shape)dtype` (an operand's shape, `?` where unknown). Values are None,
// True/False, integers, floats (`1.000000e-05` before pnnx 20260113, `1e-05`/`0.01` after),
// bare strings, or `(a,b,...)` lists of one of those.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace nabla::graph::detail {

/// One parameter value. Numbers keep both forms: `ints` for an integer or integer list,
/// `floats` for any number or number list (integers included).
struct PnnxValue {
  enum class Kind { None, Bool, Int, Float, String, IntList, FloatList, StringList };
  Kind kind = Kind::None;
  std::string text;  // as written
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  bool is_list() const { return kind >= Kind::IntList; }
};

/// A shape and dtype as written: `(1,3,?,?)f32` is {1, 3, -1, -1} and "f32".
struct PnnxShape {
  std::vector<int64_t> dims;
  std::string dtype;
};

struct PnnxOperator {
  std::string type, name;
  int line = 0;  // 1-based line in the file
  std::vector<std::string> inputs, outputs;
  std::vector<std::string> input_args;  // per input, its `$` argument name or ""
  std::map<std::string, PnnxValue> params;
  std::map<std::string, PnnxShape> weights;  // `@key`
};

struct PnnxGraph {
  std::vector<PnnxOperator> operators;
  std::map<std::string, PnnxShape> operand_shapes;  // from `#` annotations
};

/// Parses a .pnnx.param file's text; `source` names it in errors. Checks the magic, the
/// counts, each line's operand counts, and that every input operand is the output of an
/// earlier line. A malformed file is a nabla::Error naming `source` and the line.
PnnxGraph parse_pnnx_param(std::string_view text, const std::string& source);

/// One value as pnnx writes it (the rules above).
PnnxValue parse_pnnx_value(std::string_view text);

/// A pnnx.Expression's expression: prefix calls `f(a,b)`, inputs `@0`, numbers, True,
/// False, None, bare words (`torch.float`) and lists `[a,b]`.
struct PnnxExpr {
  enum class Kind { Input, Int, Float, Bool, None, Word, Call, List };
  Kind kind = Kind::None;
  std::string name;            // Call: the function; Word: the word
  int64_t integer = 0;         // Input: its index; Int, Bool: the value
  double number = 0;           // Float
  std::vector<PnnxExpr> args;  // Call, List
};

/// Parses `text` (an error names `where`, the operator and its line).
PnnxExpr parse_pnnx_expression(std::string_view text, const std::string& where);

/// Bytes per element of a pnnx dtype name ("f32" -> 4); 0 for one nabla does not read.
int pnnx_dtype_size(const std::string& dtype);

}  // namespace nabla::graph::detail
