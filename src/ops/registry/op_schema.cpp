// Operator schemas (nabla/ops/library.h): the subset of LibTorch's schema language that
// custom operators are written in.
//   schema   := [ns "::"] name ["." overload] "(" [arg {"," arg}] ")" "->" returns
//   arg      := "*" | type name ["=" default]          ("*": the rest are keyword-only)
//   type     := base {"(" alias ")" | "[" [N] "]" | "?"}
//   returns  := type [name] | "(" [type [name] {"," type [name]}] ")"
//   alias    := set ["!"] ["->" ...]                    ((a) reads, (a!) writes set a)
#include <cctype>
#include <ostream>
#include <sstream>

#include "nabla/core/error.h"
#include "nabla/ops/library.h"

namespace nabla {

namespace {

const char* const kBaseTypes[] = {"Tensor",       "int",       "float",      "bool",    "str",
                                  "Scalar",       "SymInt",    "ScalarType", "Device",  "Layout",
                                  "MemoryFormat", "Generator", "Dimname",    "Storage", "Stream",
                                  "complex",      "QScheme",   "Any",        "t",       "number"};

class SchemaParser {
 public:
  explicit SchemaParser(std::string_view text) : s_(text) {}

  FunctionSchema parse() {
    std::string full = identifier("an operator name");
    if (peek("::")) {
      pos_ += 2;
      full += "::" + identifier("an operator name after '::'");
    }
    std::string overload;
    if (peek(".")) {
      ++pos_;
      overload = identifier("an overload name after '.'");
    }
    expect("(");
    std::vector<Argument> args;
    bool kwarg_only = false;
    skip_space();
    if (!peek(")")) {
      for (;;) {
        skip_space();
        if (peek("*")) {
          ++pos_;
          kwarg_only = true;
        } else {
          args.push_back(argument(kwarg_only, /*is_return=*/false));
        }
        skip_space();
        if (peek(")")) break;
        expect(",");
      }
    }
    expect(")");
    expect("->");
    std::vector<Argument> rets;
    skip_space();
    if (peek("(")) {
      ++pos_;
      skip_space();
      if (!peek(")")) {
        for (;;) {
          rets.push_back(argument(false, /*is_return=*/true));
          skip_space();
          if (peek(")")) break;
          expect(",");
        }
      }
      expect(")");
    } else {
      rets.push_back(argument(false, /*is_return=*/true));
    }
    skip_space();
    if (pos_ != s_.size()) fail("the end of the schema");
    return FunctionSchema(std::move(full), std::move(overload), std::move(args), std::move(rets));
  }

 private:
  Argument argument(bool kwarg_only, bool is_return) {
    skip_space();
    const std::string base = identifier("a type");
    bool known = false;
    for (const char* b : kBaseTypes) known = known || base == b;
    if (!known) {
      pos_ -= base.size();
      fail("a type (Tensor, int, float, bool, str, Scalar, ScalarType, Device, ...)");
    }
    std::string type = base, alias;
    bool write = false;
    int lists = 0, optionals_before_list = 0, optionals_after_list = 0;
    for (;;) {
      if (peek("(")) {
        ++pos_;
        const size_t close = s_.find(')', pos_);
        if (close == std::string_view::npos) fail("')' closing the alias annotation");
        std::string_view a = s_.substr(pos_, close - pos_);
        if (const size_t arrow = a.find("->"); arrow != std::string_view::npos)
          a = a.substr(0, arrow);
        while (!a.empty() && std::isspace(static_cast<unsigned char>(a.back()))) a.remove_suffix(1);
        if (!a.empty() && a.back() == '!') {
          write = true;
          a.remove_suffix(1);
        }
        alias = std::string(a);
        if (alias.empty()) fail("an alias set name inside '(...)'");
        pos_ = close + 1;
      } else if (peek("[")) {
        const size_t close = s_.find(']', pos_);
        if (close == std::string_view::npos) fail("']'");
        type += std::string(s_.substr(pos_, close + 1 - pos_));
        pos_ = close + 1;
        ++lists;
      } else if (peek("?")) {
        ++pos_;
        type += "?";
        (lists ? optionals_after_list : optionals_before_list)++;
      } else {
        break;
      }
    }
    TensorKind kind = TensorKind::None;
    if (base == "Tensor" && lists == 0)
      kind = optionals_before_list ? TensorKind::OptionalTensor : TensorKind::Tensor;
    else if (base == "Tensor" && lists == 1)
      kind = optionals_before_list ? TensorKind::OptionalTensorList : TensorKind::TensorList;
    skip_space();
    std::string name;
    if (!is_return || (pos_ < s_.size() && is_ident_start(s_[pos_])))
      name = identifier(is_return ? "a return name" : "an argument name after its type");
    optional<std::string> def;
    skip_space();
    if (!is_return && peek("=")) {
      ++pos_;
      def = default_value();
    }
    return Argument(std::move(name), std::move(type), kind, std::move(alias), write, std::move(def),
                    kwarg_only);
  }

