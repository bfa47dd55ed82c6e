// ONNX models and tensors (graph::load_onnx, load_onnx_tensor): protobuf bytes, and graph
// structure (cycles, names no node defines, huge dims, attributes of any value): whatever
// imports is a graph whose outputs the importer built, anything else is refused with an
// error naming the reader. Import computes values as it reads (Note [Allocation limits]):
// bounded here to 1 MiB a tensor (which bounds the time too: a second per input under the
// sanitizers is libFuzzer's limit). The graph is not run: running a model
// allocates what its shapes say, as running it would.
#include "fuzz_util.h"
#include "nabla/core/detail/allocation_limit.h"
#include "nabla/graph/import.h"

using namespace nabla;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile file("onnx");
  const std::string& path = file.write(data, size);
  nabla::detail::AllocationLimit limit(size_t{1} << 20, "load_onnx: over the fuzz bound");
  fuzz::accepts({"load_onnx: "}, [&] {
    graph::Graph g = graph::load_onnx(path);
    for (const graph::Value& out : g.outputs())
      if (!out.defined()) fuzz::fail("an output without a node");
  });
  fuzz::accepts({"load_onnx_tensor: ", "load_onnx: "},
                [&] { fuzz::touch(graph::load_onnx_tensor(path)); });
  return 0;
}
