#pragma once
// A vector shared between copies until one of them writes (copy on write).
// A network's weights are most of its bytes (ResNet-50: 25 MB), and every
// graph pass and every design point of a sweep copies the graph: with the
// weights shared, a copy costs the nodes, not the weights. Reads look like a
// const std::vector (and convert to one); writes go through mut(), or the
// non-const operator[] / push_back / resize, which copy the data first when
// another copy shares it.
#include <initializer_list>
#include <memory>
#include <vector>

namespace vta::compiler {

template <class T>
class SharedVector {
 public:
  SharedVector() = default;
  SharedVector(std::vector<T> v) : p_(std::make_shared<std::vector<T>>(std::move(v))) {}  // NOLINT: a vector is one
  SharedVector(std::initializer_list<T> l) : SharedVector(std::vector<T>(l)) {}
  SharedVector& operator=(std::vector<T> v) {
    p_ = std::make_shared<std::vector<T>>(std::move(v));
    return *this;
  }
  SharedVector& operator=(std::initializer_list<T> l) { return *this = std::vector<T>(l); }

  const std::vector<T>& get() const { return p_ ? *p_ : empty_vector(); }
  operator const std::vector<T>&() const { return get(); }  // NOLINT: reads as the vector it holds
  size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const T* data() const { return get().data(); }
  const T& operator[](size_t i) const { return get()[i]; }
  typename std::vector<T>::const_iterator begin() const { return get().begin(); }
  typename std::vector<T>::const_iterator end() const { return get().end(); }

  /// The data to write, copied first when another SharedVector shares it.
  std::vector<T>& mut() {
    if (!p_)
      p_ = std::make_shared<std::vector<T>>();
    else if (p_.use_count() > 1)
      p_ = std::make_shared<std::vector<T>>(*p_);
    return *p_;
  }
  T& operator[](size_t i) { return mut()[i]; }
  void push_back(T v) { mut().push_back(v); }
  void resize(size_t n) { mut().resize(n); }
  void clear() { p_.reset(); }
  template <class It>
  void assign(It first, It last) {
    p_ = std::make_shared<std::vector<T>>(first, last);
  }

  bool operator==(const SharedVector& o) const { return get() == o.get(); }
  bool operator==(const std::vector<T>& o) const { return get() == o; }

 private:
  static const std::vector<T>& empty_vector() {
    static const std::vector<T> none;
    return none;
  }
  std::shared_ptr<std::vector<T>> p_;
};

}  // namespace vta::compiler
