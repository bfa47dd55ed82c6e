#pragma once
// PyTorch's torch.save file (the zip format of PyTorch >= 1.6): a ZIP archive whose
// entries sit under one folder, <archive>/data.pkl (the pickled object), <archive>/data/<key>
// (each storage's raw bytes, 64-byte aligned), <archive>/version ("3") and, from PyTorch
// 2.0, <archive>/byteorder ("little" or "big").
#include <memory>
#include <string>
#include <string_view>

#include "nabla/core/ivalue.h"

namespace nabla::serialize::detail {

/// What a file's first bytes say it is.
enum class FileKind {
  TorchZip,     // a ZIP archive: torch.save's format (or TorchScript's, refused when read)
  LegacyTorch,  // torch.save before PyTorch 1.6: a bare pickle stream or a tar archive
  Other,        // safetensors, or anything else
};
FileKind sniff_file(std::string_view head);

/// Whether `path` names a PyTorch file by its extension (.pt, .pth), which save() writes
/// in torch.save's format instead of safetensors.
bool has_torch_extension(const std::string& path);

/// The bytes of a torch.save file holding `value` (pickle.h's `pickle` says how).
std::string encode_torch_file(const IValue& value);

/// Reads a torch.save file held in `bytes`; `source` names it in errors. With `keep_alive`
/// set, storages that need no conversion are views into `bytes` (which `keep_alive` owns;
/// each storage holds a reference to it), else every storage is copied. A malformed or
/// unsupported file is a nabla::Error naming `op`, the source and the problem.
IValue decode_torch_file(std::string_view bytes, const std::string& source, const char* op,
                         std::shared_ptr<const void> keep_alive = nullptr);

}  // namespace nabla::serialize::detail
