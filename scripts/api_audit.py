#!/usr/bin/python3
"""API audit: which public names of LibTorch 1.13 does nabla lack?

Parses <torch/torch.h> (Debian's libtorch-dev) and <nabla/nabla.h> with libclang
(Debian's python3-clang-14), collects every public declaration of each library
(namespace-scope functions, classes, aliases, enums, variables; public methods, fields
and constructors of classes), maps LibTorch's names by docs/compat.md's rename (torch::,
at::, c10:: -> nabla::; at::TensorBase/at::Tensor -> nabla::Tensor) and lists what
nabla does not declare, sorted into
  - used:        referenced by one of the LibTorch programs given with --programs
                 (these must be implemented: real programs use them),
  - not planned: a rule below says why (CUDA, quantization, TorchScript, ...),
  - not yet:     everything else.
Constructors are compared by parameter count and types (module holders and options
are built with positional arguments), the rest by name.

Usage (needs libtorch-dev, python3-clang-14, an installed or in-tree nabla):
  /usr/bin/python3 scripts/api_audit.py [--programs DIR ...] [--out docs/compat/lacking.md]
"""
import argparse
import collections
import json
import os
import re
import sys

import clang.cindex as ci

for lib in ("/usr/lib/llvm-14/lib/libclang.so.1", "/usr/lib/x86_64-linux-gnu/libclang-14.so.1"):
    if os.path.exists(lib):
        ci.Config.set_library_file(lib)
        break

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TORCH_INCLUDES = ["/usr/include/torch/csrc/api/include", "/usr/include"]
TORCH_DIRS = ("/usr/include/torch/", "/usr/include/ATen/", "/usr/include/c10/")
CLANG_INCLUDES = ["-isystem", "/usr/lib/llvm-14/lib/clang/14.0.6/include"]

K = ci.CursorKind
SCOPES = {K.NAMESPACE, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE,
          K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION}
CLASSES = {K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE}
FUNCS = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONVERSION_FUNCTION}
ALIASES = {K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL, K.TYPE_ALIAS_TEMPLATE_DECL}

# Namespaces whose contents are implementation details in either library.
PRIVATE_NS = re.compile(r"::(detail|details|impl|internal|native|cpu|meta|compositeimplicitautograd|"
                        r"compositeexplicitautograd|compositeexplicitautogradnonfunctional|"
                        r"ops|symint|_ops|utils::detail|anonymous|std|dynamo|profiler::impl)(::|$)")


def normalize(name):
    """LibTorch's qualified name after docs/compat.md's rename."""
    name = re.sub(r"^(torch|at|c10)::", "nabla::", name)
    name = re.sub(r"^nabla::TensorBase::", "nabla::Tensor::", name)
    # torch::autograd re-exports: at::Tensor methods reached through Variable.
    return name


def qualified(c):
    parts = []
    while c is not None and c.kind != K.TRANSLATION_UNIT:
        if c.kind == K.NAMESPACE and not c.spelling:
            parts.append("anonymous")
        elif c.spelling:
            parts.append(c.spelling)
        c = c.semantic_parent
    return "::".join(reversed(parts))


def param_types(c):
    types = []
    for a in c.get_arguments():
        t = a.type.spelling
        t = re.sub(r"\b(torch|at|c10)::", "nabla::", t)
        t = t.replace("const ", "").replace("&", "").replace(" ", "")
        types.append(t)
    return types


