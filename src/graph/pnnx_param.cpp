// Parsers of src/graph/pnnx_param.h: the .pnnx.param text, its values and expressions.
#include "graph/pnnx_param.h"

#include <charconv>
#include <cmath>
#include <set>
#include <sstream>

#include "nabla/core/error.h"

namespace nabla::graph::detail {

namespace {

bool starts_number(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.');
}

bool looks_float(std::string_view s) {
  return s.find_first_of(".eE") != std::string_view::npos ||
         s.find("inf") != std::string_view::npos || s.find("nan") != std::string_view::npos;
}

// The whole of `s` as a number, or false.
bool to_int(std::string_view s, int64_t& out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}
bool to_float(std::string_view s, double& out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t at = 0;
  while (true) {
    const size_t next = s.find(sep, at);
    parts.push_back(
        s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) return parts;
    at = next + 1;
  }
}

}  // namespace

int pnnx_dtype_size(const std::string& dtype) {
  if (dtype == "f32" || dtype == "i32") return 4;
  if (dtype == "f64" || dtype == "i64") return 8;
  if (dtype == "f16" || dtype == "bf16" || dtype == "i16") return 2;
  if (dtype == "u8" || dtype == "i8" || dtype == "bool") return 1;
  return 0;
}

PnnxValue parse_pnnx_value(std::string_view text) {
  PnnxValue v;
  v.text = std::string(text);
  if (text == "None" || text == "()" || text == "[]") return v;
  if (text == "True" || text == "False") {
    v.kind = PnnxValue::Kind::Bool;
    v.ints = {text == "True"};
    v.floats = {text == "True" ? 1.0 : 0.0};
    return v;
  }
  const bool list = !text.empty() && (text[0] == '(' || text[0] == '[');
  if (list) {
    const char close = text[0] == '(' ? ')' : ']';
    NABLA_CHECK(text.back() == close, "'", text, "' is an unterminated list");
    text = text.substr(1, text.size() - 2);
  }
  std::vector<std::string_view> parts =
      list ? split(text, ',') : std::vector<std::string_view>{text};
  bool numbers = true, floats = false;
  for (auto p : parts) {
    numbers = numbers && starts_number(p);
    floats = floats || looks_float(p);
  }
  if (!numbers) {
    v.kind = list ? PnnxValue::Kind::StringList : PnnxValue::Kind::String;
    for (auto p : parts) v.strings.emplace_back(p);
    return v;
  }
  for (auto p : parts) {
    double f = 0;
    int64_t i = 0;
    if (floats) {
      NABLA_CHECK(to_float(p, f), "'", p, "' is not a number");
    } else {
      NABLA_CHECK(to_int(p, i), "'", p, "' is not an integer");
      f = static_cast<double>(i);
      v.ints.push_back(i);
    }
    v.floats.push_back(f);
  }
  using K = PnnxValue::Kind;
  v.kind = list ? (floats ? K::FloatList : K::IntList) : (floats ? K::Float : K::Int);
  return v;
}

namespace {

// `(d0,d1,...)dtype`, `?` for an unknown size.
PnnxShape parse_shape(std::string_view s) {
  const size_t close = s.rfind(')');
  NABLA_CHECK(!s.empty() && s[0] == '(' && close != std::string_view::npos, "'", s,
              "' is not a shape (expected (d0,d1,...)dtype)");
  PnnxShape shape;
  shape.dtype = std::string(s.substr(close + 1));
  const std::string_view dims = s.substr(1, close - 1);
  if (dims.empty()) return shape;
  for (auto d : split(dims, ',')) {
    int64_t n = -1;
    NABLA_CHECK(d == "?" || (to_int(d, n) && n >= 0), "'", s, "' has the size '", d,
                "' (expected a size or ?)");
    shape.dims.push_back(d == "?" ? -1 : n);
  }
  return shape;
}

}  // namespace

PnnxGraph parse_pnnx_param(std::string_view text, const std::string& source) {
  PnnxGraph g;
  std::istringstream in{std::string(text)};
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) {
    NABLA_CHECK(false, "load_pnnx: '", source, "' line ", line_no, ": ", what);
  };
  ++line_no;
  if (!std::getline(in, line) || line.rfind("7767517", 0) != 0)
    fail("not a .pnnx.param file (its first line is not the magic 7767517)");
  ++line_no;
  int64_t op_count = 0, operand_count = 0;
  if (!std::getline(in, line)) fail("the operator and operand counts are missing");
  std::istringstream counts(line);
  if (!(counts >> op_count >> operand_count) || op_count < 0 || operand_count < 0)
    fail("expected '<operator count> <operand count>', got '" + line + "'");
  std::set<std::string> defined;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream words(line);
    std::vector<std::string> tok;
    for (std::string w; words >> w;) tok.push_back(std::move(w));
    if (tok.empty()) continue;
    if (static_cast<int64_t>(g.operators.size()) == op_count)
      fail("more operators than the " + std::to_string(op_count) + " the file declares");
    PnnxOperator op;
    op.line = line_no;
    int64_t n_in = -1, n_out = -1;
    if (tok.size() < 4 || !to_int(tok[2], n_in) || !to_int(tok[3], n_out) || n_in < 0 ||
        n_out < 0 || static_cast<int64_t>(tok.size()) < 4 + n_in + n_out)
      fail("expected '<type> <name> <inputs> <outputs> <operands...>', got '" + line + "'");
    op.type = tok[0];
    op.name = tok[1];
    for (int64_t i = 0; i < n_in; ++i) {
      const std::string& name = tok[4 + i];
      if (!defined.count(name))
        fail("operator '" + op.name + "' reads operand '" + name +
             "', which no earlier line defines");
      op.inputs.push_back(name);
    }
    for (int64_t i = 0; i < n_out; ++i) {
      const std::string& name = tok[4 + n_in + i];
      if (!defined.insert(name).second) fail("operand '" + name + "' is defined twice");
      op.outputs.push_back(name);
    }
    op.input_args.resize(op.inputs.size());
    for (size_t t = 4 + n_in + n_out; t < tok.size(); ++t) {
      const std::string& item = tok[t];
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0) fail("'" + item + "' is not a key=value item");
      const std::string key = item.substr(0, eq);
      const std::string_view value = std::string_view(item).substr(eq + 1);
      try {
        if (key[0] == '@') {
          op.weights[key.substr(1)] = parse_shape(value);
        } else if (key[0] == '#') {
          g.operand_shapes[key.substr(1)] = parse_shape(value);
        } else if (key[0] == '$') {
          bool found = false;
          for (size_t i = 0; i < op.inputs.size() && !found; ++i)
            if (op.inputs[i] == value && op.input_args[i].empty()) {
              op.input_args[i] = key.substr(1);
              found = true;
            }
          if (!found) fail("'" + item + "' names an operand that is not an input of the line");
        } else {
          op.params[key] = parse_pnnx_value(value);
        }
      } catch (const Error& e) {
        fail("operator '" + op.name + "': item '" + item + "': " + e.what());
      }
    }
    g.operators.push_back(std::move(op));
  }
  if (static_cast<int64_t>(g.operators.size()) != op_count)
    fail("the file declares " + std::to_string(op_count) + " operators and holds " +
         std::to_string(g.operators.size()));
  return g;
}

