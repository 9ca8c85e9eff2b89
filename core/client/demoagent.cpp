// SPDX-License-Identifier: Apache-2.0
#include "demoagent.h"

namespace holdpoint {

std::vector<DemoAgent::Step> DemoAgent::script()
{
    const Json readOnly = { { "readOnlyHint", true } };
    const Json destructive = { { "readOnlyHint", false }, { "destructiveHint", true } };
    const Json write = { { "readOnlyHint", false }, { "destructiveHint", false } };
    const Json openWorld = { { "openWorldHint", true } };
    const Json runTests
        = { { "command", "pytest -q tests/test_retry.py" }, { "cwd", "/home/dev/scheduler" } };

    std::vector<Step> steps;
    auto add = [&](const char *turn, const char *tool, Json args, const Json &annotations,
                   bool fails = false) {
        steps.push_back(Step { turn, tool, std::move(args), annotations, fails });
    };
    add("fix-flaky-test", "read_file", { { "path", "src/scheduler/retry.py" } }, readOnly);
    add("fix-flaky-test", "grep", { { "pattern", "backoff" }, { "path", "src/" } }, readOnly);
    add("fix-flaky-test", "write_file",
        { { "path", "src/scheduler/retry.py" },
            { "content", "def backoff(attempt):\n    return min(2 ** attempt, 30)\n" } },
        write);
    // The agent keeps re-running the same failing command: a loop a person should notice.
    add("fix-flaky-test", "bash", runTests, destructive, true);
    add("fix-flaky-test", "bash", runTests, destructive, true);
    add("fix-flaky-test", "bash", runTests, destructive, true);
    add("ship-release", "bash",
        { { "command", "rm -rf build/ dist/ && python -m build" },
            { "cwd", "/home/dev/scheduler" } },
        destructive);
    // A credential pasted into an argument (AWS's documented example key).
    Json request = { { "method", "POST" }, { "url", "https://deploy.example.com/v1/releases" } };
    request["headers"] = { { "Authorization", "Bearer AKIAIOSFODNN7EXAMPLE" } };
    request["body"] = { { "version", "2.4.0" },
        { "aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" } };
    add("ship-release", "http_request", request, openWorld);
    add("ship-release", "write_file",
        { { "path", "/etc/cron.d/scheduler" }, { "content", "*/5 * * * * dev run-scheduler\n" } },
        write);
    add("ship-release", "slack_post",
        { { "channel", "#releases" }, { "text", "scheduler 2.4.0 is out" } }, openWorld);
    return steps;
}

DemoAgent::DemoAgent(EndpointInfo endpoint, int concurrency, QObject *parent)
    : QObject(parent)
    , m_endpoint(std::move(endpoint))
    , m_concurrency(concurrency)
    , m_script(script())
{
    m_nextRound.setSingleShot(true);
    connect(&m_nextRound, &QTimer::timeout, this, [this] {
        ++m_round;
        m_next = 0;
        pump();
    });
    connect(&m_client, &ConsoleClient::welcomed, this, [this] { pump(); });
    connect(&m_client, &ConsoleClient::message, this, &DemoAgent::onMessage);
    connect(&m_client, &ConsoleClient::failed, this, &DemoAgent::stopped);
}

void DemoAgent::start()
{
    m_client.connectTo(m_endpoint, protocol::Role::Agent, { "demo-coder", "holdpoint-demo" });
}

void DemoAgent::pump()
{
    while (m_outstanding < m_concurrency && m_next < m_script.size()) {
        const Step &step = m_script[m_next];
        const std::string turn = step.turn + "-" + std::to_string(m_round + 1);
        if (turn != m_turn) {
            if (!m_turn.empty()) {
                if (m_outstanding > 0)
                    return; // finish the turn before starting the next
                m_client.send(Json { { "type", "turn_end" }, { "turn_id", m_turn } });
            }
            m_turn = turn;
            m_client.send(Json { { "type", "turn_start" }, { "turn_id", m_turn } });
        }
        const std::string callId
            = "demo-" + std::to_string(m_round + 1) + "-" + std::to_string(m_next + 1);
        m_failing[callId] = step.fails;
        m_client.send(Json { { "type", "tool_call" }, { "call_id", callId },
            { "tool_name", step.tool }, { "args", step.args }, { "turn_id", m_turn },
            { "annotations", step.annotations },
            { "context",
                { { "agent_role", "coding assistant" },
                    { "task_description", "Fix the flaky retry test, then ship scheduler 2.4.0" },
                    { "cwd", "/home/dev/scheduler" } } } });
        ++m_outstanding;
        ++m_next;
    }
    if (m_outstanding == 0 && m_next >= m_script.size() && !m_nextRound.isActive()) {
        m_client.send(Json { { "type", "turn_end" }, { "turn_id", m_turn } });
        m_turn.clear();
        m_nextRound.start(5000);
    }
}

void DemoAgent::onMessage(const Json &message)
{
    if (message.value("type", std::string()) != "decision")
        return;
    const std::string callId = message.value("call_id", std::string());
    auto it = m_failing.find(callId);
    if (it == m_failing.end())
        return;
    const std::string decision = message.value("decision", std::string());
    if (decision == "allow" || decision == "modify") {
        const bool ok = !it->second;
        m_client.send(Json { { "type", "tool_result" }, { "call_id", callId }, { "ok", ok },
            { "result",
                ok ? Json("done")
                   : Json("FAILED tests/test_retry.py::test_backoff - AssertionError") } });
    }
    if (decision == "halt") {
        // Abort the rest of the turn, as a well-behaved agent does.
        const std::string halted = m_turn.substr(0, m_turn.rfind('-'));
        while (m_next < m_script.size() && m_script[m_next].turn == halted)
            ++m_next;
    }
    m_failing.erase(it);
    --m_outstanding;
    pump();
}

} // namespace holdpoint
