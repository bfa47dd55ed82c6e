#pragma once
// nabla::pickle_save / nabla::pickle_load, as torch::pickle_save / torch::pickle_load: an
// IValue to and from the bytes of a torch.save file, the format Python's torch.save and
// torch.load use (a ZIP archive around a pickle; storages shared between tensors stay
// shared, views keep their offsets and strides).
//   std::vector<char> bytes = nabla::pickle_save(nabla::IValue(tensor));
//   nabla::IValue state_dict = nabla::pickle_load(read_file("model.pt"));
// Reading runs no code: only what torch.load(path, weights_only=True) accepts (tensors,
// OrderedDict/dict/list/tuple/int/float/str/bool/None), and the type tags LibTorch's
// torch::pickle_save adds, is read; anything else, a corrupt
// or truncated archive, and the legacy pre-1.6 format are nabla::Errors saying what was
// found. Dtypes: float32/64, float16, bfloat16, int64, int32, uint8, bool as they are;
// int8 and int16 storages become int32. Tensors saved from a GPU load to the CPU.
#include <vector>

#include "nabla/core/ivalue.h"

namespace nabla {

/// The bytes of a torch.save file holding `ivalue` (dicts as Python dicts: LibTorch's
/// torch::pickle_load reads those, while it turns an OrderedDict into None).
/// Python's torch.load reads them; with weights_only=True as long as no Python float
/// (an IValue double) is inside, which torch 1.13's restricted reader refuses.
std::vector<char> pickle_save(const IValue& ivalue);

/// The value in `data`, the bytes of a torch.save file. Tensors own their memory.
IValue pickle_load(const std::vector<char>& data);

}  // namespace nabla
