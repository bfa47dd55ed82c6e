#include "png_grid.h"

#include <png.h>

#include <cstdio>
#include <stdexcept>
#include <vector>

void write_png_grid(const std::string& path, const nabla::Tensor& images, int columns) {
  const auto img = ((images.detach().clamp(-1, 1) + 1) * 127.5).to(nabla::kByte).contiguous();
  const int64_t n = img.size(0), h = img.size(2), w = img.size(3);
  const int64_t rows = (n + columns - 1) / columns;
  const int64_t width = columns * (w + 2), height = rows * (h + 2);
  std::vector<png_byte> pixels(static_cast<size_t>(width * height), 0);
  const auto* src = img.data_ptr<uint8_t>();
  for (int64_t k = 0; k < n; ++k)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        pixels[static_cast<size_t>((k / columns * (h + 2) + 1 + y) * width + k % columns * (w + 2) +
                                   1 + x)] = src[(k * h + y) * w + x];
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + tmp);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    throw std::runtime_error("libpng failed writing " + tmp);
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8,
               PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int64_t y = 0; y < height; ++y) png_write_row(png, &pixels[static_cast<size_t>(y * width)]);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  std::fclose(f);
  std::rename(tmp.c_str(), path.c_str());
}
