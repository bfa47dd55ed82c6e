// .pnnx.param text (graph::load_pnnx's parser): whatever parses must hold what the file
// declared, and every pnnx.Expression in it must parse or be refused with an error naming
// the reader. The import itself allocates what the shapes declare (as running the model
// would) and is not fuzzed here; its errors are tested in tests/graph/test_import_pnnx.cpp.
#include "fuzz_util.h"
#include "graph/pnnx_param.h"

using namespace nabla;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  graph::detail::PnnxGraph g;
  if (!fuzz::accepts({"load_pnnx: "}, [&] { g = graph::detail::parse_pnnx_param(text, "fuzz"); }))
    return 0;
  for (const auto& op : g.operators) {
    if (op.input_args.size() != op.inputs.size()) fuzz::fail("input arguments lost their inputs");
    for (const auto& [key, value] : op.params)
      if (value.kind == graph::detail::PnnxValue::Kind::Int && value.ints.size() != 1)
        fuzz::fail("an integer without its value: " + key);
    auto expr = op.params.find("expr");
    if (op.type == "pnnx.Expression" && expr != op.params.end())
      fuzz::accepts({"load_pnnx: "}, [&] {
        graph::detail::parse_pnnx_expression(expr->second.text, "load_pnnx: fuzz");
      });
  }
  return 0;
}
