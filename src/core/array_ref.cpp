#include "nabla/core/array_ref.h"

#include <ostream>

#include "nabla/core/error.h"

namespace nabla {

template <class T>
const T& ArrayRef<T>::at(size_t i) const {
  NABLA_CHECK(i < size_, "ArrayRef: index ", i, " out of range for size ", size_);
  return data_[i];
}
template class ArrayRef<int64_t>;
template class ArrayRef<double>;

template <class T>
static std::ostream& print_list(std::ostream& os, ArrayRef<T> a) {
  os << '[';
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}
std::ostream& operator<<(std::ostream& os, IntArrayRef a) { return print_list(os, a); }
std::ostream& operator<<(std::ostream& os, ArrayRef<double> a) { return print_list(os, a); }

}  // namespace nabla
