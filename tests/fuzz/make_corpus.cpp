// Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/seed-*) with nabla's
// own savers; IDX, CSV and deflated .npz, which nabla reads but does not write, are
// assembled here from the formats' descriptions. Usage: fuzz_make_corpus <corpus dir>.
// Regression inputs (crash-*, named after the bug) sit beside the seeds and are kept.
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include "nabla/graph.h"
#include "nabla/graph/import.h"
#include "nabla/nabla.h"

using namespace nabla;
namespace fs = std::filesystem;

namespace {

fs::path root;

std::string path_of(const std::string& target, const std::string& name) {
  fs::create_directories(root / target);
  return (root / target / ("seed-" + name)).string();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

void put_le(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Small tensors of every dtype the formats carry.
std::vector<Tensor> samples() {
  return {arange(6, kFloat).view({2, 3}),
          arange(4, kDouble),
          arange(3, kLong),
          arange(5, kInt),
          arange(4, kByte).view({2, 2}),
          tensor({true, false, true}),
          arange(4, kFloat).to(kHalf),
          scalar_tensor(2.5, kDouble),
          ones({0, 3}, TensorOptions(kFloat))};
}

void safetensors_seeds() {
  save(samples(), path_of("safetensors", "tensors"));
  std::vector<Tensor> bf16{arange(4, kFloat).to(kBFloat16)};
  save(bf16, path_of("safetensors", "bfloat16"));
  serialize::OutputArchive meta;
  meta.write("w", ones({2}));
  meta.write_metadata("format", "pt");
  meta.save_to(path_of("safetensors", "metadata"));
}

void npy_seeds() {
  const auto ts = samples();
  const char* names[] = {"f4", "f8", "i8", "i4", "u1", "b1", "f2", "scalar", "empty"};
  for (size_t i = 0; i < ts.size(); ++i) save_npy(path_of("npy", names[i]), ts[i]);
  // Fortran order: the same header with the flag flipped ("False" and "True " are 5 bytes).
  std::string f = serialize::detail::encode_npy(arange(6, kFloat).view({2, 3}));
  f.replace(f.find("False"), 5, "True ");
  write_bytes(path_of("npy", "fortran"), f);
}

// One zip entry compressed with raw deflate (method 8), as np.savez_compressed writes.
std::string deflated_npz(const std::string& name, const std::string& npy) {
  std::string packed(compressBound(static_cast<uLong>(npy.size())) + 64, '\0');
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(npy.data()));
  z.avail_in = static_cast<uInt>(npy.size());
  z.next_out = reinterpret_cast<Bytef*>(packed.data());
  z.avail_out = static_cast<uInt>(packed.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate failed");
  packed.resize(z.total_out);
  deflateEnd(&z);
  const uint32_t crc = static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(npy.data()), static_cast<uInt>(npy.size())));
  auto fields = [&](std::string& dst) {
    put_le(dst, 20, 2);  // version needed
    put_le(dst, 0, 2);   // flags
    put_le(dst, 8, 2);   // method: deflate
    put_le(dst, 0, 4);   // time, date
    put_le(dst, crc, 4);
    put_le(dst, packed.size(), 4);
    put_le(dst, npy.size(), 4);
    put_le(dst, name.size(), 2);
    put_le(dst, 0, 2);  // extra
  };
  std::string out;
  put_le(out, 0x04034b50, 4);
  fields(out);
  out += name + packed;
  const size_t dir_at = out.size();
  put_le(out, 0x02014b50, 4);
  put_le(out, 20, 2);  // version made by
  fields(out);
  put_le(out, 0, 2 + 2 + 2);  // comment length, disk, internal attributes
  put_le(out, 0, 4);          // external attributes
  put_le(out, 0, 4);          // local header offset
  out += name;
  const size_t dir_size = out.size() - dir_at;
  put_le(out, 0x06054b50, 4);
  put_le(out, 0, 4);  // disk numbers
  put_le(out, 1, 2);
  put_le(out, 1, 2);
  put_le(out, dir_size, 4);
  put_le(out, dir_at, 4);
  put_le(out, 0, 2);  // comment length
  return out;
}

void npz_seeds() {
  const auto ts = samples();
  save_npz(path_of("npz", "stored"), {{"w", ts[0]}, {"idx", ts[2]}, {"mask", ts[5]}});
  save_npz(path_of("npz", "empty"), {});
  write_bytes(path_of("npz", "deflated"),
              deflated_npz("x.npy", serialize::detail::encode_npy(arange(64, kFloat))));
}

std::string idx(const std::vector<uint32_t>& shape) {
  std::string out{'\0', '\0', '\x08', static_cast<char>(shape.size())};
  size_t n = 1;
  for (uint32_t d : shape) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((d >> s) & 0xff));
    n *= d;
  }
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>(i * 7));
  return out;
}

