#include "columns.h"

#include "check/schema.h"

namespace allot::ir {
namespace {

// The schema entry behind column `column` of `record`, or nullptr.
const FieldSchema* column_field(Type record, std::uint32_t column) {
  std::uint32_t index = 0;
  for (const auto& field : record_fields(record)) {
    if (is_record(field.type)) continue;
    if (index++ == column) return &field;
  }
  return nullptr;
}

}  // namespace

std::optional<std::uint32_t> column_of(Type record, std::string_view name) {
  std::uint32_t index = 0;
  for (const auto& field : record_fields(record)) {
    if (is_record(field.type)) continue;
    if (field.name == name) return index;
    ++index;
  }
  return std::nullopt;
}

std::string_view column_name(Type record, std::uint32_t column) {
  const FieldSchema* field = column_field(record, column);
  return field ? field->name : std::string_view();
}

Type column_type(Type record, std::uint32_t column) {
  const FieldSchema* field = column_field(record, column);
  return field ? field->type : Type::error;
}

}  // namespace allot::ir
