// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "client/consoleclient.h"

#include <QObject>
#include <QTimer>

#include <deque>
#include <string>
#include <vector>

namespace holdpoint {

// The simulated agent of `holdpoint --demo`: a coding agent working through
// a few turns over the real endpoint, so a newcomer sees the console at work.
// It keeps up to `concurrency` calls waiting, reports a result for each
// decided call, and starts a new round a few seconds after one finishes.
class DemoAgent final : public QObject
{
    Q_OBJECT
public:
    struct Step
    {
        std::string turn; // a new value starts a new turn
        std::string tool;
        Json args;
        Json annotations;
        bool fails = false; // the simulated tool reports an error
    };

    DemoAgent(EndpointInfo endpoint, int concurrency = 4, QObject *parent = nullptr);
    void start();
    static std::vector<Step> script();

Q_SIGNALS:
    void stopped(const QString &why);

private:
    void pump();
    void onMessage(const Json &message);

    EndpointInfo m_endpoint;
    ConsoleClient m_client;
    QTimer m_nextRound;
    int m_concurrency;
    int m_round = 0;
    std::size_t m_next = 0;
    int m_outstanding = 0;
    std::string m_turn;
    std::vector<Step> m_script;
    std::unordered_map<std::string, bool> m_failing; // call_id -> simulated failure
};

} // namespace holdpoint
