// SPDX-License-Identifier: Apache-2.0
#include "queuestore.h"

namespace holdpoint {

QueueStore::~QueueStore() = default;

} // namespace holdpoint
