// The registry entries of the schema rows (ops/registry/schema_rows.h): every row of
// include/nabla/ops/schema/all.def and factories.def, as one registry family.
#include "ops/registry/schema_rows.h"

#include <algorithm>

#include "nabla/core/error.h"
#include "nabla/ops/loss.h"  // the rows' defaults (Reduction)
#include "ops/registry/registry_impl.h"

namespace nabla::ops::registry {

SchemaRow::SchemaRow(const char* name) {
  schema_.name = name;
  schema_.min_inputs = schema_.max_inputs = 0;
}

SchemaRow& SchemaRow::input(const char* name) {
  NABLA_ASSERT(schema_.max_inputs >= 0 && schema_.min_inputs == schema_.max_inputs, schema_.name,
               ": a required input after an optional one or a list");
  ++schema_.min_inputs;
  ++schema_.max_inputs;
  schema_.input_names.emplace_back(name);
  return *this;
}

SchemaRow& SchemaRow::optional_input(const char* name) {
  NABLA_ASSERT(schema_.max_inputs >= 0, schema_.name, ": an input after a list");
  ++schema_.max_inputs;
  schema_.input_names.emplace_back(name);
  return *this;
}

SchemaRow& SchemaRow::input_list(const char* name) {
  schema_.max_inputs = -1;
  schema_.input_names.emplace_back(name);
  return *this;
}

SchemaRow& SchemaRow::attr(const char* name, AttrType type) {
  schema_.attrs.push_back(required_attr(name, type));
  return *this;
}

SchemaRow& SchemaRow::attr(const char* name, AttrType type, AttrValue default_value) {
  schema_.attrs.push_back(registry::attr(name, type, std::move(default_value)));
  return *this;
}

SchemaRow& SchemaRow::optional_attr(const char* name, AttrType type) {
  schema_.attrs.push_back(registry::optional_attr(name, type));
  return *this;
}

OpSchema SchemaRow::take(OpFn fn) {
  schema_.fn = fn;
  return std::move(schema_);
}

namespace {

AttrSpec* find_attr(std::vector<AttrSpec>& specs, const std::string& name) {
  auto it =
      std::find_if(specs.begin(), specs.end(), [&](const AttrSpec& s) { return s.name == name; });
  return it == specs.end() ? nullptr : &*it;
}

}  // namespace

void add_row(std::vector<OpSchema>& table, OpSchema row) {
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const OpSchema& s) { return s.name == row.name; });
  if (it == table.end()) {
    table.push_back(std::move(row));
    return;
  }
  // Another form of an op: its attributes without a default take an earlier form's
  // default of the same name and type; the entry's own schema becomes their union.
  OpSchema& op = *it;
  if (op.overloads.empty()) op.overloads.push_back({op.min_inputs, op.max_inputs, op.attrs, op.fn});
  for (AttrSpec& a : row.attrs) {
    if (a.default_value) continue;
    for (OpOverload& earlier : op.overloads) {
      const AttrSpec* e = find_attr(earlier.attrs, a.name);
      if (e && e->type == a.type && e->default_value) {
        a.default_value = e->default_value;
        a.required = false;
        break;
      }
    }
  }
  for (const AttrSpec& a : row.attrs) {
    AttrSpec* u = find_attr(op.attrs, a.name);
    if (!u) {
      op.attrs.push_back(a);
    } else if (u->type != a.type) {
      NABLA_ASSERT(!u->also || *u->also == a.type, op.name, ": attribute ", a.name,
                   " of more than two types");
      u->also = a.type;
    }
  }
  for (AttrSpec& u : op.attrs) u.required = false;  // each form checks its own
  op.min_inputs = std::min(op.min_inputs, row.min_inputs);
  op.max_inputs =
      op.max_inputs < 0 || row.max_inputs < 0 ? -1 : std::max(op.max_inputs, row.max_inputs);
  op.overloads.push_back({row.min_inputs, row.max_inputs, std::move(row.attrs), row.fn});
}

}  // namespace nabla::ops::registry

// The public functions, declared again (without defaults) for the entries to call.
namespace nabla {
#define NABLA_OP NABLA_OP_REDECLARE
#define NABLA_METHOD_OP NABLA_OP_REDECLARE
#include "nabla/ops/schema/all.def"
#include "nabla/ops/schema/factories.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
}  // namespace nabla

namespace nabla::ops::registry {

void add_schema_ops(std::vector<OpSchema>& table) {
#define NABLA_OP NABLA_OP_REGISTER
#define NABLA_METHOD_OP NABLA_OP_REGISTER
#include "nabla/ops/schema/all.def"
#include "nabla/ops/schema/factories.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
}

}  // namespace nabla::ops::registry
