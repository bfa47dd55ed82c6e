// graph::load_onnx against PyTorch: models exported at test time by python3-torch's
// torch.onnx.export (tests/graph/onnx_models.py) give PyTorch's outputs as graphs, and
// again once written back by graph::save_onnx and read; their weights are parameters that
// train; unsupported operators and malformed files are clear errors naming what was found.
#include <cstdlib>

#include "graph/imported_training.h"
#include "test_util.h"

namespace nabla::testing {
namespace {

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Exports model `name` into this process's scratch directory; returns the path stem.
std::string export_model(const std::string& name, int opset) {
  const std::string dir = temp_path("onnx_models");
  std::filesystem::create_directories(dir);
  const std::string cmd = torch_python() + " " + NABLA_TEST_SOURCE_DIR + "/graph/onnx_models.py " +
                          dir + " " + name + " " + std::to_string(opset);
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return dir + "/" + name;
}

#define NABLA_REQUIRE_ONNX()                                                       \
  do {                                                                             \
    NABLA_REQUIRE_TORCH_PYTHON();                                                  \
    if (graph::onnx_available()) break;                                            \
    if (std::getenv("NABLA_REQUIRE_TORCH_PYTHON")) FAIL() << "built without ONNX"; \
    GTEST_SKIP() << "nabla was built without libonnx-dev";                         \
  } while (0)

// The imported graph's output on the input in STEM_io.pt, against PyTorch's output there.
void expect_outputs(graph::Graph& g, const std::string& stem, const std::string& what) {
  ASSERT_EQ(g.inputs().size(), 1u);
  ASSERT_EQ(g.outputs().size(), 1u);
  const IValue io = pickle_load(read_bytes(stem + "_io.pt"));
  g.set_value(g.inputs()[0], io.toGenericDict().at("input").toTensor());
  NoGradGuard no_grad;
  const Tensor got = g.forward(g.outputs()[0]);
  const Tensor want = io.toGenericDict().at("output").toTensor();
  ASSERT_EQ(shape(got), shape(want));
  const double err =
      (got - want).abs().max().item<double>() / std::max(1.0, want.abs().max().item<double>());
  EXPECT_LT(err, 1e-4) << what;
  std::cout << what << " (" << g.size() << " nodes): max relative difference from PyTorch " << err
            << "\n";
  // Written back with save_onnx and read again: the same outputs (docs/import.md, "Export").
  const std::string again = stem + "_nabla.onnx";
  graph::save_onnx(g, again);
  graph::Graph back = graph::load_onnx(again);
  back.set_value(back.inputs()[0], io.toGenericDict().at("input").toTensor());
  EXPECT_LT((back.forward(back.outputs()[0]) - got).abs().max().item<double>(), 1e-6)
      << what << ", written back";
}

void expect_pytorch_outputs(const std::string& name, int opset) {
  const std::string stem = export_model(name, opset);
  graph::Graph g = graph::load_onnx(stem + ".onnx");
  expect_outputs(g, stem, name + " opset " + std::to_string(opset));
}

TEST(ImportOnnx, W2) {
  NABLA_REQUIRE_ONNX();
  expect_pytorch_outputs("w2", 13);
}

TEST(ImportOnnx, W3AtOpsets13And17) {
  NABLA_REQUIRE_ONNX();
  expect_pytorch_outputs("w3", 13);
  expect_pytorch_outputs("w3", 17);
}

TEST(ImportOnnx, ResNet18) {
  NABLA_REQUIRE_ONNX();
  expect_pytorch_outputs("resnet18", 13);
}

TEST(ImportOnnx, MobileNetV2) {
  NABLA_REQUIRE_ONNX();
  expect_pytorch_outputs("mobilenet_v2", 13);
}

// Multi-head attention's shape arithmetic (Shape, Gather, integer Div, Slice) folded at
// import; LayerNormalization at opset 17, decomposed (ReduceMean, Pow, Sqrt) at 13.
TEST(ImportOnnx, TransformerEncoderLayerAtOpsets13And17) {
  NABLA_REQUIRE_ONNX();
  expect_pytorch_outputs("transformer", 13);
  expect_pytorch_outputs("transformer", 17);
}

// An embedding (Gather of a table by the input), an LSTM with its gates reordered, and the
// zero initial states the exporter builds from Shape -> Gather -> Concat -> Expand.
TEST(ImportOnnx, LstmClassifierAtOpsets13And17) {
  NABLA_REQUIRE_ONNX();
  expect_pytorch_outputs("lstm", 13);
  expect_pytorch_outputs("lstm", 17);
}

// Split (sizes from an input; equal parts), Cast folded on shapes and computed on tensors,
// ReduceSum with its axes an input.
TEST(ImportOnnx, SplitCastReduceSum) {
  NABLA_REQUIRE_ONNX();
  expect_pytorch_outputs("split_cast", 13);
}

// Two bidirectional LSTM nodes, each output reshaped into the next one's input.
TEST(ImportOnnx, BidirectionalTwoLayerLstm) {
  NABLA_REQUIRE_ONNX();
  expect_pytorch_outputs("bilstm", 13);
  expect_pytorch_outputs("bilstm", 17);
}

// GRU and RNN nodes as PyTorch writes them: nabla's fused gru and rnn_relu ops.
TEST(ImportOnnx, GruAndRnn) {
  NABLA_REQUIRE_ONNX();
  expect_pytorch_outputs("gru_rnn", 13);
  expect_pytorch_outputs("gru_rnn", 17);
}

// Resize (Note [Separable resize]): bilinear (half_pixel), nearest (asymmetric, floor) and
// bicubic (align_corners), as torch.onnx.export writes F.interpolate.
TEST(ImportOnnx, ResizeModes) {
  NABLA_REQUIRE_ONNX();
  expect_pytorch_outputs("resize", 13);
  expect_pytorch_outputs("resize", 17);
}

// Operators imported as function nodes of eager ops (unrolled recurrences, Resize, Einsum,
// LRN, GatherND, RoiAlign, Det): the gradient of the graph applied to float64 values of the test's
// inputs agrees with central differences, for each data input (Resize's scales are a
// setting: like PyTorch's scale_factor, they get no gradient).
TEST(ImportOnnx, FunctionNodeGradientsMatchFiniteDifferences) {
  NABLA_REQUIRE_ONNX();
  const std::string root = "/usr/share/libonnx-testdata/data/node/";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no libonnx-testdata (" << root << ")";
  const std::vector<std::pair<std::string, size_t>> cases = {
      // each test, and how many of its first inputs are data (the floating ones checked)
      {"test_gru_defaults", 3},
      {"test_lstm_with_peepholes", 8},
      {"test_rnn_seq_length", 4},
      {"test_resize_upsample_scales_cubic", 1},
      {"test_einsum_batch_matmul", 2},
      {"test_lrn", 1},
      {"test_gathernd_example_float32", 1},
      {"test_roialign_aligned_true", 1},
      {"test_det_nd", 1}};
  int64_t checked = 0;
  for (const auto& [name, data_inputs] : cases) {
    graph::Graph g = graph::load_onnx(root + name + "/model.onnx");
    std::vector<Tensor> in;
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      Tensor t = graph::load_onnx_tensor(root + name + "/test_data_set_0/input_" +
                                         std::to_string(i) + ".pb");
      if (t.is_floating_point() && i < data_inputs) t = (t.to(kDouble) * 0.5).requires_grad_();
      in.push_back(t);
    }
    const Tensor weights = rand(shape(g.apply(in)[0]), kDouble);
    auto loss = [&](const std::vector<Tensor>& x) { return (g.apply(x)[0] * weights).sum(); };
    loss(in).backward();
    for (size_t i = 0; i < in.size(); ++i) {
      if (!in[i].requires_grad()) continue;
      ASSERT_TRUE(in[i].grad().defined()) << name << " input " << i;
      const Tensor flat = in[i].detach().reshape({-1});
      const std::vector<double> grad = values(in[i].grad());
      NoGradGuard no_grad;
      for (int64_t k = 0; k < flat.numel(); ++k) {
        auto at = [&](double step) {
          std::vector<Tensor> x = in;
          Tensor moved = flat.clone();
          moved[k] += step;
          x[i] = moved.view(in[i].sizes());
          return loss(x).item<double>();
        };
        const double numeric = (at(1e-6) - at(-1e-6)) / 2e-6;
        ++checked;
        EXPECT_NEAR(grad[static_cast<size_t>(k)], numeric, 1e-5 * std::max(1.0, std::abs(numeric)))
            << name << " input " << i << " element " << k;
      }
    }
  }
  std::cout << checked << " gradient elements checked against central differences\n";
  EXPECT_GT(checked, 200);
}

// Exported with a dynamic batch (Shape -> Gather -> Concat -> Reshape): imported for the
// batch asked for, at two batch sizes; without one the error says what to pass.
TEST(ImportOnnx, DynamicBatchImportedForTheShapeGiven) {
  NABLA_REQUIRE_ONNX();
  const std::string dir = temp_path("onnx_models");
  const std::string stem = export_model("cnn_view", 13) + "_dyn";
  const std::string cmd = torch_python() + " " + NABLA_TEST_SOURCE_DIR + "/graph/onnx_models.py " +
                          dir + " cnn_view 13 dynamic && mv " + dir + "/cnn_view.onnx " + stem +
                          ".onnx && mv " + dir + "/cnn_view_io.pt " + stem + "_io.pt";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  graph::Graph g = graph::load_onnx(stem + ".onnx", {{4, 1, 28, 28}});
  expect_outputs(g, stem, "cnn_view, dynamic batch, imported for 4");
  graph::Graph one = graph::load_onnx(stem + ".onnx", {{1, 1, 28, 28}});
  const IValue io = pickle_load(read_bytes(stem + "_io.pt"));
  const Tensor x = io.toGenericDict().at("input").toTensor();
  one.set_value(one.inputs()[0], x.slice(0, 2, 3));
  NoGradGuard no_grad;
  const Tensor want = io.toGenericDict().at("output").toTensor().slice(0, 2, 3);
  EXPECT_LT((one.forward(one.outputs()[0]) - want).abs().max().item<double>(), 1e-4);
  // imported for a batch of 1 (its Reshape computed for it): a batch of 4 is refused
  expect_error([&] { one.set_value(one.inputs()[0], x); },
               {"set_value('input')", "[4, 1, 28, 28]", "[1, 1, 28, 28]"});
  expect_error([&] { graph::load_onnx(stem + ".onnx"); },
               {"(Shape)", "the input 'input'", "[-1, 1, 28, 28]", "pass the input shapes"});
  expect_error([&] { graph::load_onnx(stem + ".onnx", {{4, 3, 28, 28}}); }, {"does not fit"});
}

// Note [Imported weights]: the initializers are parameters; gradient steps through the
// graph lower the loss on a fixed batch.
TEST(ImportOnnx, WeightsAreTrainableParameters) {
  NABLA_REQUIRE_ONNX();
  graph::Graph g = graph::load_onnx(export_model("w3", 13) + ".onnx");
  expect_imported_w3_trains(g);
}

// Note [Settings at run time]: a Reshape whose shape is a model input reads it each time
// the graph runs, and gradients reach the data through it. The model is ONNX's own backend
// test (Debian's libonnx-testdata).
TEST(ImportOnnx, SettingsReadWhenTheGraphRuns) {
  NABLA_REQUIRE_ONNX();
  const std::string path =
      "/usr/share/libonnx-testdata/data/node/test_reshape_reordered_last_dims/model.onnx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no libonnx-testdata (" << path << ")";
  graph::Graph g = graph::load_onnx(path);
  ASSERT_EQ(g.inputs().size(), 2u);
  Tensor data = arange(24, TensorOptions(kFloat)).view({2, 3, 4});
  g.set_value(g.inputs()[0], data);
  g.set_value(g.inputs()[1], tensor({2, 4, 3}, kLong));
  EXPECT_TRUE(equal(g.forward(g.outputs()[0]), data.reshape({2, 4, 3})));
  g.set_value(g.inputs()[1], tensor({6, -1}, kLong));  // another shape, read at this run
  EXPECT_TRUE(equal(g.forward(g.outputs()[0]), data.reshape({6, 4})));
  Tensor x = randn({2, 3, 4}).requires_grad_();
  const Tensor y = g.apply({x, tensor({4, 6}, kLong)})[0];
  EXPECT_EQ(shape(y), (std::vector<int64_t>{4, 6}));
  (y * y).sum().backward();
  EXPECT_TRUE(allclose(x.grad(), 2 * x.detach()));
}

TEST(ImportOnnx, UnsupportedOperatorsAndMalformedFilesAreNamed) {
  NABLA_REQUIRE_ONNX();
  const std::string stem = export_model("unsupported", 16);
  expect_error([&] { graph::load_onnx(stem + ".onnx"); },
               {"load_onnx", "unsupported.onnx", "(RandomUniformLike)", "not supported"});
  expect_error([&] { graph::load_onnx(stem + "_missing.onnx"); }, {"cannot open"});
  const std::string junk = temp_path("junk.onnx");
  std::ofstream(junk, std::ios::binary) << std::string(1000, '\xff');
  expect_error([&] { graph::load_onnx(junk); }, {"not an ONNX model"});
  const auto w2 = read_bytes(export_model("w2", 13) + ".onnx");
  const std::string cut = temp_path("cut.onnx");
  std::ofstream(cut, std::ios::binary)
      .write(w2.data(), static_cast<std::streamsize>(w2.size() / 2));
  expect_error([&] { graph::load_onnx(cut); }, {"load_onnx", "cut.onnx"});
}

}  // namespace
}  // namespace nabla::testing
