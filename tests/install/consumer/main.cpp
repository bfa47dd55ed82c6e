#include <nabla/nabla.h>

#include <iostream>

int main() {
  auto x = nabla::arange(6, nabla::kFloat).reshape({2, 3});
  std::cout << "nabla ok: sum=" << x.sum().item<float>()
            << " dtype=" << nabla::dtype_name(x.scalar_type()) << "\n";
}
