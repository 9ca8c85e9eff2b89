// SPDX-License-Identifier: Apache-2.0
#include "notifier.h"

#include "queue/queuestore.h"

namespace holdpoint {

Notifier::~Notifier() = default;

void connectNotifier(QueueStore *store, Notifier *notifier)
{
    QObject::connect(store, &QueueStore::itemAdded, notifier, &Notifier::itemAdded);
    QObject::connect(store, &QueueStore::resolved, notifier, &Notifier::itemResolved);
}

} // namespace holdpoint
