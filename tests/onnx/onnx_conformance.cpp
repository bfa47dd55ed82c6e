// ONNX's own backend tests through graph::load_onnx (docs/import.md): every model of
// Debian's libonnx-testdata (model.onnx with test_data_set_0/input_*.pb and output_*.pb)
// is imported, run on its inputs and compared with its outputs as ONNX's runner compares
// them (rtol 1e-3, atol 1e-7). Models of kinds nabla has no type for are not run, each
// with its category: strings, sequences and optionals, quantized operators, the
// ai.onnx.preview.training domain. Prints one line per operator and the totals; fails when
// fewer node tests at opsets 7-17 pass than the floor file records (a regression).
//
// --round-trip DIR: each imported model is also written back with graph::save_onnx into
// DIR/<suite>/<test>.onnx, read again and compared once more; the totals count the node
// tests that pass both ways (and the floor file's second number is their floor), and
// DIR/written.txt lists the files for ONNX's checker (tests/onnx/check_models.py).
//
//   onnx_conformance [--data DIR] [--floor-file F] [--markdown OUT] [--round-trip DIR]
//                    [--verbose] [FILTER]
#include <nabla/graph/import.h>
#include <nabla/nabla.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nabla::Tensor;

namespace {

enum class Outcome { Pass, WrongValue, ImportError, RunError, Excluded };

struct Result {
  std::string suite, name, op, detail;
  std::string round_trip;  // "" not tried, "ok", or what failed
  int64_t opset = 0;
  Outcome outcome = Outcome::Pass;
};

// The default domain's opset of a model (0 when it imports none).
int64_t default_opset(const onnx::ModelProto& m) {
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
  return 0;
}

bool is_string_or_container(const onnx::TypeProto& t) {
  if (t.has_sequence_type() || t.has_optional_type() || t.has_map_type()) return true;
  return t.has_tensor_type() && t.tensor_type().elem_type() == onnx::TensorProto::STRING;
}

// Why nabla does not run this model ("" when it does): the categories nabla has no type for.
std::string excluded(const onnx::ModelProto& m) {
  static const std::set<std::string> quantized = {
      "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv",
      "QLinearMatMul",  "ConvInteger",      "MatMulInteger"};
  for (const auto& o : m.opset_import())
    if (o.domain() == "ai.onnx.preview.training") return "the ai.onnx.preview.training domain";
  const auto& g = m.graph();
  for (const auto& v : g.input())
    if (is_string_or_container(v.type())) return "strings, sequences or optionals";
  for (const auto& v : g.output())
    if (is_string_or_container(v.type())) return "strings, sequences or optionals";
  for (const auto& n : g.node()) {
    if (quantized.count(n.op_type())) return "quantized operators";
    for (const auto& a : n.attribute())
      if (a.type() == onnx::AttributeProto::STRINGS && n.op_type() == "StringNormalizer")
        return "strings, sequences or optionals";
  }
  return "";
}

// The operator a test is about: its node's (the last one of an expanded function body
// belongs to the function, so `_expanded` tests take their base test's operator).
std::string operator_of(const onnx::ModelProto& m) {
  const auto& nodes = m.graph().node();
  return nodes.empty() ? "(none)" : nodes[nodes.size() - 1].op_type();
}

bool read_model(const fs::path& file, onnx::ModelProto& m) {
  std::ifstream in(file, std::ios::binary);
  return in.is_open() && m.ParseFromIstream(&in);
}

std::vector<fs::path> numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (int i = 0;; ++i) {
    fs::path f = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(f)) break;
    files.push_back(f);
  }
  return files;
}

