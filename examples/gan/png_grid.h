#pragma once
#include <string>

#include <nabla/nabla.h>

/// Writes images [N, 1, H, W] with values in [-1, 1] as a grayscale PNG grid of `columns`
/// columns (temporary file, then rename).
void write_png_grid(const std::string& path, const nabla::Tensor& images, int columns);
