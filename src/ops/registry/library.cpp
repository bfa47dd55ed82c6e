// The custom operator registry and dispatcher (Note [Custom operator dispatch],
// nabla/ops/library.h), and the not-implemented fallbacks of the Autograd and
// ADInplaceOrView keys.
#include "nabla/ops/library.h"

#include <cxxabi.h>

#include <array>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

#include "nabla/autograd/record.h"
#include "nabla/core/error.h"
#include "ops/shape/views_backward.h"

namespace nabla {

namespace detail {

struct Registration {
  uint64_t id;
  CppFunction fn;
  std::string where;
};

class OperatorEntry {
 public:
  OperatorEntry(std::string name, std::string overload)
      : name_(std::move(name)),
        overload_(std::move(overload)),
        full_name_(std::make_shared<const std::string>(
            overload_.empty() ? name_ : name_ + "." + overload_)) {}

  const std::string& name() const { return name_; }
  const std::string& overload() const { return overload_; }
  const std::string& full_name() const { return *full_name_; }
  const std::shared_ptr<const std::string>& shared_name() const { return full_name_; }

  // Guarded by the registry's mutex while registering; calls read a snapshot.
  optional<FunctionSchema> schema;
  std::string schema_where;
  std::array<std::vector<Registration>, static_cast<size_t>(DispatchKey::NumKeys)> kernels;
  mutable std::mutex mutex;  // guards schema and kernels against concurrent calls

