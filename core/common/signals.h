// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>

#include <functional>

namespace holdpoint {

// Runs `handler` in the event loop of `context`'s thread when SIGINT or
// SIGTERM arrives (through a self-pipe: a signal handler may do almost
// nothing itself). Install once per process.
void onTerminationSignal(QObject *context, std::function<void()> handler);

} // namespace holdpoint