// ---- expressions: f(a,b), @0, numbers, words, [a,b]

namespace {

class ExprParser {
 public:
  ExprParser(std::string_view text, const std::string& where) : s_(text), where_(where) {}
  PnnxExpr parse() {
    PnnxExpr e = term();
    if (at_ != s_.size()) fail("unexpected '" + std::string(s_.substr(at_)) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    NABLA_CHECK(false, where_, ": the expression '", s_, "': ", what);
  }
  bool eat(char c) {
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  std::vector<PnnxExpr> items(char close) {
    std::vector<PnnxExpr> out;
    if (eat(close)) return out;
    while (true) {
      out.push_back(term());
      if (eat(close)) return out;
      if (!eat(','))
        fail(std::string("expected ',' or '") + close + "' at offset " + std::to_string(at_));
    }
  }
  PnnxExpr term() {
    if (++depth_ > 256) fail("nested too deeply");
    PnnxExpr e;
    if (at_ >= s_.size()) fail("ends early");
    if (eat('[')) {
      e.kind = PnnxExpr::Kind::List;
      e.args = items(']');
    } else if (eat('@')) {
      const size_t start = at_;
      while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) ++at_;
      if (!to_int(s_.substr(start, at_ - start), e.integer)) fail("'@' without an input index");
      e.kind = PnnxExpr::Kind::Input;
    } else if (starts_number(s_.substr(at_))) {
      // A literal runs to the next delimiter (a complex one, `1e+00+2e+00j`, included).
      const size_t start = at_;
      at_ = std::min(s_.find_first_of(",)]", at_), s_.size());
      const std::string_view t = s_.substr(start, at_ - start);
      if (t.back() == 'j') fail("complex numbers are not supported");
      if (looks_float(t)) {
        e.kind = PnnxExpr::Kind::Float;
        if (!to_float(t, e.number)) fail("'" + std::string(t) + "' is not a number");
      } else {
        e.kind = PnnxExpr::Kind::Int;
        if (!to_int(t, e.integer)) fail("'" + std::string(t) + "' is not an integer");
      }
    } else {
      const size_t start = at_;
      while (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) ||
                                 s_[at_] == '_' || s_[at_] == '.'))
        ++at_;
      if (at_ == start)
        fail("unexpected '" + std::string(1, s_[at_]) + "' at offset " + std::to_string(at_));
      e.name = std::string(s_.substr(start, at_ - start));
      if (eat('(')) {
        e.kind = PnnxExpr::Kind::Call;
        e.args = items(')');
      } else if (e.name == "True" || e.name == "False") {
        e.kind = PnnxExpr::Kind::Bool;
        e.integer = e.name == "True";
      } else {
        e.kind = e.name == "None" ? PnnxExpr::Kind::None : PnnxExpr::Kind::Word;
      }
    }
    --depth_;
    return e;
  }

  std::string_view s_;
  const std::string& where_;
  size_t at_ = 0;
  int depth_ = 0;
};

}  // namespace

PnnxExpr parse_pnnx_expression(std::string_view text, const std::string& where) {
  return ExprParser(text, where).parse();
}

}  // namespace nabla::graph::detail
