// The Allot runtime's public interface, in one include: cluster inventory,
// usage ledger (in memory and durable), account tree, fair share and
// entitlement. The scheduling cycle, hot swap and explain build on these.
#pragma once

#include "allot/account_tree.h"
#include "allot/durable_ledger.h"
#include "allot/entitlement.h"
#include "allot/fair_share.h"
#include "allot/inventory.h"
#include "allot/ledger.h"