 private:
  std::string name_, overload_;
  std::shared_ptr<const std::string> full_name_;
};

}  // namespace detail

namespace {

using detail::OperatorEntry;
using detail::Registration;
using detail::SlotTensors;

struct RegistrationRecord {
  OperatorEntry* op;
  int key;  // -1: the schema
};

// Leaked on purpose: static Libraries deregister while the program exits, in an order
// relative to this registry that the language leaves open.
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<OperatorEntry>> ops;  // by "ns::op.overload"
  std::map<std::string, std::string> defined_namespaces;      // ns -> where
  std::unordered_map<uint64_t, RegistrationRecord> records;
  uint64_t next_id = 1;
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

std::string demangle(const std::type_info& t) {
  int status = 0;
  char* s = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
  std::string out = status == 0 && s ? s : t.name();
  std::free(s);
  return out;
}

const char* kind_name(TensorKind k) {
  switch (k) {
    case TensorKind::None:
      return "no tensor";
    case TensorKind::Tensor:
      return "Tensor";
    case TensorKind::OptionalTensor:
      return "Tensor? (optional<Tensor>)";
    case TensorKind::TensorList:
      return "Tensor[] (TensorList or vector<Tensor>)";
    case TensorKind::OptionalTensorList:
      return "Tensor?[] (vector<optional<Tensor>>)";
  }
  return "?";
}

// Raises unless the C++ signature has the schema's arity and holds tensors where it does.
void check_structure(const std::string& op, const FunctionSchema& schema,
                     const detail::CppSignature& sig, const char* what) {
  const auto& args = schema.arguments();
  const auto& rets = schema.returns();
  auto head = [&] {
    return str(what, ": operator ", op, " (schema ", schema, ") and the C++ signature ",
               demangle(*sig.type), ": ");
  };
  NABLA_CHECK(sig.args.size() == args.size(), head(), "the schema has ", args.size(),
              " arguments, the signature ", sig.args.size());
  for (size_t i = 0; i < args.size(); ++i)
    NABLA_CHECK(sig.args[i] == args[i].kind(), head(), "argument ", i, " (", args[i].name(),
                ") is ", kind_name(args[i].kind()), " in the schema but ", kind_name(sig.args[i]),
                " in the signature");
  NABLA_CHECK(sig.rets.size() == rets.size(), head(), "the schema returns ", rets.size(),
              " values, the signature ", sig.rets.size(),
              " (several values return as a std::tuple)");
  for (size_t i = 0; i < rets.size(); ++i)
    NABLA_CHECK(sig.rets[i] == rets[i].kind(), head(), "return ", i, " is ",
                kind_name(rets[i].kind()), " in the schema but ", kind_name(sig.rets[i]),
                " in the signature");
}

bool key_supported(DispatchKey k) {
  return k == DispatchKey::CPU || k == DispatchKey::CUDA || k == DispatchKey::ADInplaceOrView ||
         k == DispatchKey::Autograd || k == DispatchKey::CompositeImplicitAutograd;
}

const Registration* newest(const OperatorEntry& op, DispatchKey k) {
  const auto& v = op.kernels[static_cast<size_t>(k)];
  return v.empty() ? nullptr : &v.back();
}

// "op" / "op.overload" / "ns::op" of library `ns` -> ("ns::op", "overload").
std::pair<std::string, std::string> qualified(const std::string& ns, std::string_view name,
                                              const char* what) {
  std::string_view op = name, overload;
  if (const size_t dot = name.find('.'); dot != std::string_view::npos) {
    op = name.substr(0, dot);
    overload = name.substr(dot + 1);
  }
  if (const size_t colons = op.find("::"); colons != std::string_view::npos) {
    NABLA_CHECK(op.substr(0, colons) == ns, what, ": the name ", name, " is in namespace ",
                op.substr(0, colons), ", but this library registers namespace ", ns);
    return {std::string(op), std::string(overload)};
  }
  return {ns + "::" + std::string(op), std::string(overload)};
}

OperatorEntry& entry_locked(Registry& r, const std::string& name, const std::string& overload) {
  auto& slot = r.ops[overload.empty() ? name : name + "." + overload];
  if (!slot) slot = std::make_unique<OperatorEntry>(name, overload);
  return *slot;
}

// ---- The fallbacks ---------------------------------------------------------------------

struct NotImplementedState {
  std::shared_ptr<const std::string> op;
};
autograd::variable_list not_implemented_backward(autograd::OpNode<NotImplementedState>& n,
                                                 const autograd::variable_list&) {
  throw Error(str("derivative for ", *n.state.op,
                  " is not implemented: it was registered with autogradNotImplementedFallback "
                  "(register an Autograd kernel to differentiate it)"));
}
constexpr autograd::NodeType<NotImplementedState> kNotImplemented{"NotImplemented",
                                                                  not_implemented_backward};

// Sets the thread's dispatch level (dispatch_key.h) for a fallback's next steps, leaving
// grad mode alone: the ADInplaceOrView step reads the caller's.
class LevelGuard {
 public:
  explicit LevelGuard(uint8_t level) : prev_(detail::dispatch_below()) {
    if (level > prev_) detail::dispatch_below() = level;
  }
  ~LevelGuard() { detail::dispatch_below() = prev_; }
  LevelGuard(const LevelGuard&) = delete;
  LevelGuard& operator=(const LevelGuard&) = delete;

