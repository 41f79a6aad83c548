// SHA-256 against the FIPS 180-4 / NIST test vectors.
#include <catch2/catch.hpp>

#include "ir/sha256.h"

TEST_CASE("sha256 matches the published test vectors", "[ir][sha256]") {
  using allot::ir::sha256_hex;
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 gives the same digest however the input is split", "[ir][sha256]") {
  const std::string text(200, 'x');
  for (std::size_t split : {0, 1, 55, 56, 63, 64, 65, 199}) {
    allot::ir::Sha256 hash;
    hash.update(std::string_view(text).substr(0, split));
    hash.update(std::string_view(text).substr(split));
    CHECK(hash.hex_digest() == allot::ir::sha256_hex(text));
  }
}