def collect(tu, keep_file, roots):
    """{normalized name: kind} of the public declarations under the given namespaces."""
    out = {}
    ctors = collections.defaultdict(set)
    bases = collections.defaultdict(set)  # class -> its base classes (qualified)
    aliases = {}                           # alias -> the qualified type it names

    def visit(c, depth, in_class):
        for ch in c.get_children():
            loc = ch.location.file
            if loc is None or not keep_file(loc.name):
                continue
            if in_class and ch.access_specifier in (ci.AccessSpecifier.PRIVATE,
                                                    ci.AccessSpecifier.PROTECTED):
                continue
            kind = ch.kind
            if kind == K.NAMESPACE:
                if depth == 0 and ch.spelling not in roots:
                    continue
                visit(ch, depth + 1, False)
                continue
            name = qualified(ch)
            if not name or PRIVATE_NS.search(name):
                continue
            if kind in CLASSES and ch.spelling:
                out.setdefault(name, "class")
                for b in ch.get_children():
                    if b.kind == K.CXX_BASE_SPECIFIER:
                        ref = b.referenced
                        if ref is not None:
                            bases[name].add(qualified(ref))
                if ch.is_definition():
                    visit(ch, depth + 1, True)
            elif kind in FUNCS and ch.spelling and not ch.spelling.startswith("operator"):
                out.setdefault(name, "method" if in_class else "function")
            elif kind in FUNCS and ch.spelling.startswith("operator"):
                out.setdefault(name, "operator")
            elif kind == K.CONSTRUCTOR and in_class:
                ctors[name.rsplit("::", 1)[0]].add(tuple(param_types(ch)))
            elif kind in ALIASES and ch.spelling:
                out.setdefault(name, "alias")
                target = ch.underlying_typedef_type if kind != K.TYPE_ALIAS_TEMPLATE_DECL else None
                decl = target.get_declaration() if target is not None else None
                if decl is not None and decl.kind != K.NO_DECL_FOUND:
                    aliases[name] = qualified(decl)
                elif kind == K.TYPE_ALIAS_TEMPLATE_DECL:
                    for t in ch.get_children():
                        if t.kind == K.TYPE_ALIAS_DECL:
                            d = t.underlying_typedef_type.get_declaration()
                            if d is not None and d.kind != K.NO_DECL_FOUND:
                                aliases[name] = qualified(d)
            elif kind == K.ENUM_DECL:
                if ch.spelling:
                    out.setdefault(name, "enum")
                for e in ch.get_children():
                    if e.kind == K.ENUM_CONSTANT_DECL:
                        en = qualified(e)
                        out.setdefault(en, "enumerator")
            elif kind == K.VAR_DECL and ch.spelling:
                out.setdefault(name, "variable")
            elif kind == K.FIELD_DECL and in_class and ch.spelling:
                out.setdefault(name, "field")
            elif kind == K.USING_DECLARATION and ch.spelling:
                out.setdefault(name, "using")
                # `using autograd::IValue;` in namespace nabla: nabla::IValue's members are
                # nabla::autograd::IValue's (libclang gives the path as namespace refs).
                path = [t.spelling for t in ch.get_children() if t.kind == K.NAMESPACE_REF]
                if path:
                    aliases[name] = "::".join([name.rsplit("::", 1)[0]] + path + [ch.spelling])
    visit(tu.cursor, 0, False)
    return out, ctors, bases, aliases


def parse(path_or_code, args, unsaved=None):
    index = ci.Index.create()
    opts = ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES if unsaved else 0
    tu = index.parse(path_or_code, args=args, unsaved_files=unsaved, options=opts)
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    return tu, errors


def torch_api():
    code = "#include <torch/torch.h>\n"
    args = ["-x", "c++", "-std=c++17"] + CLANG_INCLUDES + sum([["-I", d] for d in TORCH_INCLUDES], [])
    tu, errors = parse("torch_api.cpp", args, [("torch_api.cpp", code)])
    if errors:
        sys.exit("parsing <torch/torch.h> failed: " + str(errors[0]))
    names, ctors, _, _ = collect(tu, lambda f: f.startswith(TORCH_DIRS), {"torch", "at", "c10"})
    origin = {}
    for n in names:
        origin.setdefault(normalize(n), n)
    return ({normalize(n): k for n, k in names.items()}, {normalize(n): {tuple(p) for p in v} for n, v in ctors.items()},
            origin)