 private:
  uint8_t prev_;
};

struct Call {
  const OperatorEntry& op;
  const FunctionSchema& schema;
  const SlotTensors& inputs;
  const std::type_info& sig;
  detail::RunKernel run;
  // The newest kernel per key when the call started (null: none, or a fallthrough).
  const CppFunction *autograd, *inplace_or_view, *backend, *composite;
  DispatchKey backend_key;
};

SlotTensors run_kernel(const Call& c, const CppFunction& k, DispatchKey key) {
  NABLA_CHECK(*k.signature()->type == c.sig, c.op.full_name(), ": called with the C++ signature ",
              demangle(c.sig), ", but its ", key, " kernel takes ", demangle(*k.signature()->type));
  return c.run(k.function().get());
}

SlotTensors run_from(const Call& c, int step);

// Note [Custom operator dispatch], step 1.
SlotTensors autograd_not_implemented(const Call& c) {
  const std::string& name = c.op.full_name();
  const auto& args = c.schema.arguments();
  const auto& rets = c.schema.returns();
  int viewed_in = -1, view_out = -1;
  for (size_t i = 0; i < rets.size(); ++i)
    if (rets[i].is_aliasing() && !rets[i].is_write()) {
      NABLA_CHECK(view_out < 0, name,
                  ": Expected only a single output in the operator schema to have a non-write "
                  "alias annotation (i.e., 'Tensor(a)'); an operator without derivative whose "
                  "outputs alias several inputs is not supported: write it as a "
                  "CompositeImplicitAutograd kernel of other operators");
      view_out = static_cast<int>(i);
    }
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].is_aliasing() && !args[i].is_write()) {
      NABLA_CHECK(viewed_in < 0, name,
                  ": Expected only a single input in the operator schema to have a non-write "
                  "alias annotation (i.e., 'Tensor(a)'); write the operator as a "
                  "CompositeImplicitAutograd kernel of other operators");
      viewed_in = static_cast<int>(i);
    }
  std::vector<Tensor> needing;
  if (GradMode::is_enabled())
    for (const auto& st : c.inputs)
      if (autograd::requires_grad(*st.tensor)) needing.push_back(*st.tensor);
  if (!needing.empty())
    for (const auto& st : c.inputs)
      if (args[st.slot].is_write()) ops::check_inplace_autograd(*st.tensor, name.c_str());
  std::shared_ptr<autograd::OpNode<NotImplementedState>> node;
  if (!needing.empty()) {
    node = autograd::record_node(kNotImplemented, TensorList(needing));
    node->state.op = c.op.shared_name();
  }
  SlotTensors out;
  {
    LevelGuard below(1);
    out = run_from(c, 1);
  }
  if (!node) return out;
  for (const auto& st : out) {
    const Tensor& t = *st.tensor;
    if (!isFloatingType(t.scalar_type())) continue;
    if (rets[st.slot].is_write()) {
      // The written argument's history continues from the node (through CopySlices when
      // it is a view), as a built-in in-place op's does.
      Tensor result = t.detach();
      autograd::set_history(result, node);
      ops::rebase_history(t, result);
    } else {
      autograd::set_history(t, node);
    }
  }
  return out;
}

// Note [Custom operator dispatch], step 2.
SlotTensors inplace_or_view_not_implemented(const Call& c) {
  const std::string& name = c.op.full_name();
  const auto& args = c.schema.arguments();
  const auto& rets = c.schema.returns();
  int viewed_in = -1, view_out = -1;
  for (size_t i = 0; i < rets.size(); ++i)
    if (rets[i].is_aliasing() && !rets[i].is_write()) {
      NABLA_CHECK(view_out < 0, name,
                  ": Fallback ADInplaceOrView kernel expects only a single output in the "
                  "operator schema to have a non-write alias annotation (i.e., 'Tensor(a)')");
      view_out = static_cast<int>(i);
    }
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].is_aliasing() && !args[i].is_write()) {
      NABLA_CHECK(viewed_in < 0, name,
                  ": Fallback ADInplaceOrView kernel expects only a single input in the "
                  "operator schema to have a non-write alias annotation (i.e., 'Tensor(a)')");
      viewed_in = static_cast<int>(i);
    }
  NABLA_CHECK((viewed_in < 0 && view_out < 0) || (viewed_in == 0 && view_out == 0), name,
              ": Fallback ADInplaceOrView kernel can only create view relationships between the "
              "first input and the first output (a tensor or a list of tensors); the schema ",
              c.schema, " makes argument ", viewed_in, " and return ", view_out,
              " alias: reorder its parameters so that the viewed tensor and its view come first");
  NABLA_CHECK(viewed_in < 0 || args[0].kind() == TensorKind::Tensor, name,
              ": the viewed argument must be a Tensor, not ", args[0].type());
  SlotTensors out;
  {
    LevelGuard below(2);
    out = run_from(c, 2);
  }
  for (const auto& st : out)
    if (rets[st.slot].is_write()) st.tensor->unsafeGetTensorImpl()->bump_version();
  if (view_out < 0) return out;
  const Tensor* base = nullptr;
  for (const auto& st : c.inputs)
    if (st.slot == 0) base = st.tensor;
  if (!base) return out;
  auto error = std::make_shared<const std::string>(
      str("Mutating the view ", name,
          " which does not have a derivative implemented is forbidden (its output is a view "
          "of its first input, and no formula maps that view's gradient back)"));
  const bool multi = rets[0].kind() == TensorKind::TensorList;
  for (const auto& st : out) {
    if (st.slot != 0) continue;
    NABLA_CHECK(st.tensor->unsafeGetTensorImpl() != base->unsafeGetTensorImpl(), name,
                ": its kernel returned its input itself where the schema says the output is a "
                "view of it (Tensor(a) -> Tensor(a)); return a view, such as self.alias()");
    ops::view_tracking::track_view_without_derivative(*base, *st.tensor, multi, error);
  }
  return out;
}

