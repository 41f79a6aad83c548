// SHA-256 (FIPS 180-4), small and dependency-free: a compiled policy names
// the exact sources it came from, and the audit log records that name.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace allot::ir {

// Incremental SHA-256: update() any number of times, then hex_digest() once.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  // The digest as 64 lowercase hex digits. Finishes the hash: call it once.
  std::string hex_digest();

 private:
  void compress(const std::uint8_t* block);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// The hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace allot::ir
