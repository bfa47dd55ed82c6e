// graph::load_pnnx against PyTorch: the fixtures in tests/fixtures/pnnx were converted by
// the real pnnx from models traced with python3-torch (make_fixtures.py there, README.md
// names the pnnx commit), each with PyTorch's input and output in NAME_io.npz. The
// imported graphs give PyTorch's outputs, their weights train, and malformed files and
// unmapped operators are errors naming the file, the line and the operator.
#include <nabla/graph/import.h>

#include "graph/imported_training.h"
#include "graph/pnnx_param.h"
#include "test_util.h"

namespace nabla::testing {
namespace {

const std::string kPnnxFixtures = std::string(NABLA_TEST_SOURCE_DIR) + "/fixtures/pnnx/";

// The .pnnx.bin of `name`: committed, or extracted from NAME.pnnx.tar.xz by CMake.
std::string pnnx_bin(const std::string& name) {
  const std::string committed = kPnnxFixtures + name + ".pnnx.bin";
  if (std::filesystem::exists(committed)) return committed;
  return std::string(NABLA_PNNX_EXTRACTED) + "/" + name + ".pnnx.bin";
}

graph::Graph load_fixture(const std::string& name) {
  return graph::load_pnnx(kPnnxFixtures + name + ".pnnx.param", pnnx_bin(name));
}

double pnnx_difference(const Tensor& got, const Tensor& want) {
  if (!got.is_floating_point()) return (got != want).sum().item<double>();
  return (got - want).abs().max().item<double>() / std::max(1.0, want.abs().max().item<double>());
}

// Every output of the imported graph on PyTorch's input(s), against PyTorch's.
void expect_pnnx_outputs(const std::string& name) {
  graph::Graph g = load_fixture(name);
  const auto io = load_npz(kPnnxFixtures + name + "_io.npz");
  for (size_t i = 0; i < g.inputs().size(); ++i)
    g.set_value(g.inputs()[i], io["input" + std::to_string(i)]);
  size_t outputs = 0;
  while (io.contains("output" + std::to_string(outputs))) ++outputs;
  ASSERT_EQ(g.outputs().size(), outputs) << name;
  NoGradGuard no_grad;
  const std::vector<Tensor> got = g.forward(g.outputs());
  double worst = 0;
  for (size_t i = 0; i < outputs; ++i) {
    const Tensor want = io["output" + std::to_string(i)];
    ASSERT_EQ(shape(got[i]), shape(want)) << name << " output " << i;
    const double err = pnnx_difference(got[i].to(want.scalar_type()), want);
    EXPECT_LT(err, 1e-4) << name << " output " << i;
    worst = std::max(worst, err);
  }
  std::cout << name << " (" << g.size() << " nodes, " << g.parameters().size()
            << " parameters): max relative difference from PyTorch " << worst << "\n";
}

TEST(ImportPnnx, W2) { expect_pnnx_outputs("w2"); }
TEST(ImportPnnx, W3) { expect_pnnx_outputs("w3"); }
// Batch norms folded into the convolutions by pnnx (its convbn2d_* operators).
TEST(ImportPnnx, ResNet18) {
  expect_pnnx_outputs("resnet18");
  // converted at 64x64, but nothing in it depends on the size: it runs on other batches
  // and image sizes (as bench/import_resnet18.sh runs it at 224x224)
  graph::Graph g = load_fixture("resnet18");
  g.set_value(g.inputs()[0], rand({2, 3, 96, 96}));
  NoGradGuard no_grad;
  EXPECT_EQ(shape(g.forward(g.outputs()[0])), (std::vector<int64_t>{2, 1000}));
}
TEST(ImportPnnx, MobileNetV2) { expect_pnnx_outputs("mobilenet_v2"); }
// nn.MultiheadAttention decomposed, pnnx.Expression residual additions, nn.LayerNorm.
TEST(ImportPnnx, TransformerEncoderLayer) { expect_pnnx_outputs("transformer"); }
TEST(ImportPnnx, LstmClassifier) { expect_pnnx_outputs("lstm"); }
// nn.GRU, a two-layer bidirectional nn.LSTM and nn.RNN, every output of each.
TEST(ImportPnnx, RecurrentLayers) { expect_pnnx_outputs("rnns"); }
// Module operators: padding="same", reflect padding, transposed and 1-d convolutions,
// group/instance/batch/layer norms, pooling of each kind, upsampling, activations.
TEST(ImportPnnx, ModuleOperators) { expect_pnnx_outputs("layers"); }
// torch.* / Tensor.* / F.* operators and pnnx.Expression arithmetic, 17 outputs.
TEST(ImportPnnx, FunctionOperatorsAndExpressions) { expect_pnnx_outputs("functions"); }
// The rest of the operator table: pad modules, circular/replicate padded and transposed
// 1-d convolutions, more activations, upsampling modes, reductions, comparisons, casts.
TEST(ImportPnnx, MoreOperators) { expect_pnnx_outputs("extras"); }

// Converted with two input shapes, pnnx keeps the sizes as expressions (a reshape's $shape
// list, a slice's $end, a division by a width): fixed at import for the shape asked for.
TEST(ImportPnnx, SizesKeptAsExpressionsAreFixedForTheShapesGiven) {
  const auto io = load_npz(kPnnxFixtures + "dynamic_io.npz");
  for (const std::string prefix : {"", "second_"}) {
    const Tensor x = io[prefix + "input0"], want = io[prefix + "output0"];
    graph::Graph g =
        graph::load_pnnx(kPnnxFixtures + "dynamic.pnnx.param", pnnx_bin("dynamic"), {shape(x)});
    g.set_value(g.inputs()[0], x);
    NoGradGuard no_grad;
    const Tensor got = g.forward(g.outputs()[0]);
    ASSERT_EQ(shape(got), shape(want));
    EXPECT_LT(pnnx_difference(got, want), 1e-4) << x.sizes();
    // its sizes were computed for x's shape: another shape is refused, not run
    const Tensor other = io[(prefix.empty() ? "second_" : "") + std::string("input0")];
    expect_error(
        [&] { g.set_value(g.inputs()[0], other); },
        {"set_value('pnnx_input_0')", "got a tensor of shape", "but the graph was built for"});
  }
  expect_error(
      [] { load_fixture("dynamic"); },
      {"line 5", "pnnx_expr_18", "the input 'pnnx_input_0'", "(?,3,?,?)", "pass the input shapes"});
  expect_error(
      [] {
        graph::load_pnnx(kPnnxFixtures + "dynamic.pnnx.param", pnnx_bin("dynamic"), {{2, 4, 8, 8}});
      },
      {"line 3", "(2,4,8,8)", "does not fit the file's (?,3,?,?)"});
}

// Module weights are parameters named "<operator>.<weight>"; gradient steps through the
// graph lower the loss on a fixed batch.
TEST(ImportPnnx, WeightsAreTrainableParameters) {
  graph::Graph g = load_fixture("w3");
  EXPECT_EQ(g.find("0.weight").value().sizes().vec(), (std::vector<int64_t>{32, 1, 3, 3}));
  expect_imported_w3_trains(g);
}

// An imported graph re-evaluates only what changed: nothing when nothing did, only the
// last layer when its weight changes in place (as an optimizer's step changes it).
TEST(ImportPnnx, PartialReevaluation) {
  graph::Graph g = load_fixture("w3");
  g.set_value(g.inputs()[0], rand({4, 1, 28, 28}));
  NoGradGuard no_grad;
  const Tensor before = g.forward(g.outputs()[0]).clone();
  EXPECT_EQ(g.last_forward_computed(), 10);  // 2 conv, 3 relu, 2 pool, flatten, 2 linear
  g.forward(g.outputs()[0]);
  EXPECT_EQ(g.last_forward_computed(), 0);
  g.find("9.weight").value().mul_(2.0);  // the last nn.Linear, operator "9"
  const Tensor after = g.forward(g.outputs()[0]);
  EXPECT_EQ(g.last_forward_computed(), 1);
  const Tensor bias = g.find("9.bias").value();
  EXPECT_LT(((after - bias) - (before - bias) * 2.0).abs().max().item<double>(), 1e-4);
  // nothing in W3 depends on the batch size: its input stays free to take another one
  g.set_value(g.inputs()[0], rand({2, 1, 28, 28}));
  EXPECT_EQ(shape(g.forward(g.outputs()[0])), (std::vector<int64_t>{2, 10}));
}

// ---- the text format, on hand-written files

using graph::detail::parse_pnnx_expression;
using graph::detail::parse_pnnx_value;
using graph::detail::PnnxExpr;
using graph::detail::PnnxValue;

TEST(ImportPnnx, ValuesInBothFloatSpellings) {
  EXPECT_EQ(parse_pnnx_value("None").kind, PnnxValue::Kind::None);
  EXPECT_EQ(parse_pnnx_value("()").kind, PnnxValue::Kind::None);
  EXPECT_EQ(parse_pnnx_value("True").ints, (std::vector<int64_t>{1}));
  EXPECT_EQ(parse_pnnx_value("-3").ints, (std::vector<int64_t>{-3}));
  for (const char* eps :
       {"1.000000e-05", "1.000000e-5", "1e-05"}) {  // pnnx before and after 20260113
    const PnnxValue v = parse_pnnx_value(eps);
    EXPECT_EQ(v.kind, PnnxValue::Kind::Float) << eps;
    EXPECT_DOUBLE_EQ(v.floats.at(0), 1e-5) << eps;
  }
  EXPECT_DOUBLE_EQ(parse_pnnx_value("6.0").floats.at(0), 6.0);
  EXPECT_DOUBLE_EQ(parse_pnnx_value("1.000000e6").floats.at(0), 1e6);
  EXPECT_EQ(parse_pnnx_value("(3,3)").ints, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(parse_pnnx_value("(5)").kind, PnnxValue::Kind::IntList);
  const PnnxValue scales = parse_pnnx_value("(2.0,2)");
  EXPECT_EQ(scales.kind, PnnxValue::Kind::FloatList);
  EXPECT_EQ(scales.floats, (std::vector<double>{2.0, 2.0}));
  EXPECT_EQ(parse_pnnx_value("zeros").kind, PnnxValue::Kind::String);
  const PnnxValue mixed = parse_pnnx_value("(0,@0,0)");  // pnnx.SliceIndexes
  EXPECT_EQ(mixed.kind, PnnxValue::Kind::StringList);
  EXPECT_EQ(mixed.strings, (std::vector<std::string>{"0", "@0", "0"}));
  expect_error([] { parse_pnnx_value("(1,2"); }, {"unterminated"});
  expect_error([] { parse_pnnx_value("1.5.5"); }, {"not a number"});
}

TEST(ImportPnnx, Expressions) {
  const PnnxExpr e =
      parse_pnnx_expression("sub(floor_divide(size(@0,0),64),mul(@1,2.000000e+00))", "t");
  ASSERT_EQ(e.kind, PnnxExpr::Kind::Call);
  EXPECT_EQ(e.name, "sub");
  ASSERT_EQ(e.args.size(), 2u);
  EXPECT_EQ(e.args[0].args[0].name, "size");
  EXPECT_EQ(e.args[0].args[0].args[0].kind, PnnxExpr::Kind::Input);
  EXPECT_EQ(e.args[1].args[1].kind, PnnxExpr::Kind::Float);
  EXPECT_DOUBLE_EQ(e.args[1].args[1].number, 2.0);
  const PnnxExpr list = parse_pnnx_expression("[1,-1,int(size(@0,2)),1e-5]", "t");
  ASSERT_EQ(list.kind, PnnxExpr::Kind::List);
  EXPECT_EQ(list.args[1].integer, -1);
  EXPECT_EQ(list.args[2].name, "int");
  EXPECT_DOUBLE_EQ(list.args[3].number, 1e-5);
  EXPECT_EQ(parse_pnnx_expression("torch.float(@0)", "t").name, "torch.float");
  expect_error([] { parse_pnnx_expression("add(@0,", "op 'x'"); }, {"op 'x'", "add(@0,"});
  expect_error([] { parse_pnnx_expression("add(@0,@1))", "t"); }, {"unexpected ')'"});
  expect_error([] { parse_pnnx_expression("mul(@0,1+2j)", "t"); }, {"complex"});
  expect_error([] { parse_pnnx_expression(std::string(300, '[') + std::string(300, ']'), "t"); },
               {"nested too deeply"});
}

// Writes a .pnnx.param with `lines` after the magic and counts, and an empty .pnnx.bin.
std::string write_pnnx_param(const std::string& name, const std::string& body) {
  const std::string path = temp_path(name + ".pnnx.param");
  std::ofstream(path) << body;
  return path;
}

std::string empty_pnnx_bin() {
  const std::string path = temp_path("empty.pnnx.bin");
  // an archive with no entries: the end-of-central-directory record alone
  std::ofstream(path, std::ios::binary) << std::string("PK\x05\x06", 4) << std::string(18, '\0');
  return path;
}

// A graph in pnnx's newer float spelling with expressions that use shapes, literals and
// several inputs, written by hand: shapes are fixed at import from the annotations.
TEST(ImportPnnx, HandWrittenGraphWithShapeExpressions) {
  const std::string param =
      write_pnnx_param("expr",
                       "7767517\n"
                       "6 6\n"
                       "pnnx.Input in0 0 1 0 #0=(2,3,4)f32\n"
                       "pnnx.Input in1 0 1 1 #1=(2,3,4)f32\n"
                       "pnnx.Expression e0 2 1 0 1 2 expr=add(mul(@0,2.0),div(@1,size(@0,2)))\n"
                       "pnnx.Expression e1 1 1 0 3 expr=[int(size(@0,0)),-1]\n"
                       "Tensor.reshape r 2 1 2 3 4 $input=2 $shape=3\n"
                       "pnnx.Output out 1 0 4\n");
  graph::Graph g = graph::load_pnnx(param, empty_pnnx_bin());
  const Tensor a = rnd({2, 3, 4}), b = rnd({2, 3, 4});
  g.set_value(g.inputs()[0], a);
  g.set_value(g.inputs()[1], b);
  const Tensor got = g.forward(g.outputs()[0]);
  EXPECT_LT((got - (a * 2.0 + b / 4.0).reshape({2, 12})).abs().max().item<double>(), 1e-6);
}

// Function operators the importer's table does not list are read from the op's schema
// row: inputs by their `$` names, settings by attribute name and type (Note [PNNX by
// schema]), Python's string reductions as the enum.
TEST(ImportPnnx, FunctionsOutsideTheTableFollowTheirSchemas) {
  const std::string param = write_pnnx_param(
      "schema",
      "7767517\n"
      "6 5\n"
      "pnnx.Input in0 0 1 0 #0=(1,2,4,4,4)f32\n"
      "pnnx.Input in1 0 1 1 #1=(1,2,2,2,2)f32\n"
      "F.avg_pool3d p 1 1 0 2 $input=0 kernel_size=(2,2,2) stride=(2,2,2) padding=(0,0,0) "
      "ceil_mode=False count_include_pad=True divisor_override=None\n"
      "F.mse_loss l 2 1 2 1 3 $input=2 $target=1 reduction=sum\n"
      "F.adaptive_max_pool3d q 1 2 0 4 5 $input=0 output_size=(1,2,2)\n"
      "pnnx.Output out 2 0 3 5\n");
  graph::Graph g = graph::load_pnnx(param, empty_pnnx_bin());
  const Tensor x = rnd({1, 2, 4, 4, 4}).detach().to(kFloat),
               y = rnd({1, 2, 2, 2, 2}).detach().to(kFloat);
  g.set_value(g.inputs()[0], x);
  g.set_value(g.inputs()[1], y);
  const Tensor want = mse_loss(avg_pool3d(x, 2), y, Reduction::Sum);
  EXPECT_TRUE(g.forward(g.outputs()[0]).allclose(want));
  EXPECT_TRUE(g.forward(g.outputs()[1]).equal(std::get<1>(adaptive_max_pool3d(x, {1, 2, 2}))));
  // A setting of the wrong kind is named.
  const std::string bad =
      write_pnnx_param("schema_bad",
                       "7767517\n"
                       "3 2\n"
                       "pnnx.Input in0 0 1 0 #0=(1,2,4,4,4)f32\n"
                       "F.avg_pool3d p 1 1 0 1 $input=0 kernel_size=(2,2,2) ceil_mode=maybe\n"
                       "pnnx.Output out 1 0 1\n");
  expect_error([&] { graph::load_pnnx(bad, empty_pnnx_bin()); }, {"'p'", "ceil_mode"});
}

TEST(ImportPnnx, MalformedFilesAreNamed) {
  const std::string bin = empty_pnnx_bin();
  auto expect_param_error = [&](const std::string& body, std::initializer_list<std::string> parts) {
    const std::string param = write_pnnx_param("bad", body);
    expect_error([&] { graph::load_pnnx(param, bin); }, {"bad.pnnx.param"});
    expect_error([&] { graph::load_pnnx(param, bin); }, parts);
  };
  expect_param_error("7767518\n", {"line 1", "magic"});
  expect_param_error("7767517\nx y\n", {"line 2", "operand count"});
  expect_param_error("7767517\n2 1\npnnx.Input a 0 1 0\n", {"declares 2 operators and holds 1"});
  expect_param_error("7767517\n1 1\npnnx.Output o 1 0 7\n", {"line 3", "'7'", "no earlier line"});
  expect_param_error("7767517\n2 1\npnnx.Input a 0 1 0\npnnx.Input b 0 1 0\n",
                     {"line 4", "defined twice"});
  expect_param_error("7767517\n1 1\npnnx.Input a 0 1\n", {"line 3", "expected"});
  expect_param_error("7767517\n2 2\npnnx.Input a 0 1 0 #0=(1,x)f32\nnn.ReLU r 1 1 0 1\n",
                     {"line 3", "'x'"});
  expect_param_error("7767517\n2 2\npnnx.Input a 0 1 0\nnn.ReLU r 1 1 0 1 $input=9\n",
                     {"line 4", "$input=9"});
  // an operator nabla does not map, named with its line
  expect_param_error(
      "7767517\n3 2\npnnx.Input a 0 1 0 #0=(1,2)f32\nnn.Frobnicate f 1 1 0 1\npnnx.Output o 1 0 "
      "1\n",
      {"line 4", "'f'", "(nn.Frobnicate)", "not supported"});
  // a weight the .pnnx.bin does not hold, and a bin that is not a zip archive
  expect_param_error(
      "7767517\n3 2\npnnx.Input a 0 1 0 #0=(1,2)f32\nnn.Linear fc 1 1 0 1 bias=False in_features=2 "
      "out_features=3 @weight=(3,2)f32\npnnx.Output o 1 0 1\n",
      {"line 4", "'fc'", "no entry 'fc.weight'"});
  const std::string junk = temp_path("junk.pnnx.bin");
  std::ofstream(junk, std::ios::binary) << std::string(100, 'x');
  expect_error([&] { graph::load_pnnx(kPnnxFixtures + "w2.pnnx.param", junk); },
               {"load_pnnx", "junk.pnnx.bin", "zip"});
  expect_error([&] { graph::load_pnnx(kPnnxFixtures + "missing.pnnx.param", junk); },
               {"cannot open"});
  // the right archive for another model: w3's weights are not in w2's
  expect_error([&] { graph::load_pnnx(kPnnxFixtures + "w3.pnnx.param", pnnx_bin("w2")); },
               {"w3.pnnx.param", "line 4", "'0.weight' holds 802816 bytes", "need 1152"});
  // a truncated archive
  const std::string cut = temp_path("cut.pnnx.bin");
  {
    std::ifstream in(pnnx_bin("w2"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  expect_error([&] { graph::load_pnnx(kPnnxFixtures + "w2.pnnx.param", cut); },
               {"load_pnnx", "cut.pnnx.bin"});
}

}  // namespace
}  // namespace nabla::testing