SlotTensors run_from(const Call& c, int step) {
  if (step <= 0 && !InferenceMode::is_enabled() && detail::dispatch_below() == 0) {
    if (c.autograd) {
      if (c.autograd->kind() == CppFunction::Kind::AutogradNotImplemented)
        return autograd_not_implemented(c);
      return run_kernel(c, *c.autograd, DispatchKey::Autograd);
    }
    if (c.composite) return run_kernel(c, *c.composite, DispatchKey::CompositeImplicitAutograd);
  }
  if (step <= 1 && c.inplace_or_view && detail::dispatch_below() < 2) {
    bool normal_tensor = false;  // an inference tensor has no ADInplaceOrView key
    for (const auto& st : c.inputs)
      normal_tensor = normal_tensor || !st.tensor->unsafeGetTensorImpl()->is_inference();
    if (normal_tensor) {
      if (c.inplace_or_view->kind() == CppFunction::Kind::InplaceOrViewNotImplemented)
        return inplace_or_view_not_implemented(c);
      return run_kernel(c, *c.inplace_or_view, DispatchKey::ADInplaceOrView);
    }
  }
  const CppFunction* k = c.backend ? c.backend : c.composite;
  if (!k) {
    std::string keys;
    for (size_t i = 0; i < c.op.kernels.size(); ++i)
      if (!c.op.kernels[i].empty())
        keys += std::string(keys.empty() ? "" : ", ") + toString(static_cast<DispatchKey>(i));
    NABLA_CHECK(false, c.op.full_name(), ": no kernel for ", c.backend_key,
                " (the device of its first tensor argument); it has kernels for: ",
                keys.empty() ? "none" : keys);
  }
  // Below the autograd step the kernel's own ops record nothing, as LibTorch's run below
  // the autograd keys.
  optional<AutoGradMode> no_grad;
  if (detail::dispatch_below() >= 1) no_grad.emplace(false);
  return run_kernel(c, *k, c.backend ? c.backend_key : DispatchKey::CompositeImplicitAutograd);
}

const CppFunction* usable(const Registration* r, CppFunction& copy) {
  if (!r || r->fn.kind() == CppFunction::Kind::Fallthrough) return nullptr;
  copy = r->fn;
  return &copy;
}

}  // namespace

// ---- The dispatcher --------------------------------------------------------------------

namespace detail {

void call_operator(const OperatorEntry& op, const SlotTensors& inputs, const std::type_info& sig,
                   RunKernel run) {
  DispatchKey backend = DispatchKey::CPU;
  if (!inputs.empty() && inputs.front().tensor->is_cuda()) backend = DispatchKey::CUDA;
  // A snapshot, so that a kernel registered or removed during the call does not move the
  // ones this call runs.
  std::optional<FunctionSchema> schema;
  CppFunction autograd = CppFunction::makeFallthrough(), inplace = autograd, be = autograd,
              composite = autograd;
  const CppFunction *pa, *pi, *pb, *pc;
  {
    std::lock_guard<std::mutex> lock(op.mutex);
    NABLA_CHECK(op.schema, op.full_name(), ": the operator has kernels but no schema (def)");
    schema = op.schema;
    pa = usable(newest(op, DispatchKey::Autograd), autograd);
    pi = usable(newest(op, DispatchKey::ADInplaceOrView), inplace);
    pb = usable(newest(op, backend), be);
    pc = usable(newest(op, DispatchKey::CompositeImplicitAutograd), composite);
  }
  Call c{op, *schema, inputs, sig, run, pa, pi, pb, pc, backend};
  run_from(c, 0);
}

void check_call_signature(const OperatorEntry& op, const CppSignature& sig) {
  std::lock_guard<std::mutex> lock(op.mutex);
  NABLA_CHECK(op.schema, "typed: operator ", op.full_name(), " has no schema");
  check_structure(op.full_name(), *op.schema, sig, "typed");
  for (size_t k = 0; k < op.kernels.size(); ++k)
    for (const Registration& r : op.kernels[k])
      if (r.fn.signature())
        NABLA_CHECK(*r.fn.signature()->type == *sig.type, "typed: operator ", op.full_name(),
                    " was asked for the C++ signature ", demangle(*sig.type), ", but its ",
                    static_cast<DispatchKey>(k), " kernel (", r.where, ") takes ",
                    demangle(*r.fn.signature()->type));
}

}  // namespace detail

