// graph::load_pnnx (nabla/graph/import.h): the .pnnx.param parsed (pnnx_param.cpp), the
// .pnnx.bin read as a ZIP archive, each operator mapped to op-table nodes: pnnx's own
// operators and expressions here, the others by the table of import_pnnx_ops.cpp.
#include "graph/import_pnnx.h"

#include "graph/import_shapes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "nabla/autograd/grad_mode.h"
#include "nabla/graph/import.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/serialize/detail/mapped_file.h"

namespace nabla::graph {

namespace detail {

namespace {

bool pnnx_dtype(const std::string& name, ScalarType& dtype) {
  static const std::unordered_map<std::string, ScalarType> table = {
      {"f32", kFloat}, {"f64", kDouble}, {"f16", kHalf},  {"bf16", kBFloat16}, {"i64", kLong},
      {"i32", kInt},   {"u8", kByte},    {"bool", kBool}, {"i16", kShort},     {"i8", kChar}};
  auto it = table.find(name);
  if (it == table.end()) return false;
  dtype = it->second;
  return true;
}

}  // namespace

bool torch_dtype(const std::string& name, ScalarType& dtype) {
  static const std::unordered_map<std::string, ScalarType> table = {
      {"torch.float", kFloat},       {"torch.float32", kFloat}, {"torch.double", kDouble},
      {"torch.float64", kDouble},    {"torch.half", kHalf},     {"torch.float16", kHalf},
      {"torch.bfloat16", kBFloat16}, {"torch.long", kLong},     {"torch.int64", kLong},
      {"torch.int", kInt},           {"torch.int32", kInt},     {"torch.bool", kBool},
      {"torch.uint8", kByte},        {"torch.int8", kChar},     {"torch.int16", kShort},
      {"torch.short", kShort}};
  auto it = table.find(name);
  if (it == table.end()) return false;
  dtype = it->second;
  return true;
}

namespace {

using UnaryFn = double (*)(double);
const std::unordered_map<std::string, UnaryFn>& unary_functions() {
  static const std::unordered_map<std::string, UnaryFn> table = {
      {"abs", [](double x) { return std::fabs(x); }},
      {"acos", [](double x) { return std::acos(x); }},
      {"acosh", [](double x) { return std::acosh(x); }},
      {"asin", [](double x) { return std::asin(x); }},
      {"asinh", [](double x) { return std::asinh(x); }},
      {"atan", [](double x) { return std::atan(x); }},
      {"atanh", [](double x) { return std::atanh(x); }},
      {"ceil", [](double x) { return std::ceil(x); }},
      {"cos", [](double x) { return std::cos(x); }},
      {"cosh", [](double x) { return std::cosh(x); }},
      {"erf", [](double x) { return std::erf(x); }},
      {"exp", [](double x) { return std::exp(x); }},
      {"expm1", [](double x) { return std::expm1(x); }},
      {"floor", [](double x) { return std::floor(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"log10", [](double x) { return std::log10(x); }},
      {"log1p", [](double x) { return std::log1p(x); }},
      {"neg", [](double x) { return -x; }},
      {"reciprocal", [](double x) { return 1.0 / x; }},
      {"round", [](double x) { return std::nearbyint(x); }},  // half to even, as torch
      {"rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
      {"sign", [](double x) { return static_cast<double>((x > 0) - (x < 0)); }},
      {"sin", [](double x) { return std::sin(x); }},
      {"sinh", [](double x) { return std::sinh(x); }},
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"square", [](double x) { return x * x; }},
      {"tan", [](double x) { return std::tan(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"trunc", [](double x) { return std::trunc(x); }}};
  return table;
}

// pnnx's binary functions and the ops computing them on tensors.
const std::unordered_map<std::string, std::string>& binary_ops() {
  static const std::unordered_map<std::string, std::string> table = {
      {"add", "add"},
      {"sub", "sub"},
      {"mul", "mul"},
      {"div", "div"},
      {"floor_divide", "floor_divide"},
      {"remainder", "remainder"},
      {"fmod", "fmod"},
      {"pow", "pow"},
      {"atan2", "atan2"},
      {"max", "maximum"},
      {"maximum", "maximum"},
      {"min", "minimum"},
      {"minimum", "minimum"},
      {"logaddexp", "logaddexp"},
      {"and", "bitwise_and"},
      {"or", "bitwise_or"},
      {"xor", "bitwise_xor"}};
  return table;
}

// Python's arithmetic on numbers known at import (sizes, literals).
bool number_op(const std::string& f, const Term& a, const Term& b, Term& out) {
  const double x = a.number, y = b.number;
  const bool ints = a.integral && b.integral;
  const auto ix = static_cast<int64_t>(x), iy = static_cast<int64_t>(y);
  if (f == "add")
    out = Term::num(x + y, ints);
  else if (f == "sub")
    out = Term::num(x - y, ints);
  else if (f == "mul")
    out = Term::num(x * y, ints);
  else if (f == "div")
    out = Term::num(x / y, false);
  else if (f == "floor_divide")
    out = Term::num(std::floor(x / y), ints);
  else if (f == "remainder")
    out = Term::num(x - std::floor(x / y) * y, ints);
  else if (f == "fmod")
    out = Term::num(std::fmod(x, y), ints);
  else if (f == "pow")
    out = Term::num(std::pow(x, y), ints && y >= 0);
  else if (f == "atan2")
    out = Term::num(std::atan2(x, y), false);
  else if (f == "max" || f == "maximum")
    out = Term::num(std::max(x, y), ints);
  else if (f == "min" || f == "minimum")
    out = Term::num(std::min(x, y), ints);
  else if (f == "logaddexp")
    out = Term::num(std::max(x, y) + std::log1p(std::exp(-std::fabs(x - y))), false);
  else if (ints && f == "and")
    out = Term::num(static_cast<double>(ix & iy), true);
  else if (ints && f == "or")
    out = Term::num(static_cast<double>(ix | iy), true);
  else if (ints && f == "xor")
    out = Term::num(static_cast<double>(ix ^ iy), true);
  else if (ints && f == "lshift")
    out = Term::num(static_cast<double>(ix << iy), true);
  else if (ints && f == "rshift")
    out = Term::num(static_cast<double>(ix >> iy), true);
  else
    return false;
  return true;
}

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string out = "(";
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d) out += ",";
    out += dims[d] < 0 ? "?" : std::to_string(dims[d]);
  }
  return out + ")";
}

}  // namespace

void PnnxImporter::fail(const Op& op, const std::string& what) const {
  NABLA_CHECK(false, "load_pnnx: '", source_, "' line ", op.line, ": operator '", op.name, "' (",
              op.type, "): ", what);
}

const Term& PnnxImporter::term(const Op& op, size_t i) {
  if (i >= op.inputs.size()) fail(op, "input " + std::to_string(i) + " is missing");
  auto it = operands_.find(op.inputs[i]);
  if (it == operands_.end()) fail(op, "operand '" + op.inputs[i] + "' has no value");
  return it->second;
}

Value PnnxImporter::as_value(const Op& op, const Term& t) {
  switch (t.kind) {
    case Term::Kind::Value:
      return t.value;
    case Term::Kind::None:
      return g_.constant(Tensor());
    case Term::Kind::Number:
      return g_.constant(t.integral
                             ? scalar_tensor(static_cast<int64_t>(t.number), TensorOptions(kLong))
                             : scalar_tensor(t.number, TensorOptions(kFloat)));
    case Term::Kind::List: {
      std::vector<double> xs;
      bool ints = true;
      for (const Term& item : t.items) {
        if (item.kind != Term::Kind::Number)
          fail(op, "a list of tensors where one tensor is expected");
        xs.push_back(item.number);
        ints = ints && item.integral;
      }
      return g_.constant(tensor(xs, TensorOptions(kDouble)).to(ints ? kLong : kFloat));
    }
  }
  fail(op, "unreachable");
}

Value PnnxImporter::in(const Op& op, size_t i) { return as_value(op, term(op, i)); }

int PnnxImporter::arg_index(const Op& op, const char* arg) const {
  for (size_t i = 0; i < op.input_args.size(); ++i)
    if (op.input_args[i] == arg) return static_cast<int>(i);
  return -1;
}

Value PnnxImporter::in(const Op& op, const char* arg) {
  const int i = arg_index(op, arg);
  if (i < 0) fail(op, std::string("no input is its argument '") + arg + "'");
  return in(op, static_cast<size_t>(i));
}

// Note [PNNX operands]: a parameter, or an input known at import; nullopt when absent or
// None.
std::optional<Term> PnnxImporter::setting(const Op& op, const char* key) {
  if (auto p = op.params.find(key); p != op.params.end()) {
    const PnnxValue& v = p->second;
    using K = PnnxValue::Kind;
    if (v.kind == K::None) return std::nullopt;
    if (v.kind == K::String || v.kind == K::StringList)
      fail(op, std::string("parameter ") + key + "=" + v.text + " is not a number");
    if (!v.is_list()) return Term::num(v.floats.at(0), v.kind != K::Float);
    Term list{Term::Kind::List, {}, 0, false, {}};
    for (double x : v.floats) list.items.push_back(Term::num(x, v.kind == K::IntList));
    return list;
  }
  const int i = arg_index(op, key);
  if (i < 0) return std::nullopt;
  const Term& t = term(op, static_cast<size_t>(i));
  if (t.kind == Term::Kind::None) return std::nullopt;
  if (t.kind != Term::Kind::Value) return t;
  const auto inputs = g_.inputs();
  if (!t.value.op().empty() || std::find(inputs.begin(), inputs.end(), t.value) != inputs.end())
    fail(op, std::string("its argument '") + key +
                 "' is computed from the model's inputs; nabla needs it known at import");
  // A constant tensor (pnnx.Attribute): its numbers.
  const Tensor value = example_of(t.value);
  const Tensor v = value.to(kDouble).contiguous();
  const bool ints = !value.is_floating_point();
  if (v.dim() == 0) return Term::num(v.item<double>(), ints);
  Term list{Term::Kind::List, {}, 0, false, {}};
  for (int64_t k = 0; k < v.numel(); ++k)
    list.items.push_back(Term::num(v.data_ptr<double>()[k], ints));
  return list;
}

bool PnnxImporter::has(const Op& op, const char* key) { return setting(op, key).has_value(); }

std::vector<double> PnnxImporter::numbers_of(const Op& op, const char* key, bool integral) {
  const std::optional<Term> t = setting(op, key);
  if (!t) fail(op, std::string("the setting '") + key + "' is missing");
  std::vector<double> out;
  const std::vector<Term> items = t->kind == Term::Kind::List ? t->items : std::vector<Term>{*t};
  for (const Term& x : items) {
    if (x.kind != Term::Kind::Number || (integral && !x.integral))
      fail(op, std::string("the setting '") + key + "' must hold " +
                   (integral ? "integers" : "numbers"));
    out.push_back(x.number);
  }
  return out;
}

std::vector<double> PnnxImporter::floats_of(const Op& op, const char* key) {
  return numbers_of(op, key, false);
}

std::vector<int64_t> PnnxImporter::ints_of(const Op& op, const char* key) {
  const auto v = numbers_of(op, key, true);
  return std::vector<int64_t>(v.begin(), v.end());
}

std::vector<int64_t> PnnxImporter::ints_of(const Op& op, const char* key, size_t n) {
  auto v = ints_of(op, key);
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  if (v.size() != n)
    fail(op, std::string("the setting '") + key + "' has " + std::to_string(v.size()) +
                 " values, expected " + std::to_string(n));
  return v;
}

int64_t PnnxImporter::int_of(const Op& op, const char* key) {
  const auto v = ints_of(op, key);
  if (v.size() != 1) fail(op, std::string("the setting '") + key + "' must be one integer");
  return v[0];
}

int64_t PnnxImporter::int_of(const Op& op, const char* key, int64_t fallback) {
  return has(op, key) ? int_of(op, key) : fallback;
}

double PnnxImporter::float_of(const Op& op, const char* key, double fallback) {
  const std::optional<Term> t = setting(op, key);
  if (!t) return fallback;
  if (t->kind != Term::Kind::Number)
    fail(op, std::string("the setting '") + key + "' must be a number");
  return t->number;
}

bool PnnxImporter::bool_of(const Op& op, const char* key, bool fallback) {
  return float_of(op, key, fallback ? 1.0 : 0.0) != 0.0;
}

std::string PnnxImporter::str_of(const Op& op, const char* key, const std::string& fallback) {
  auto p = op.params.find(key);
  if (p == op.params.end() || p->second.kind == PnnxValue::Kind::None) return fallback;
  return p->second.text;
}

Tensor PnnxImporter::weight_tensor(const Op& op, const std::string& key) {
  auto w = op.weights.find(key);
  if (w == op.weights.end()) fail(op, "the weight @" + key + " is missing");
  const PnnxShape& s = w->second;
  ScalarType dtype = kFloat;
  const int size = pnnx_dtype_size(s.dtype);
  if (size == 0 || !pnnx_dtype(s.dtype, dtype))
    fail(op, "the weight @" + key + " has the dtype '" + s.dtype +
                 "' (nabla reads f32, f64, f16, bf16, i64, i32, i16, i8, u8, bool)");
  int64_t numel = 1;
  for (int64_t d : s.dims) {
    if (d < 0 || (d > 0 && numel > (int64_t{1} << 40) / d))
      fail(op, "the weight @" + key + " has an impossible shape");
    numel *= d;
  }
  const std::string entry = op.name + "." + key;
  if (!bin_.contains(entry)) fail(op, "the .pnnx.bin has no entry '" + entry + "'");
  const std::string_view data = bin_.read(entry);
  const uint64_t bytes = static_cast<uint64_t>(numel) * static_cast<uint64_t>(size);
  if (data.size() != bytes)
    fail(op, "the .pnnx.bin entry '" + entry + "' holds " + std::to_string(data.size()) +
                 " bytes, its shape and dtype need " + std::to_string(bytes));
  Tensor out = empty(s.dims, TensorOptions(dtype));
  if (bytes) std::memcpy(out.data_ptr(), data.data(), bytes);  // little-endian, unaligned
  if (dtype == kBool)
    for (int64_t k = 0; k < numel; ++k)
      if (static_cast<unsigned char>(data[static_cast<size_t>(k)]) > 1)
        fail(op, "the bool weight @" + key + " holds a byte other than 0 and 1");
  return out;
}

Value PnnxImporter::weight(const Op& op, const std::string& key, bool trainable) {
  Tensor t = weight_tensor(op, key);
  const std::string name = op.type == "pnnx.Attribute" ? op.name : op.name + "." + key;
  if (trainable && t.is_floating_point()) return g_.parameter(name, std::move(t));
  return g_.constant(std::move(t), name);
}

Tensor PnnxImporter::example_of(Value v) {
  for (const Value& in : g_.inputs()) {
    auto s = pnnx_.operand_shapes.find(operand_of_input_.at(in.name()));
    NABLA_CHECK(in.value().defined(), "it needs the shape of the input '", in.name(),
                "', which the file gives as ",
                s == pnnx_.operand_shapes.end() ? "unknown" : shape_text(s->second.dims),
                ": pass the input shapes to load_pnnx");
  }
  NoGradGuard no_grad;
  return g_.forward(v);
}

std::vector<int64_t> PnnxImporter::shape_of(Value v) {
  shapes_used_ = true;  // the graph now depends on the example inputs' shapes
  return example_of(v).sizes().vec();
}

Value PnnxImporter::call(const Op& op, const std::string& name, std::vector<Value> inputs,
                         ops::Attributes attrs, bool final) {
  return g_.call(name, std::move(inputs), std::move(attrs),
                 final ? op.name : op.name + ":" + std::to_string(helper_nodes_++));
}

void PnnxImporter::define(const Op& op, size_t i, Term t) {
  if (i >= op.outputs.size()) fail(op, "it has no output " + std::to_string(i));
  operands_[op.outputs[i]] = std::move(t);
}

// ---- pnnx's own operators

// Note [PNNX operands]: the example input, zeros of the annotated shape or the given one.
void PnnxImporter::input_op(const Op& op) {
  if (op.outputs.size() != 1) fail(op, "an input has one output");
  const size_t index = g_.inputs().size();
  Value v = g_.input(op.name);
  define(op, v);
  operand_of_input_[op.name] = op.outputs[0];
  auto s = pnnx_.operand_shapes.find(op.outputs[0]);
  PnnxShape shape = s != pnnx_.operand_shapes.end() ? s->second : PnnxShape{};
  ScalarType dtype = kFloat;
  if (!shape.dtype.empty() && !pnnx_dtype(shape.dtype, dtype))
    fail(op, "the input's dtype '" + shape.dtype + "' is not one nabla reads");
  if (index < input_shapes_.size()) {
    const auto& given = input_shapes_[index];
    if (s != pnnx_.operand_shapes.end() && !shape_fits(shape.dims, given))
      fail(op, "the input shape given, " + shape_text(given) + ", does not fit the file's " +
                   shape_text(shape.dims));
    shape.dims = given;
  } else if (s == pnnx_.operand_shapes.end() ||
             std::any_of(shape.dims.begin(), shape.dims.end(), [](int64_t d) { return d < 0; })) {
    return;  // no example: an operator that needs a shape says so (example_of)
  }
  g_.set_value(v, zeros(shape.dims, TensorOptions(dtype)));
}

Term PnnxImporter::binary(const Op& op, const std::string& f, const Term& a, const Term& b) {
  if (a.kind == Term::Kind::Number && b.kind == Term::Kind::Number) {
    Term out;
    if (!number_op(f, a, b, out)) fail(op, "the function '" + f + "' on numbers is not supported");
    return out;
  }
  auto it = binary_ops().find(f);
  if (it == binary_ops().end()) fail(op, "the function '" + f + "' on tensors is not supported");
  const std::string& name = it->second;
  auto scalar = [](const Term& t) -> ops::AttrValue {
    if (t.integral) return static_cast<int64_t>(t.number);
    return t.number;
  };
  // A tensor and a number: the number as the op's scalar argument where it has one.
  const bool commutes = name == "add" || name == "mul";
  if (a.kind == Term::Kind::Value && b.kind == Term::Kind::Number) {
    if (name == "pow")
      return Term::of(call(op, "pow", {a.value}, {{"exponent", scalar(b)}}, false));
    if (name == "add" || name == "sub" || name == "mul" || name == "div" ||
        name == "floor_divide" || name == "remainder" || name == "fmod")
      return Term::of(call(op, name, {a.value}, {{"other", scalar(b)}}, false));
  }
  if (commutes && a.kind == Term::Kind::Number && b.kind == Term::Kind::Value)
    return Term::of(call(op, name, {b.value}, {{"other", scalar(a)}}, false));
  // Otherwise a 0-d constant, typed as Python's scalar would be: the tensor's dtype, or
  // float32 for a float number with an integer tensor.
  auto as_operand = [&](const Term& t, const Term& other) {
    if (t.kind != Term::Kind::Number || other.kind != Term::Kind::Value) return as_value(op, t);
    const ScalarType like = example_of(other.value).scalar_type();
    const bool floating = isFloatingType(like);
    const ScalarType dtype = t.integral || floating ? like : kFloat;
    return g_.constant(scalar_tensor(t.number, TensorOptions(dtype)));
  };
  return Term::of(call(op, name, {as_operand(a, b), as_operand(b, a)}, {}, false));
}

Term PnnxImporter::eval_call(const Op& op, const PnnxExpr& e) {
  const std::string& f = e.name;
  ScalarType dtype = kFloat;
  if (f == "size") {
    if (e.args.empty() || e.args.size() > 2) fail(op, "size() takes one or two arguments");
    const Term x = eval(op, e.args[0]);
    if (x.kind != Term::Kind::Value) fail(op, "size() of something that is not a tensor");
    const auto shape = shape_of(x.value);
    if (e.args.size() == 1) {
      Term list;
      list.kind = Term::Kind::List;
      for (int64_t d : shape) list.items.push_back(Term::num(static_cast<double>(d), true));
      return list;
    }
    const Term d = eval(op, e.args[1]);
    const auto rank = static_cast<int64_t>(shape.size());
    int64_t dim = static_cast<int64_t>(d.number);
    dim = dim < 0 ? dim + rank : dim;
    if (d.kind != Term::Kind::Number || dim < 0 || dim >= rank)
      fail(op, "size() of a dimension the tensor does not have");
    return Term::num(static_cast<double>(shape[static_cast<size_t>(dim)]), true);
  }
  if (e.args.size() == 1) {
    const Term x = eval(op, e.args[0]);
    const bool number = x.kind == Term::Kind::Number;
    if (f == "int" || f == "float" || f == "bool") {
      if (!number) fail(op, f + "() of a tensor: its value is not known at import");
      if (f == "int") return Term::num(std::trunc(x.number), true);
      if (f == "bool") return Term::num(x.number != 0, true);
      return Term::num(x.number, false);
    }
    if (torch_dtype(f, dtype)) {
      if (!number) return Term::of(call(op, "to", {as_value(op, x)}, {{"dtype", dtype}}, false));
      if (dtype == kBool) return Term::num(x.number != 0, true);
      return isFloatingType(dtype) ? Term::num(x.number, false)
                                   : Term::num(std::trunc(x.number), true);
    }
    if (auto u = unary_functions().find(f); u != unary_functions().end()) {
      if (!number) return Term::of(call(op, f, {as_value(op, x)}, {}, false));
      const bool rounds = f == "floor" || f == "ceil" || f == "round" || f == "trunc";
      const bool keeps = f == "abs" || f == "neg" || f == "square" || f == "sign";
      return Term::num(u->second(x.number), rounds || (keeps && x.integral));
    }
  }
  if (e.args.size() == 2) return binary(op, f, eval(op, e.args[0]), eval(op, e.args[1]));
  fail(op, "the function '" + f + "' with " + std::to_string(e.args.size()) +
               " arguments is not supported in expressions");
}

Term PnnxImporter::eval(const Op& op, const PnnxExpr& e) {
  switch (e.kind) {
    case PnnxExpr::Kind::Input:
      if (e.integer < 0 || static_cast<size_t>(e.integer) >= op.inputs.size())
        fail(op, "@" + std::to_string(e.integer) + " is not one of its inputs");
      return term(op, static_cast<size_t>(e.integer));
    case PnnxExpr::Kind::Int:
    case PnnxExpr::Kind::Bool:
      return Term::num(static_cast<double>(e.integer), true);
    case PnnxExpr::Kind::Float:
      return Term::num(e.number, false);
    case PnnxExpr::Kind::None:
      return Term{};
    case PnnxExpr::Kind::Word:
      fail(op, "the word '" + e.name + "' in an expression");
    case PnnxExpr::Kind::List: {
      Term list;
      list.kind = Term::Kind::List;
      for (const auto& a : e.args) list.items.push_back(eval(op, a));
      return list;
    }
    case PnnxExpr::Kind::Call:
      return eval_call(op, e);
  }
  fail(op, "unreachable");
}

void PnnxImporter::expression(const Op& op) {
  auto p = op.params.find("expr");
  if (p == op.params.end()) fail(op, "it has no expr=");
  const PnnxExpr e = parse_pnnx_expression(p->second.text, "operator '" + op.name + "'");
  define(op, 0, eval(op, e));
}

void PnnxImporter::map(const Op& op) {
  const std::string& type = op.type;
  if (type == "pnnx.Input") return input_op(op);
  if (type == "pnnx.Output") {
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const Term& t = term(op, i);
      if (t.kind == Term::Kind::List)
        for (const Term& item : t.items) outputs_.push_back(as_value(op, item));
      else
        outputs_.push_back(as_value(op, t));
    }
    return;
  }
  if (type == "pnnx.Attribute")
    return define(op, weight(op, "data", op.name.rfind("pnnx_fold_", 0) != 0));
  if (type == "pnnx.Expression") return expression(op);
  if (type == "prim::TupleConstruct" || type == "prim::ListConstruct" ||
      type == "pnnx.SliceIndexes") {
    Term list;
    list.kind = Term::Kind::List;
    if (type == "pnnx.SliceIndexes") {  // indexes=(0,@0,0): numbers and inputs
      auto p = op.params.find("indexes");
      if (p == op.params.end()) fail(op, "it has no indexes=");
      for (const std::string& s : p->second.strings) {  // a list with an input: strings
        int64_t k = 0;
        const PnnxValue v = parse_pnnx_value(s[0] == '@' ? s.substr(1) : s);
        if (v.kind != PnnxValue::Kind::Int) fail(op, "indexes holds '" + s + "'");
        k = v.ints[0];
        list.items.push_back(s[0] == '@' ? term(op, static_cast<size_t>(k))
                                         : Term::num(static_cast<double>(k), true));
      }
      for (int64_t x : p->second.ints)
        list.items.push_back(Term::num(static_cast<double>(x), true));
    } else {
      for (size_t i = 0; i < op.inputs.size(); ++i) list.items.push_back(term(op, i));
    }
    return define(op, 0, std::move(list));
  }
  if (type == "prim::TupleUnpack" || type == "prim::ListUnpack") {
    const Term list = term(op, 0);
    if (list.kind != Term::Kind::List || list.items.size() != op.outputs.size())
      fail(op, "it unpacks something that is not a list of its outputs' length");
    for (size_t i = 0; i < op.outputs.size(); ++i) define(op, i, list.items[i]);
    return;
  }
  const auto& table = pnnx_operator_table();
  auto it = table.find(type);
  if (it != table.end()) return it->second(*this, op);
  if (!map_by_schema(op)) fail(op, "the operator type is not supported by nabla's importer yet");
}

// Note [PNNX by schema]: a function operator the table does not list ("F.avg_pool3d",
// "torch.conv_tbc") whose op is declared by a schema row is read from the row: each input
// from the `$` argument of its name (or by position), each attribute from the setting of its
// name, as the attribute's type reads it. Python's string reductions ("none", "mean",
// "sum") become the Reduction enum the ops take.
bool PnnxImporter::map_by_schema(const Op& op) {
  std::string name;
  for (const char* prefix : {"F.", "torch."})
    if (op.type.rfind(prefix, 0) == 0) name = op.type.substr(std::string_view(prefix).size());
  const ops::OpSchema* s = name.empty() ? nullptr : ops::find_schema(name);
  if (!s || s->input_names.empty()) return false;
  std::vector<Value> inputs;
  const bool named = std::any_of(op.input_args.begin(), op.input_args.end(),
                                 [](const std::string& a) { return !a.empty(); });
  for (size_t k = 0; k < s->input_names.size(); ++k) {
    if (s->max_inputs < 0 && k + 1 == s->input_names.size()) {  // a list: the rest
      for (size_t i = inputs.size(); i < op.inputs.size(); ++i) inputs.push_back(in(op, i));
      break;
    }
    const int i = named ? arg_index(op, s->input_names[k].c_str())
                        : (k < op.inputs.size() ? static_cast<int>(k) : -1);
    inputs.push_back(i >= 0 ? in(op, static_cast<size_t>(i)) : Value());
  }
  while (!inputs.empty() && !inputs.back().defined()) inputs.pop_back();
  for (Value& v : inputs)
    if (!v.defined()) v = g_.constant(Tensor());  // an absent optional input before a given one
  ops::Attributes attrs;
  for (const ops::AttrSpec& a : s->attrs) {
    const char* key = a.name.c_str();
    auto p = op.params.find(a.name);
    const bool text = p != op.params.end() && p->second.kind == PnnxValue::Kind::String;
    if (text && (a.type == ops::AttrType::String || a.also == ops::AttrType::String)) {
      attrs.push_back({a.name, p->second.text});
    } else if (text && a.type == ops::AttrType::Dtype) {
      ScalarType dtype{};
      if (!torch_dtype(p->second.text, dtype)) fail(op, "the dtype '" + p->second.text + "'");
      attrs.push_back({a.name, dtype});
    } else if (text && a.name == "reduction" && a.type == ops::AttrType::Int) {
      const std::string& r = p->second.text;
      if (r != "none" && r != "mean" && r != "sum")
        fail(op, "reduction=" + r + " (expected none, mean or sum)");
      attrs.push_back({a.name, int64_t{r == "none" ? 0 : r == "mean" ? 1 : 2}});
    } else if (has(op, key)) {
      switch (a.type) {
        case ops::AttrType::Bool:
          attrs.push_back({a.name, bool_of(op, key, false)});
          break;
        case ops::AttrType::Int:
          attrs.push_back({a.name, int_of(op, key)});
          break;
        case ops::AttrType::Double:
          attrs.push_back({a.name, float_of(op, key, 0.0)});
          break;
        case ops::AttrType::IntList:
          attrs.push_back({a.name, ints_of(op, key)});
          break;
        default:
          fail(op, "the setting '" + a.name + "' is not a " + to_string(a.type));
      }
    }
  }
  Value v = call(op, name, std::move(inputs), std::move(attrs));
  for (size_t i = 0; i < op.outputs.size(); ++i)
    define(op, i, Term::of(op.outputs.size() > 1 ? v.output(static_cast<int64_t>(i)) : v));
  return true;
}

Graph PnnxImporter::run() {
  for (const Op& op : pnnx_.operators) {
    try {
      map(op);
    } catch (const Error& e) {
      const std::string what = e.what();
      if (what.rfind("load_pnnx:", 0) == 0) throw;
      fail(op, what);
    }
    for (size_t i = 0; i < op.outputs.size(); ++i)
      if (!operands_.count(op.outputs[i]))
        fail(op, "its output " + std::to_string(i) + " is not mapped");
  }
  g_.set_outputs(std::move(outputs_));
  if (shapes_used_) fix_example_shapes(g_);  // Note [Import shapes]
  return std::move(g_);
}

}  // namespace detail

Graph load_pnnx(const std::string& param_path, const std::string& bin_path,
                const std::vector<std::vector<int64_t>>& input_shapes) {
  std::ifstream in(param_path, std::ios::binary);
  NABLA_CHECK(in.is_open(), "load_pnnx: cannot open '", param_path, "'");
  std::stringstream text;
  text << in.rdbuf();
  detail::PnnxGraph parsed = detail::parse_pnnx_param(text.str(), param_path);
  auto file = serialize::detail::MappedFile::open(bin_path, "load_pnnx");
  serialize::detail::ZipArchive bin(file->bytes(), bin_path, "load_pnnx");
  return detail::PnnxImporter(std::move(parsed), bin, param_path, input_shapes).run();
}

}  // namespace nabla::graph