// numpy has no bfloat16, so ONNX's test data stores a bfloat16 tensor as its uint16 bits
// (which load_onnx_tensor reads widened to int32): a value the model declares bfloat16 is
// made again from those bits.
Tensor as_declared(const Tensor& t, const onnx::ValueInfoProto& v) {
  if (v.type().tensor_type().elem_type() != onnx::TensorProto::BFLOAT16 ||
      t.scalar_type() != nabla::kInt)
    return t;
  const Tensor bits = t.contiguous();
  Tensor out = nabla::empty(t.sizes(), nabla::TensorOptions(nabla::kBFloat16));
  auto* dst = static_cast<uint16_t*>(out.data_ptr());
  const int32_t* src = bits.data_ptr<int32_t>();
  for (int64_t i = 0; i < t.numel(); ++i) dst[i] = static_cast<uint16_t>(src[i]);
  return out;
}

// "" when `got` equals `want` as ONNX's runner decides; otherwise what differs.
std::string compare(const Tensor& got, const Tensor& want, double rtol, double atol) {
  if (got.scalar_type() != want.scalar_type())
    return nabla::str("dtype ", got.scalar_type(), ", expected ", want.scalar_type());
  if (got.sizes() != want.sizes())
    return nabla::str("shape ", got.sizes(), ", expected ", want.sizes());
  if (got.numel() == 0) return "";
  if (!got.is_floating_point()) return got.equal(want) ? "" : "integer values differ";
  const Tensor g = got.to(nabla::kDouble), w = want.to(nabla::kDouble);
  const Tensor both_nan = g.isnan().logical_and(w.isnan());
  const Tensor same_inf = g.isinf().logical_and(g.eq(w));
  const Tensor close = (g - w).abs().le((w.abs() * rtol) + atol);
  const Tensor ok = close.logical_or(both_nan).logical_or(same_inf);
  if (ok.all().item<bool>()) return "";
  const double worst = (g - w).abs().masked_fill(ok, 0).max().item<double>();
  return nabla::str("values differ (largest difference ", worst, ")");
}

// The graph's outputs on `inputs` against `outputs`: "" when equal, else what differs.
std::string check_outputs(nabla::graph::Graph& g, const std::vector<Tensor>& inputs,
                          const std::vector<Tensor>& outputs) {
  nabla::NoGradGuard no_grad;
  const auto graph_inputs = g.inputs();
  if (graph_inputs.size() != inputs.size())
    throw nabla::Error(nabla::str("the graph has ", graph_inputs.size(), " inputs, the test data ",
                                  inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) g.set_value(graph_inputs[i], inputs[i]);
  const std::vector<Tensor> got = g.forward(g.outputs());
  if (got.size() != outputs.size())
    throw nabla::Error(
        nabla::str("the graph has ", got.size(), " outputs, the test data ", outputs.size()));
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string diff = compare(got[i], outputs[i], 1e-3, 1e-7);
    if (!diff.empty()) return nabla::str("output ", i, ": ", diff);
  }
  return "";
}

fs::path round_trip_dir;  // --round-trip