void idx_seeds() {
  write_bytes(path_of("idx", "images"), idx({2, 28, 28}));
  write_bytes(path_of("idx", "labels"), idx({5}));
  write_bytes(path_of("idx", "4d"), idx({2, 1, 3, 2}));
  const std::string gz = path_of("idx", "labels.gz");
  const std::string raw = idx({3, 4});
  gzFile f = gzopen(gz.c_str(), "wb");
  if (f == nullptr || gzwrite(f, raw.data(), static_cast<unsigned>(raw.size())) <= 0 ||
      gzclose(f) != Z_OK)
    throw std::runtime_error("cannot write " + gz);
}

void csv_seeds() {
  write_bytes(path_of("csv", "header"), "x,y,label\n1.5,-2,0\n3e2,4,1\r\n\n-0.25,nan,2\n");
  write_bytes(path_of("csv", "plain"), "1,2,3\n4,5,6\n");
  write_bytes(path_of("csv", "semicolon"), "a;b\n1;2\n 3 ;4\n");
}

void checkpoint_seeds() {
  nn::Linear model(3, 2);
  save(model, path_of("checkpoint", "linear"));
  auto train = [&](optim::Optimizer& opt, const std::string& name) {
    for (int i = 0; i < 2; ++i) {
      opt.zero_grad();
      model->forward(ones({4, 3})).sum().backward();
      opt.step();
    }
    save(opt, path_of("checkpoint", name));
  };
  optim::SGD sgd(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  train(sgd, "sgd");
  optim::Adam adam(model->parameters(), optim::AdamOptions(0.1).amsgrad(true));
  train(adam, "adam");
  optim::RMSprop rms(model->parameters(), optim::RMSpropOptions(0.1).centered(true).momentum(0.5));
  train(rms, "rmsprop");
  optim::Adagrad ada(model->parameters(), optim::AdagradOptions(0.1));
  train(ada, "adagrad");
}

void torch_file_seeds() {
  const auto ts = samples();
  GenericDict state;
  for (size_t i = 0; i < ts.size(); ++i) state.insert_or_assign("t" + std::to_string(i), ts[i]);
  state.insert_or_assign("view", ts[0].t());
  state.insert_or_assign(
      "nested", GenericList{1, 2.5, "s", IValue(), true, IValue(ivalue::Tuple::create({-70000}))});
  auto write = [](const std::string& name, const IValue& v) {
    const auto bytes = pickle_save(v);
    write_bytes(path_of("torch_file", name), std::string(bytes.begin(), bytes.end()));
  };
  write("state_dict", IValue(state));
  write("tensor", ts[0]);
  nn::Linear model(3, 2);
  save(model, path_of("torch_file", "module.pt"));
}

}  // namespace

// Models graph::save_onnx writes from traced modules (nothing when built without ONNX).
void onnx_seeds() {
  if (!graph::onnx_available()) return;
  manual_seed(0);
  auto write = [](const std::string& name,
                  const std::function<Tensor(const std::vector<Tensor>&)>& f,
                  const std::vector<Tensor>& in) {
    graph::save_onnx(graph::trace(f, in), path_of("onnx", name));
  };
  nn::Sequential mlp(nn::Linear(6, 4), nn::Functional(relu), nn::Linear(4, 3), nn::LogSoftmax(1));
  write("mlp", [&](const std::vector<Tensor>& x) { return mlp->forward(x[0]); }, {rand({2, 6})});
  nn::Sequential cnn(nn::Conv2d(nn::Conv2dOptions(1, 2, 3).padding(1)), nn::BatchNorm2d(2),
                     nn::Functional(relu), nn::MaxPool2d(nn::MaxPool2dOptions(2)), nn::Flatten());
  cnn->eval();
  write("cnn", [&](const std::vector<Tensor>& x) { return cnn->forward(x[0]); },
        {rand({1, 1, 4, 4})});
  nn::LSTM lstm(nn::LSTMOptions(3, 2));
  write("lstm", [&](const std::vector<Tensor>& x) { return std::get<0>(lstm->forward(x[0])); },
        {rand({2, 1, 3})});
  write("shapes",  // integer inputs, reshapes, slices, gathers, reductions
        [](const std::vector<Tensor>& x) {
          return x[0].reshape({2, 3}).slice(1, 1, 3).sum(0) + x[1].index_select(0, x[2]).mean();
        },
        {arange(6, kFloat), rand({4}), tensor({0, 2}, kLong)});
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_make_corpus <corpus dir>\n";
    return 2;
  }
  root = argv[1];
  safetensors_seeds();
  npy_seeds();
  npz_seeds();
  idx_seeds();
  csv_seeds();
  checkpoint_seeds();
  torch_file_seeds();
  onnx_seeds();
  return 0;
}