def nabla_api(include_dir):
    code = "#include <nabla/nabla.h>\n"
    args = ["-x", "c++", "-std=c++20"] + CLANG_INCLUDES + ["-I", include_dir]
    tu, errors = parse("nabla_api.cpp", args, [("nabla_api.cpp", code)])
    if errors:
        sys.exit("parsing <nabla/nabla.h> failed: " + str(errors[0]))
    inc = os.path.abspath(include_dir) + "/"
    return collect(tu, lambda f: os.path.abspath(f).startswith(inc), {"nabla"})


def program_uses(paths):
    """Normalized LibTorch names referenced by the programs' sources (parsed against LibTorch)."""
    uses = collections.defaultdict(set)
    for root in paths:
        files = []
        for dirpath, _, names in os.walk(root):
            files += [os.path.join(dirpath, n) for n in names if n.endswith((".cpp", ".cc"))]
        incs = sorted({os.path.dirname(f) for f in files} |
                      {d for d, _, _ in os.walk(root) if d.endswith("include")})
        for f in files:
            args = ["-x", "c++", "-std=c++17"] + CLANG_INCLUDES + sum([["-I", d] for d in TORCH_INCLUDES + incs], [])
            tu = ci.Index.create().parse(f, args=args)
            prog = os.path.basename(os.path.normpath(root))
            # Only the program's own declarations are walked (not LibTorch's headers).
            own = [c for c in tu.cursor.get_children()
                   if c.location.file is not None and not c.location.file.name.startswith(TORCH_DIRS)
                   and not c.location.file.name.startswith("/usr/")]
            for c in (d for top in own for d in top.walk_preorder()):
                ref = c.referenced
                if ref is None or ref.location.file is None:
                    continue
                if not ref.location.file.name.startswith(TORCH_DIRS):
                    continue
                if ref.kind in (K.CONSTRUCTOR, K.CONVERSION_FUNCTION):
                    # Constructors are reached by implicit conversions too (a braced list
                    # becoming an IListRef): the type counts only where the program spells
                    # it, which a TYPE_REF records.
                    continue
                name = qualified(ref)
                if re.match(r"^(torch|at|c10)::", name) and not PRIVATE_NS.search(name):
                    uses[normalize(name)].add(prog)
    return uses