Result run_case(const std::string& suite, const fs::path& dir) {
  Result r;
  r.suite = suite;
  r.name = dir.filename().string();
  onnx::ModelProto m;
  if (!read_model(dir / "model.onnx", m)) {
    r.outcome = Outcome::ImportError;
    r.detail = "model.onnx does not parse";
    return r;
  }
  r.opset = default_opset(m);
  r.op = operator_of(m);
  if (std::string why = excluded(m); !why.empty()) {
    r.outcome = Outcome::Excluded;
    r.detail = why;
    return r;
  }
  const fs::path data = dir / "test_data_set_0";
  std::vector<Tensor> inputs, outputs;
  try {
    for (const auto& f : numbered(data, "input_")) {
      const int i = static_cast<int>(inputs.size());
      const Tensor t = nabla::graph::load_onnx_tensor(f);
      inputs.push_back(i < m.graph().input_size() ? as_declared(t, m.graph().input(i)) : t);
    }
    for (const auto& f : numbered(data, "output_")) {
      const int i = static_cast<int>(outputs.size());
      const Tensor t = nabla::graph::load_onnx_tensor(f);
      outputs.push_back(i < m.graph().output_size() ? as_declared(t, m.graph().output(i)) : t);
    }
  } catch (const nabla::Error& e) {
    r.outcome = Outcome::RunError;  // counted: uint64 values past 2^63, for instance
    r.detail = std::string("its test data: ") + e.what();
    return r;
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.sizes().vec());
  nabla::graph::Graph g;
  try {
    g = nabla::graph::load_onnx((dir / "model.onnx").string(), shapes);
  } catch (const nabla::Error& e) {
    r.outcome = Outcome::ImportError;
    r.detail = e.what();
    return r;
  }
  try {
    r.detail = check_outputs(g, inputs, outputs);
    r.outcome = r.detail.empty() ? Outcome::Pass : Outcome::WrongValue;
  } catch (const nabla::Error& e) {
    r.outcome = Outcome::RunError;
    r.detail = e.what();
  }
  if (r.outcome != Outcome::Pass || round_trip_dir.empty()) return r;
  // Written with save_onnx (the graph holds the test's inputs now), read again, run again.
  const fs::path file = round_trip_dir / suite / (r.name + ".onnx");
  try {
    fs::create_directories(file.parent_path());
    nabla::graph::save_onnx(g, file.string());
    std::ofstream(round_trip_dir / "written.txt", std::ios::app) << file.string() << "\n";
    nabla::graph::Graph again = nabla::graph::load_onnx(file.string(), shapes);
    const std::string diff = check_outputs(again, inputs, outputs);
    r.round_trip = diff.empty() ? "ok" : "read back: " + diff;
  } catch (const nabla::Error& e) {
    r.round_trip = e.what();
  }
  return r;
}

// The node tests the goal counts: opsets 7-17, not excluded.
bool counted(const Result& r) {
  return r.suite == "node" && r.opset >= 7 && r.opset <= 17 && r.outcome != Outcome::Excluded;
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Pass:
      return "pass";
    case Outcome::WrongValue:
      return "wrong value";
    case Outcome::ImportError:
      return "import error";
    case Outcome::RunError:
      return "run error";
    default:
      return "not run";
  }
}

}  // namespace

