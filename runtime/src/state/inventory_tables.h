// The inventory part of a TOML document, read with the support library's
// field reader (support/toml_fields.h).
#pragma once

#include <string>

#include <toml++/toml.h>

#include "allot/inventory.h"
#include "allot/toml_fields.h"

namespace allot::runtime {

using support::FieldReader;
using support::kind_name;
using support::located_error;

// The inventory part of a document: `[cluster]`, `[[node]]` and `[[group]]`
// (inventory_toml.cpp). Other keys are left to the caller, so a state
// snapshot can embed an inventory.
Expected<Inventory, InventoryError> read_inventory_tables(const toml::table& root, const std::string& file);

}  // namespace allot::runtime