CppFunction autograd_not_implemented_function(CppFunction::Kind kind) { return CppFunction(kind); }

const FunctionSchema& OperatorHandle::schema() const {
  NABLA_CHECK(entry_->schema, "schema: operator ", entry_->full_name(), " has no schema");
  return *entry_->schema;
}
const std::string& OperatorHandle::name() const { return entry_->name(); }
const std::string& OperatorHandle::overload_name() const { return entry_->overload(); }
bool OperatorHandle::hasSchema() const {
  std::lock_guard<std::mutex> lock(entry_->mutex);
  return entry_->schema.has_value();
}
bool OperatorHandle::hasKernelForDispatchKey(DispatchKey key) const {
  std::lock_guard<std::mutex> lock(entry_->mutex);
  return !entry_->kernels[static_cast<size_t>(key)].empty();
}

Dispatcher& Dispatcher::singleton() {
  static Dispatcher d;
  return d;
}

optional<OperatorHandle> Dispatcher::findSchema(const std::string& name,
                                                const std::string& overload_name) const {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.ops.find(overload_name.empty() ? name : name + "." + overload_name);
  if (it == r.ops.end() || !it->second->schema) return nullopt;
  return OperatorHandle(it->second.get());
}

OperatorHandle Dispatcher::findSchemaOrThrow(const char* name, const char* overload_name) const {
  auto op = findSchema(name, overload_name);
  NABLA_CHECK(op, "findSchemaOrThrow: Could not find schema for ", name, *overload_name ? "." : "",
              overload_name, " (no library has defined it; is its NABLA_LIBRARY linked in?)");
  return *op;
}

std::vector<std::string> Dispatcher::getAllOpNames() const {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [key, op] : r.ops)
    if (op->schema) names.push_back(key);
  return names;
}

// ---- Libraries -------------------------------------------------------------------------

Library::Library(Kind kind, std::string ns, optional<DispatchKey> key, const char* file,
                 uint32_t line)
    : kind_(kind), ns_(std::move(ns)), key_(key), where_(str(file, ":", line)) {
  NABLA_CHECK(!ns_.empty(), "Library: the namespace is empty (", where_, ")");
  if (kind_ != DEF) return;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto [it, added] = r.defined_namespaces.emplace(ns_, where_);
  NABLA_CHECK(added, "Library: namespace ", ns_, " is already defined by the library at ",
              it->second,
              "; only one NABLA_LIBRARY (or MAKE_NABLA_LIBRARY) may define a "
              "namespace at a time (",
              where_, "); use NABLA_LIBRARY_FRAGMENT to add operators");
  owns_namespace_ = true;
}

Library::Library(Library&& other) noexcept
    : kind_(other.kind_),
      ns_(std::move(other.ns_)),
      key_(other.key_),
      where_(std::move(other.where_)),
      registrations_(std::move(other.registrations_)),
      owns_namespace_(other.owns_namespace_) {
  other.registrations_.clear();
  other.owns_namespace_ = false;
}

Library::~Library() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (uint64_t id : registrations_) {
    auto it = r.records.find(id);
    if (it == r.records.end()) continue;
    OperatorEntry& op = *it->second.op;
    std::lock_guard<std::mutex> op_lock(op.mutex);
    if (it->second.key < 0) {
      op.schema.reset();
    } else {
      auto& v = op.kernels[static_cast<size_t>(it->second.key)];
      std::erase_if(v, [id](const detail::Registration& reg) { return reg.id == id; });
    }
    r.records.erase(it);
  }
  if (owns_namespace_) r.defined_namespaces.erase(ns_);
}