NOT_PLANNED = [
    (r"cuda|cudnn|miopen|hip|mps|xpu|vulkan|metal|ipu|xla|lazy|hpu|ort|mkldnn|mkl_|fbgemm|"
     r"nnpack|xnnpack|qnnpack|onednn|is_pinned|pin_memory|record_stream|Stream|Event|"
     r"DeviceGuard|OptionalDeviceGuard|mlc|ve_|zoom", "GPU/accelerator or vendor-library specific: nabla has one CPU backend (docs/architecture.md)"),
    (r"quantiz|q_|::qscheme|QScheme|::int_repr|dequantize|fake_quant|Quantizer|qint|quint|::QTensor",
     "quantized tensors are not in nabla's dtypes"),
    (r"sparse|::to_dense|coalesce|indices\b|::values\b|crow_|col_indices|ccol|row_indices|_nnz|SparseCsr|::to_mkldnn|"
     r"::sspaddmm|::smm|::hspmm|::is_coalesced|::dense_dim|::sparse_dim",
     "sparse layouts are not among nabla's layouts"),
    (r"nested|NestedTensor", "nested tensors are not among nabla's layouts"),
    (r"::jit\b|::jit::|script|Script|::IValue|::ivalue|::Dict\b|::List\b|::Tuple\b|::Future|::RRef|::Await|"
     r"torch::import_ir|Library|::library|TORCH_LIBRARY|Dispatch|dispatch|OperatorHandle|OperatorName|"
     r"::Node\b|::Graph\b|::Code\b|::Module\b",
     "TorchScript / operator registration: outside the covered subset (programs without TorchScript)"),
    (r"complex|Complex|::real\b|::imag\b|::conj|::angle|::polar|view_as_real|view_as_complex|is_conj|resolve_conj|"
     r"resolve_neg|is_neg|::_conj",
     "complex dtypes are not in nabla's dtypes"),
    (r"::names\b|refine_names|align_to|align_as|::rename\b|rename_|has_names|Dimname|NamedTensor|::names_",
     "named tensors (a prototype in LibTorch) are not planned"),
    (r"::fft::|::fft_|::stft|::istft|::linalg::|::linalg_|::special::|::special_",
     "torch::fft / torch::linalg / torch::special namespaces: not yet planned"),
    (r"::autocast|::amp|Half|BFloat16|::half\b|::bfloat16|Float8|::float8",
     "reduced-precision dtypes and autocast: not in nabla's dtypes"),
    (r"^nabla::(?!Tensor::)[^:]*::_|::_[a-zA-Z]|^nabla::_", "underscore-prefixed: LibTorch-internal"),
    (r"intrusive_ptr|weak_intrusive_ptr|SymInt|SymFloat|SymBool|SymNode|Symbolic|symint|sym_|c10::guts|"
     r"TypePtr|Type\b|TensorType|FunctionSchema|Argument\b|Storage\b|DataPtr|Allocator|StorageImpl|"
     r"TensorImpl|UndefinedTensorImpl|DispatchKey|Backend\b|ThreadLocal|Warning|WarningHandler|"
     r"Registry|Registerer|TypeMeta|caffe2|::guts::|C10_|flat_hash_map|LeftRight|::either|::variant|"
     r"::llvm|::hash|::irange|ArrayRefTensor|OptionalArrayRef|ExclusivelyOwned|MaybeOwned|string_view|"
     r"::Half|::BFloat16|::qint|::quint|bits",
     "c10 internals (types a program does not spell in the covered subset)"),
    (r"::serialize::|::pickle|::save\b|::load\b", "serialization: nabla's save/load cover safetensors and "
     "torch.save files"),
]


C10_SPELLED = re.compile(r"^c10::(ArrayRef|IntArrayRef|optional|nullopt|make_optional|Scalar|ScalarType|Device|DeviceType|"
                         r"Layout|MemoryFormat|TensorOptions|Error|IndexError|ValueError|TypeError|NotImplementedError|"
                         r"str|k[A-Z][A-Za-z0-9]*|OrderedDict|elementSize|toString|isFloatingType|isIntegralType|"
                         r"typeMetaToScalarType|scalarTypeToTypeMeta|promoteTypes|SmallVector|irange|"
                         r"ExpandingArray|to_string|get_default_dtype|set_default_dtype|Half|BFloat16)(::|$)")