int main(int argc, char** argv) {
  fs::path root = "/usr/share/libonnx-testdata/data";
  std::string floor_file, markdown, filter;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--data") && i + 1 < argc)
      root = argv[++i];
    else if (!std::strcmp(argv[i], "--floor-file") && i + 1 < argc)
      floor_file = argv[++i];
    else if (!std::strcmp(argv[i], "--markdown") && i + 1 < argc)
      markdown = argv[++i];
    else if (!std::strcmp(argv[i], "--round-trip") && i + 1 < argc)
      round_trip_dir = argv[++i];
    else if (!std::strcmp(argv[i], "--verbose"))
      verbose = true;
    else
      filter = argv[i];
  }
  if (!fs::is_directory(root)) {
    std::fprintf(stderr,
                 "onnx_conformance: no test data at %s (apt-get install libonnx-testdata)\n",
                 root.c_str());
    return 1;
  }
  std::vector<Result> results;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    const fs::path dir = root / suite;
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(dir))
      if (fs::exists(e.path() / "model.onnx") &&
          (filter.empty() || e.path().filename().string().find(filter) != std::string::npos))
        cases.push_back(e.path());
    std::sort(cases.begin(), cases.end());
    for (const auto& c : cases) results.push_back(run_case(suite, c));
  }
  // `_expanded` tests count under their base test's operator.
  std::map<std::string, std::string> op_of_test;
  for (const Result& r : results) op_of_test[r.suite + "/" + r.name] = r.op;
  for (Result& r : results) {
    const std::string suffix = "_expanded";
    if (r.name.size() > suffix.size() &&
        r.name.compare(r.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      auto it = op_of_test.find(r.suite + "/" + r.name.substr(0, r.name.size() - suffix.size()));
      if (it != op_of_test.end()) r.op = it->second;
    }
  }
  // Per operator (node tests at opsets 7-17): passed / counted, and why the others fail.
  struct Tally {
    int pass = 0, total = 0;
    std::map<std::string, int> reasons;
  };
  std::map<std::string, Tally> per_op;
  std::map<std::string, int> excluded_by, suite_pass, suite_total;
  int pass = 0, total = 0, round_trips = 0;
  for (const Result& r : results) {
    if (r.outcome == Outcome::Excluded) {
      ++excluded_by[r.detail.substr(0, r.detail.find(':'))];
      continue;
    }
    ++suite_total[r.suite];
    suite_pass[r.suite] += r.outcome == Outcome::Pass;
    if (verbose && r.outcome != Outcome::Pass)
      std::printf("  %s/%s: %s: %s\n", r.suite.c_str(), r.name.c_str(), outcome_name(r.outcome),
                  r.detail.c_str());
    if (verbose && !r.round_trip.empty() && r.round_trip != "ok")
      std::printf("  %s/%s: round trip: %s\n", r.suite.c_str(), r.name.c_str(),
                  r.round_trip.c_str());
    if (!counted(r)) continue;
    round_trips += r.round_trip == "ok";
    Tally& t = per_op[r.op];
    ++t.total, ++total;
    if (r.outcome == Outcome::Pass) {
      ++t.pass, ++pass;
    } else {
      ++t.reasons[outcome_name(r.outcome)];
    }
  }
  std::printf("%-28s %8s   %s\n", "operator", "passed", "failures");
  for (const auto& [op, t] : per_op) {
    std::string why;
    for (const auto& [reason, n] : t.reasons)
      why += nabla::str(why.empty() ? "" : ", ", n, " ", reason);
    std::printf("%-28s %3d / %-3d  %s\n", op.c_str(), t.pass, t.total, why.c_str());
  }
  std::printf("node tests at opsets 7-17: %d of %d pass (%.1f%%)\n", pass, total,
              total ? 100.0 * pass / total : 0.0);
  if (!round_trip_dir.empty())
    std::printf("node tests at opsets 7-17 through save_onnx and back: %d of the %d passing\n",
                round_trips, pass);
  for (const auto& [suite, n] : suite_total)
    std::printf("%s (every opset): %d of %d pass\n", suite.c_str(), suite_pass[suite], n);
  for (const auto& [why, n] : excluded_by) std::printf("not run (%s): %d\n", why.c_str(), n);
  if (!markdown.empty()) {
    std::ofstream md(markdown);
    md << "# ONNX operators: status by ONNX's node tests\n\n"
          "Generated by `build-test/tests/onnx/onnx_conformance --markdown "
          "docs/onnx_operators.md`\n(docs/import.md explains the run and the failures; the "
          "test `onnx.operator_table`\nfails when this file is out of date): every operator "
          "that Debian's libonnx-testdata\nhas a node test for at opsets 7-17, how many of "
          "its tests pass through `graph::load_onnx`,\nand why the others fail. Not run "
          "(nabla has no type for them):\n";
    std::string sep = " ";
    for (const auto& [why, n] : excluded_by) {
      md << sep << why << " (" << n << ")";
      sep = ", ";
    }
    md << ".\n\n| ONNX operator | node tests passed (opsets 7-17) | failures |\n"
          "| --- | --- | --- |\n";
    for (const auto& [op, t] : per_op) {
      std::string why;
      for (const auto& [reason, n] : t.reasons)
        why += nabla::str(why.empty() ? "" : ", ", n, " ", reason);
      md << "| " << op << " | " << t.pass << " / " << t.total << " | " << why << " |\n";
    }
  }
  if (!floor_file.empty() && filter.empty()) {
    std::ifstream f(floor_file);
    int floor = 0, round_trip_floor = 0;
    f >> floor >> round_trip_floor;
    if (pass < floor) {
      std::printf("onnx_conformance: %d node tests pass, fewer than the floor %d (%s)\n", pass,
                  floor, floor_file.c_str());
      return 1;
    }
    if (!round_trip_dir.empty() && round_trips < round_trip_floor) {
      std::printf("onnx_conformance: %d node tests round-trip, fewer than the floor %d (%s)\n",
                  round_trips, round_trip_floor, floor_file.c_str());
      return 1;
    }
  }
  return 0;
}
