// SPDX-License-Identifier: Apache-2.0
// A reviewer clears a mixed 20-call queue from three agents with the
// keyboard alone, and the keystrokes are counted (a typed character counts
// one): approvals in batches, denials with one shared reason, two argument
// edits, and a looping turn halted. The total is asserted and printed, so a
// flow that grows a key shows up here.

#include "denydialog.h"
#include "queuemodel.h"
#include "windowharness.h"

#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

// curl runs at once (the ops agent's loop comes from its failures); the
// rest waits for the reviewer.
const char *const MixedPolicy = R"({"version":1,"default":"ask","guardrails":[
    {"type":"rules","rules":[{"when":{"tool":"curl"},"action":"allow"}]},
    {"type":"loop_detection"}]})";

struct Keys
{
    WindowHarness &h;
    int count = 0;
    void press(Qt::Key key, Qt::KeyboardModifiers mods = Qt::NoModifier)
    {
        h.key(key, mods);
        ++count;
    }
    void type(const QString &text)
    {
        QTest::keyClicks(QApplication::focusWidget(), text);
        count += int(text.size());
    }
};

QString currentCall(WindowHarness &h)
{
    const std::string id
        = h.view()->currentIndex().data(QueueModel::ItemIdRole).toString().toStdString();
    const QueueItem *item = h.core->queue()->find(id);
    return item ? QString::fromStdString(item->callId) : QString();
}

} // namespace

class TestKeystrokes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void clearMixedQueueWithKeysOnly();
};

void TestKeystrokes::clearMixedQueueWithKeysOnly()
{
    WindowHarness h(MixedPolicy);
    QVERIFY(h.started && h.welcomed); // h.agent is "tester", the coding agent
    TestSocket research, ops;
    QVERIFY(h.connectAgent(research, "researcher"));
    QVERIFY(h.connectAgent(ops, "ops"));

    // The queue, oldest first: 8 writes, 6 fetches, 2 long test runs, then
    // the ops agent's 4 deploys in a turn where its curl keeps failing.
    for (int i = 0; i < 8; ++i)
        QVERIFY(h.submit("w" + std::to_string(i), "write_file",
            { { "path", "src/f" + std::to_string(i) + ".c" } }));
    for (int i = 0; i < 6; ++i) {
        research.send(h.call("f" + std::to_string(i), "web_fetch",
            { { "url", "https://ads.test/" + std::to_string(i) } }));
        QTRY_COMPARE(h.core->queue()->size(), 9 + i);
    }
    for (int i = 0; i < 2; ++i)
        QVERIFY(h.submit("t" + std::to_string(i), "run_tests", { { "timeout", 900 } }));
    ops.send(Json { { "type", "turn_start" }, { "turn_id", "rollout" } });
    for (int i = 0; i < 3; ++i) {
        const std::string id = "curl" + std::to_string(i);
        ops.send(h.call(id, "curl", { { "url", "http://deploy.internal/health" } }, "rollout"));
        QCOMPARE(ops.next("decision")["decision"], Json("allow"));
        ops.send(Json { { "type", "tool_result" }, { "call_id", id }, { "ok", false },
            { "result", "connection refused" } });
    }
    for (int i = 0; i < 4; ++i) {
        ops.send(h.call("d" + std::to_string(i), "deploy",
            { { "service", "api-" + std::to_string(i) } }, "rollout"));
        QTRY_COMPARE(h.core->queue()->size(), 17 + i);
    }
    QCOMPARE(h.core->queue()->size(), 20);
    h.view()->setFocus();
    QTRY_COMPARE(currentCall(h), QStringLiteral("w0"));

    Keys keys { h };
    // Approvals in two batches of four.
    for (int batch = 0; batch < 2; ++batch) {
        for (int i = 0; i < 3; ++i)
            keys.press(Qt::Key_J, Qt::ShiftModifier);
        keys.press(Qt::Key_A);
    }
    QCOMPARE(currentCall(h), QStringLiteral("f0"));

    // Six denials with one reason.
    for (int i = 0; i < 5; ++i)
        keys.press(Qt::Key_J, Qt::ShiftModifier);
    keys.press(Qt::Key_D);
    QVERIFY(h.window->denyDialog());
    // The dialog has the keyboard once it is on screen.
    QTRY_COMPARE(QApplication::focusWidget() ? QApplication::focusWidget()->window() : nullptr,
        static_cast<QWidget *>(h.window->denyDialog()));
    keys.type(QStringLiteral("off task"));
    keys.press(Qt::Key_Return);
    QTRY_VERIFY(!h.window->denyDialog());
    QCOMPARE(currentCall(h), QStringLiteral("t0"));

    // Two edits: each test run gets a 90 s timeout instead of 900.
    for (const char *expected : { "t0", "t1" }) {
        QCOMPARE(currentCall(h), QString::fromLatin1(expected));
        keys.press(Qt::Key_E);
        QCOMPARE(QApplication::focusWidget(), h.window->argsEditor());
        keys.press(Qt::Key_Down); // to the "timeout" line
        keys.press(Qt::Key_End); // after 900
        keys.press(Qt::Key_Backspace); // 90
        keys.press(Qt::Key_Return, Qt::ControlModifier);
        QCOMPARE(QApplication::focusWidget(), h.view());
    }

    // The looping turn: the reviewer sees the loop, and one key halts the turn.
    QCOMPARE(currentCall(h), QStringLiteral("d0"));
    QVERIFY(h.view()
                ->currentIndex()
                .siblingAtColumn(QueueModel::Warnings)
                .data()
                .toString()
                .startsWith(QStringLiteral("\u27f2 3/5")));
    keys.press(Qt::Key_H);

    QTRY_COMPARE(h.core->queue()->size(), 0);
    for (int i = 0; i < 8; ++i)
        QCOMPARE(h.decisionFor("w" + std::to_string(i))["decision"], Json("allow"));
    for (int i = 0; i < 6; ++i) {
        const Json d = research.next("decision");
        QCOMPARE(d["decision"], Json("deny"));
        QCOMPARE(d["reason"], Json("off task"));
    }
    for (const char *id : { "t0", "t1" }) {
        QCOMPARE(h.decisionFor(id)["decision"], Json("modify"));
        QCOMPARE(h.decisionFor(id)["args"], Json({ { "timeout", 90 } }));
    }
    for (int i = 0; i < 4; ++i)
        QCOMPARE(ops.next("decision")["decision"], Json("halt"));

    qInfo("cleared a 20-call queue from 3 agents with %d keystrokes", keys.count);
    QCOMPARE(keys.count, 34);
}

QTEST_MAIN(TestKeystrokes)
#include "tst_keystrokes.moc"