Library& Library::def(const std::string& schema_text) & {
  NABLA_CHECK(kind_ != IMPL, "def: the library at ", where_,
              " registers kernels (IMPL); define operators in NABLA_LIBRARY or "
              "NABLA_LIBRARY_FRAGMENT");
  FunctionSchema parsed = parse_schema(schema_text);
  auto [name, overload] = qualified(ns_, parsed.name(), "def");
  FunctionSchema schema(name, parsed.overload_name(), parsed.arguments(), parsed.returns());
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  OperatorEntry& op = entry_locked(r, name, schema.overload_name());
  std::lock_guard<std::mutex> op_lock(op.mutex);
  NABLA_CHECK(!op.schema, "def: operator ", op.full_name(), " is already defined (at ",
              op.schema_where, "); schema given again at ", where_);
  for (size_t k = 0; k < op.kernels.size(); ++k)
    for (const auto& reg : op.kernels[k])
      if (reg.fn.signature()) check_structure(op.full_name(), schema, *reg.fn.signature(), "def");
  op.schema = std::move(schema);
  op.schema_where = where_;
  const uint64_t id = r.next_id++;
  r.records[id] = {&op, -1};
  registrations_.push_back(id);
  return *this;
}

std::string Library::def_name(const std::string& schema) const {
  const FunctionSchema s = parse_schema(schema);
  return s.overload_name().empty() ? s.name() : s.name() + "." + s.overload_name();
}

Library& Library::register_kernel(const char* name, CppFunction f) {
  optional<DispatchKey> key = f.dispatch_key();
  if (key && key_)
    NABLA_CHECK(*key == *key_, "impl: the kernel of ", name, " is registered for ", *key,
                ", but its library (", where_, ") is for ", *key_);
  if (!key) key = key_;
  if (!key) key = DispatchKey::CompositeImplicitAutograd;
  NABLA_CHECK(key_supported(*key), "impl: dispatch key ", *key, " (kernel of ", name,
              ") is not supported; nabla's custom operators take kernels for CPU, CUDA, "
              "ADInplaceOrView, Autograd and CompositeImplicitAutograd");
  using K = CppFunction::Kind;
  NABLA_CHECK(f.kind() != K::AutogradNotImplemented || *key == DispatchKey::Autograd,
              "impl: autogradNotImplementedFallback() is a kernel for Autograd, not ", *key, " (",
              name, ")");
  NABLA_CHECK(f.kind() != K::InplaceOrViewNotImplemented || *key == DispatchKey::ADInplaceOrView,
              "impl: autogradNotImplementedInplaceOrViewFallback() is a kernel for "
              "ADInplaceOrView, not ",
              *key, " (", name, ")");
  auto [op_name, overload] = qualified(ns_, name, "impl");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  OperatorEntry& op = entry_locked(r, op_name, overload);
  std::lock_guard<std::mutex> op_lock(op.mutex);
  if (const detail::CppSignature* sig = f.signature()) {
    if (op.schema) check_structure(op.full_name(), *op.schema, *sig, "impl");
    for (size_t k = 0; k < op.kernels.size(); ++k)
      for (const auto& reg : op.kernels[k])
        if (reg.fn.signature())
          NABLA_CHECK(*reg.fn.signature()->type == *sig->type, "impl: the ", *key, " kernel of ",
                      op.full_name(), " takes ", demangle(*sig->type), ", but its ",
                      static_cast<DispatchKey>(k), " kernel (", reg.where, ") takes ",
                      demangle(*reg.fn.signature()->type),
                      "; all kernels of an operator share one C++ signature");
  }
  const uint64_t id = r.next_id++;
  op.kernels[static_cast<size_t>(*key)].push_back({id, std::move(f), where_});
  r.records[id] = {&op, static_cast<int>(*key)};
  registrations_.push_back(id);
  return *this;
}

}  // namespace nabla