def classify(name, origin=None):
    if origin and origin.startswith("c10::") and not C10_SPELLED.match(origin):
        return "c10 internals (names a program does not spell in the covered subset)"
    for pat, why in NOT_PLANNED:
        if re.search(pat, name):
            return why
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nabla-include", default=os.path.join(ROOT, "include"))
    ap.add_argument("--programs", nargs="*", default=[], help="directories of LibTorch programs (one program each)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "compat", "lacking.md"))
    ap.add_argument("--uses-cache", help="JSON file caching what each program uses (parsing is slow)")
    a = ap.parse_args()

    torch_names, torch_ctors, origin = torch_api()
    nabla_names, nabla_ctors, nabla_bases, nabla_aliases = nabla_api(a.nabla_include)
    uses = {}
    if a.programs:
        cache = {}
        if a.uses_cache and os.path.exists(a.uses_cache):
            with open(a.uses_cache) as f:
                cache = json.load(f)
        for prog in a.programs:
            key = os.path.abspath(prog)
            if key not in cache:
                cache[key] = {n: sorted(v) for n, v in program_uses([prog]).items()}
            for n, progs in cache[key].items():
                uses.setdefault(n, set()).update(progs)
        if a.uses_cache:
            with open(a.uses_cache, "w") as f:
                json.dump(cache, f)

    def present(n, depth=0):
        """Declared in nabla, directly, through a base class or through an alias."""
        if n in nabla_names or depth > 8:
            return n in nabla_names
        if "::" not in n:
            return False
        owner, member = n.rsplit("::", 1)
        if member == "operator=":  # implicitly declared
            return owner in nabla_names
        if member.startswith("operator") and "nabla::" + member in nabla_names:
            return True  # a member operator in LibTorch, a free one in nabla
        if member in ("what",) and owner in nabla_names:
            return True  # std::exception's, inherited
        target = nabla_aliases.get(owner)
        if target is not None:
            # Members of an alias to a std:: or other outside type are that type's.
            return not target.startswith("nabla::") or present(target + "::" + member, depth + 1)
        return any(present(b + "::" + member, depth + 1) for b in nabla_bases.get(owner, ()))

    missing = sorted(n for n in torch_names if not present(n))
    # A class nabla lacks hides its members: list only the class.
    missing_set = set(missing)
    missing = [n for n in missing if not any(n.startswith(p + "::") for p in
                                             (n.rsplit("::", i)[0] for i in range(1, n.count("::")))
                                             if p in missing_set and torch_names.get(p) == "class")]

    ctor_gaps = []
    for cls, sigs in sorted(torch_ctors.items()):
        if cls not in nabla_names or cls in missing_set or classify(cls, origin.get(cls)):
            continue
        have = nabla_ctors.get(cls, set())
        have_counts = {len(s) for s in have}
        for sig in sorted(sigs):
            if sig in have or len(sig) in have_counts:
                continue
            if any("&&" in p for p in sig) or any(re.search(r"\bconst\b|Impl$", p) for p in sig):
                continue
            ctor_gaps.append((cls, sig))

    groups = collections.defaultdict(list)
    used, not_yet = [], []
    for n in missing:
        why = classify(n, origin.get(n))
        progs = uses.get(n)
        if progs:
            used.append((n, sorted(progs)))
        elif why:
            groups[why].append(n)
        else:
            not_yet.append(n)
    used_ctors = [(c, s) for c, s in ctor_gaps if c in uses]

    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        f.write("# LibTorch 1.13 public names nabla lacks (generated)\n\n")
        f.write("Generated by `/usr/bin/python3 scripts/api_audit.py` from Debian's libtorch-dev "
                "headers and nabla's `include/`; do not edit. docs/compat.md explains the result.\n\n")
        f.write(f"- LibTorch public names (after the rename): {len(torch_names)}\n")
        f.write(f"- present in nabla: {len(torch_names) - len(missing_set)}\n")
        f.write(f"- lacking: {len(missing_set)} (listed below with their members folded into their class: {len(missing)})\n")
        f.write(f"- used by the {len(a.programs)} programs audited and lacking: {len(used)}\n")
        f.write(f"- constructor forms lacking: {len(ctor_gaps)}\n\n")
        f.write("## Used by the audited programs\n\n")
        for n, progs in used:
            f.write(f"- `{n}` ({torch_names[n]}): {', '.join(progs)}\n")
        for c, s in used_ctors:
            f.write(f"- `{c}({', '.join(s)})` (constructor)\n")
        f.write("\n## Constructor forms\n\n")
        for c, s in ctor_gaps:
            f.write(f"- `{c}({', '.join(s)})`\n")
        f.write("\n## Not yet\n\n")
        for n in not_yet:
            f.write(f"- `{n}` ({torch_names[n]})\n")
        for why, names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            f.write(f"\n## Not planned: {why} ({len(names)})\n\n")
            for n in names:
                f.write(f"- `{n}` ({torch_names[n]})\n")
    os.replace(tmp, a.out)
    print(f"LibTorch names {len(torch_names)}, lacking {len(missing_set)}, used-and-lacking {len(used)}, "
          f"not yet {len(not_yet)}, ctor forms {len(ctor_gaps)} -> {a.out}")


if __name__ == "__main__":
    main()
