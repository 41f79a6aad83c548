// A value or the reason there is none: how the runtime returns errors across
// its boundary (no exceptions leave the library). Shaped like C++23's
// std::expected so it can be swapped for it when the project moves on.
#pragma once

#include <utility>
#include <variant>

namespace allot {

// Wraps an error so it converts to any Expected<T, E>.
template <class E>
struct Unexpected {
  E error;
};

// Builds an Unexpected from an error value.
template <class E>
Unexpected<E> unexpected(E error) {
  return Unexpected<E>{std::move(error)};
}

// Holds either a T (success) or an E (why not).
template <class T, class E>
class Expected {
 public:
  // Success. Implicit, so a function returns its value as is.
  Expected(T value) : storage_(std::in_place_index<0>, std::move(value)) {}
  // Failure: `return unexpected(error);`.
  Expected(Unexpected<E> failure) : storage_(std::in_place_index<1>, std::move(failure.error)) {}

  // True on success.
  bool has_value() const { return storage_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  // The value; precondition: has_value() (otherwise std::bad_variant_access).
  T& value() { return std::get<0>(storage_); }
  const T& value() const { return std::get<0>(storage_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // The error; precondition: !has_value().
  const E& error() const { return std::get<1>(storage_); }

 private:
  std::variant<T, E> storage_;
};

}  // namespace allot
