#include "queuestore.h"

namespace holdpoint {

QueueStore::~QueueStore() = default;

} // namespace holdpoint
