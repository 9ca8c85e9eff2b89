// SPDX-License-Identifier: Apache-2.0
#pragma once

// The team's queue store under the name its users know (teamqueue.h).

#include "team/teamqueue.h"

namespace holdpoint::team {

using TeamStore = TeamQueue;

} // namespace holdpoint::team
