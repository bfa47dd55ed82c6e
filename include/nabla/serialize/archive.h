#pragma once
// Archives: the flat, named collection of tensors that save/load write and read, as
// LibTorch's torch::serialize::OutputArchive / InputArchive. On disk an archive is one
// safetensors file (docs/io.md): every tensor under its dotted key ("conv1.weight",
// "state.0.exp_avg"), scalars as 0-d tensors, and string metadata in "__metadata__".
// Nested archives flatten: writing archive B under key "opt" stores B's "lr" as "opt.lr".
// A file named *.pt or *.pth is written in torch.save's format instead (a dict of key to
// tensor, metadata as strings: Python's torch.load reads it as a state_dict),
// and either format is read by its content.
//
// Modules write their parameters and buffers (Module::save), optimizers their state; the
// free functions nabla::save / nabla::load (nabla/serialize.h) wrap them.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nabla/core/ivalue.h"
#include "nabla/core/optional.h"
#include "nabla/core/ordered_dict.h"
#include "nabla/core/tensor.h"

namespace nabla::serialize {

/// What loading a module found different (torch.nn.Module.load_state_dict's result, plus
/// the entries whose shape or dtype differs, which PyTorch raises on): nabla::load(module,
/// path, /*strict=*/false) returns it.
struct IncompatibleKeys {
  struct Mismatch {
    std::string key;
    std::string in_file;    // "[3, 2] Float"
    std::string in_module;  // "[4, 2] Float"
  };
  std::vector<std::string> missing_keys;     // the module's, absent from the file
  std::vector<std::string> unexpected_keys;  // the file's, absent from the module
  std::vector<Mismatch> mismatched_keys;     // in both, with a different shape or dtype
  /// Submodules of missing keys with no entry at all in the file ("a.x" when the file has
  /// nothing under "a.x."), the outermost such prefix of each.
  std::vector<std::string> missing_submodules;
  bool empty() const {
    return missing_keys.empty() && unexpected_keys.empty() && mismatched_keys.empty();
  }
  /// Every difference, one group per line.
  std::string describe() const;
};

class OutputArchive {
 public:
  /// Stores `tensor` (its data at call time, detached; any dtype, any layout) under `key`.
  /// A key written twice is an error.
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false);
  /// Stores every entry of `nested` under "key.<its key>".
  void write(const std::string& key, const OutputArchive& nested);
  /// Scalars, stored as 0-d float64 / int64 tensors.
  void write(const std::string& key, double value);
  void write(const std::string& key, int64_t value);
  /// A tensor, int, double, bool or string as an IValue (LibTorch's write(key, IValue));
  /// read(key, IValue&) gives back the same kind. Other kinds are a nabla::Error.
  void write(const std::string& key, const IValue& value);
  /// A string stored in the safetensors "__metadata__" map (not a tensor).
  void write_metadata(const std::string& key, const std::string& value);

  /// Writes the archive as a safetensors file (torch.save's format for *.pt, *.pth), atomically: a
  /// temporary file in the same directory, fsync, rename. A failure leaves any previous file
  /// untouched and raises nabla::Error naming the path and the reason.
  void save_to(const std::string& filename) const;
  void save_to(std::ostream& stream) const;
  /// Hands the file's bytes to `writer` (LibTorch's writer function), which returns how
  /// many it took; fewer than given is an error.
  void save_to(const std::function<size_t(const void* data, size_t size)>& writer) const;

  const OrderedDict<std::string, Tensor>& tensors() const { return tensors_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  OrderedDict<std::string, Tensor> tensors_{"Archive key"};
  std::map<std::string, std::string> metadata_;
};

class InputArchive {
 public:
  InputArchive();

  /// Reads a safetensors file or a torch.save file (by its first bytes). Malformed,
  /// truncated or hostile files (huge declared lengths, offsets past the end, bad JSON,
  /// unknown dtypes, overlapping ranges, pickles naming code) raise nabla::Error naming
  /// the file and the problem, without large allocations. The file is mapped, not read:
  /// its tensors use the file's pages until written (copy-on-write), so loading a module
  /// makes one copy of the weights, into the module. A torch.save file's nested dicts and lists
  /// flatten to dotted keys ({"model": {"fc.weight": t}} gives "model.fc.weight"), ints,
  /// floats and bools to 0-d tensors, strings to metadata. With `device`, read() places
  /// what it reads there (torch::load's device argument: a module's parameters move to it);
  /// without, a defined destination receives the values on its own device.
  void load_from(const std::string& filename, optional<Device> device = nullopt);
  void load_from(std::istream& stream, optional<Device> device = nullopt);
  /// From `size` bytes in memory (copied).
  void load_from(const char* data, size_t size, optional<Device> device = nullopt);
  /// From a reader (LibTorch's read function: `read(pos, buf, n)` copies up to n bytes
  /// from offset pos and returns how many) of `size()` bytes.
  void load_from(const std::function<size_t(uint64_t pos, void* buf, size_t n)>& read,
                 const std::function<size_t()>& size, optional<Device> device = nullopt);

  /// Where read() places what it reads from now on (nullopt: where the file's tensors are,
  /// the CPU); shared with nested archives. load_from's `device` sets it.
  void set_device(optional<Device> device);
  optional<Device> device() const;

  /// Reads `key` into `tensor`: an undefined tensor is assigned the stored one; a
  /// defined tensor (a parameter) must have the stored shape and dtype and receives its
  /// values in place, under no_grad, keeping requires_grad. Missing key, shape or dtype
  /// mismatch raise nabla::Error naming the key, what was stored and what was expected
  /// (unless collect_mismatches is on).
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  bool try_read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  /// The entries under "key." as an archive of their own (keys without the prefix). It
  /// shares this archive's record of which entries were read.
  void read(const std::string& key, InputArchive& nested) const;
  bool try_read(const std::string& key, InputArchive& nested) const;
  void read(const std::string& key, double& value);
  void read(const std::string& key, int64_t& value);
  /// What write(key, IValue) stored (a tensor written as one comes back as a tensor); a
  /// missing key is an error ("does not have a field with name"), or false from try_read.
  void read(const std::string& key, IValue& value);
  bool try_read(const std::string& key, IValue& value);
  /// A "__metadata__" string (empty optional when absent).
  optional<std::string> read_metadata(const std::string& key) const;

  /// With `on`, read() of a missing key or of a different shape or dtype records it and
  /// leaves the destination as it is, instead of raising (nabla::load of a module reports
  /// them all at once). Shared with nested archives.
  void collect_mismatches(bool on);
  /// The recorded differences, and the entries nothing read as unexpected keys.
  IncompatibleKeys incompatible_keys() const;

  /// The tensor keys under this archive's prefix, in file order; and those no read()
  /// has asked for yet (nabla::load reports them as unexpected entries).
  std::vector<std::string> keys() const;
  std::vector<std::string> unread_keys() const;
  bool contains(const std::string& key) const;

 private:
  struct State;
  const Tensor* find(const std::string& key) const;
  void load_from_bytes(std::string_view bytes, const std::string& source,
                       std::shared_ptr<const void> keep_alive);
  std::shared_ptr<State> state_;
  std::string prefix_;  // "" at the top, "conv1." for a nested archive
};

}  // namespace nabla::serialize
