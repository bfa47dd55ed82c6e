#pragma once
// Writing a whole file so that readers see either the old file or the complete new one,
// never a partial write (graph_export.cpp's save_dot, profiler.cpp's trace).
#include <string>
#include <string_view>

namespace nabla::autograd {

/// Writes `data` to a temporary file in `path`'s directory, fsyncs it, renames it over
/// `path` and fsyncs the directory. A nabla::Error naming `op`, the path and the system
/// error if any step fails (the temporary file is removed).
void write_file_atomically(const std::string& path, std::string_view data, const char* op);

}  // namespace nabla::autograd
