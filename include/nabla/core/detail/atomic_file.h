#pragma once
// The library's one way to write a whole file so that readers see either the old file
// or the complete new one, never a partial write: safetensors and .npy/.npz saves,
// checkpoints, SVG plots, DOT graphs, profiler traces. In core so every layer can use it.
#include <string>
#include <string_view>

namespace nabla::detail {

/// Writes `data` to a temporary file in `path`'s directory (`path.tmp.XXXXXX`), fsyncs
/// it, renames it over `path` and fsyncs the directory. On failure: a nabla::Error
/// naming `op`, `path` and the system error; the temporary file is removed and the
/// previous file, if any, is unchanged.
///
/// Note [Stale temporaries]: a process killed mid-write (SIGKILL, power loss) leaves its
/// `path.tmp.XXXXXX` behind. Each writer holds an flock on its temporary file while it
/// exists, so before writing, this removes every `path.tmp.XXXXXX` that nobody holds
/// locked (the kernel drops the lock of a dead process): the next successful save of
/// `path` leaves no temporary file from earlier crashes, and a concurrent writer's live
/// temporary file is never touched.
void write_file_atomically(const std::string& path, std::string_view data, const char* op);

}  // namespace nabla::detail
