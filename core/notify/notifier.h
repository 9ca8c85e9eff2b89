// SPDX-License-Identifier: Apache-2.0
#pragma once

// Tells a reviewer away from the desk that a call waits for them. The queue
// says what arrived and what left; a notifier turns that into a message on
// some channel (ntfy today; Web Push or a chat webhook can follow). A
// notifier is best effort: it never blocks the console and never decides
// anything, and what it cannot deliver it reports through failed().

#include "queue/queueitem.h"

#include <QObject>
#include <QString>

namespace holdpoint {

class QueueStore;

class Notifier : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~Notifier() override;

    // A call now waits for a person. Called once per pending item; a second
    // call for the same id (an item restored after a restart) replaces what
    // the notifier knew of it.
    virtual void itemAdded(const QueueItem &item) = 0;
    // The item left the queue (decided, timed out, cancelled, abandoned):
    // nothing more is said about it, reminders included.
    virtual void itemResolved(const QueueItem &item) = 0;

Q_SIGNALS:
    // A message that did not reach its channel, or was never sent. `why` is
    // for the console's log: it names no secret (no token, no arguments).
    void failed(const QString &why);
};

// Feeds `notifier` every item `store` adds and resolves, for as long as both
// live. Items already pending are not announced: whoever starts the
// notifier late decides whether they should be (forEachPending).
void connectNotifier(QueueStore *store, Notifier *notifier);

} // namespace holdpoint