  // A default runs to the next ',' or ')' outside brackets and quotes.
  std::string default_value() {
    skip_space();
    const size_t start = pos_;
    int depth = 0;
    char quote = 0;
    for (; pos_ < s_.size(); ++pos_) {
      const char c = s_[pos_];
      if (quote) {
        if (c == quote && s_[pos_ - 1] != '\\') quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '[' || c == '(') {
        ++depth;
      } else if ((c == ']' || c == ')') && depth > 0) {
        --depth;
      } else if ((c == ',' || c == ')') && depth == 0) {
        break;
      }
    }
    std::string v(s_.substr(start, pos_ - start));
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
    if (v.empty()) fail("a default value after '='");
    return v;
  }

  static bool is_ident_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
  }
  std::string identifier(const char* what) {
    skip_space();
    const size_t start = pos_;
    if (pos_ < s_.size() && is_ident_start(s_[pos_]))
      while (pos_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
        ++pos_;
    if (pos_ == start) fail(what);
    return std::string(s_.substr(start, pos_ - start));
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool peek(std::string_view tok) {
    skip_space();
    return s_.substr(pos_, tok.size()) == tok;
  }
  void expect(std::string_view tok) {
    if (!peek(tok)) fail(("'" + std::string(tok) + "'").c_str());
    pos_ += tok.size();
  }
  [[noreturn]] void fail(const char* expected) {
    throw Error(str("parse_schema: could not parse the schema \"", s_, "\": expected ", expected,
                    " at position ", pos_, " (\"", s_.substr(pos_, 12), "\")"));
  }

  std::string_view s_;
  size_t pos_ = 0;
};

void write_argument(std::ostream& os, const Argument& a) {
  // The alias annotation goes after the base type, as LibTorch prints it.
  const std::string& t = a.type();
  size_t base_end = 0;
  while (base_end < t.size() &&
         (std::isalnum(static_cast<unsigned char>(t[base_end])) || t[base_end] == '_'))
    ++base_end;
  os << t.substr(0, base_end);
  if (a.is_aliasing()) os << '(' << a.alias_set() << (a.is_write() ? "!" : "") << ')';
  os << t.substr(base_end);
  if (!a.name().empty()) os << ' ' << a.name();
  if (a.default_value()) os << '=' << *a.default_value();
}

}  // namespace

FunctionSchema parse_schema(std::string_view text) { return SchemaParser(text).parse(); }

std::string FunctionSchema::str() const {
  std::ostringstream os;
  os << *this;
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const FunctionSchema& schema) {
  os << schema.name();
  if (!schema.overload_name().empty()) os << '.' << schema.overload_name();
  os << '(';
  bool kwarg_marker = false;
  for (size_t i = 0; i < schema.arguments().size(); ++i) {
    const Argument& a = schema.arguments()[i];
    if (i) os << ", ";
    if (a.kwarg_only() && !kwarg_marker) {
      os << "*, ";
      kwarg_marker = true;
    }
    write_argument(os, a);
  }
  os << ") -> ";
  const auto& rets = schema.returns();
  if (rets.size() == 1) {
    write_argument(os, rets[0]);
  } else {
    os << '(';
    for (size_t i = 0; i < rets.size(); ++i) {
      if (i) os << ", ";
      write_argument(os, rets[i]);
    }
    os << ')';
  }
  return os;
}

}  // namespace nabla
