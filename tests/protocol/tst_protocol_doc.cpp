// SPDX-License-Identifier: Apache-2.0
// Keeps core/protocol/PROTOCOL.md true to the code: its examples parse, and
// every message type and error code has one.

#include "common/jsoncompare.h"
#include "protocol/protocol.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <set>

using namespace holdpoint;
using namespace holdpoint::protocol;

class TestProtocolDoc : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void everyExampleIsValidJson();
    void everyClientExampleParses();
    void everyMessageTypeHasAnExample();
    void everyErrorCodeIsDocumented();

private:
    QString m_doc;
    std::vector<Json> m_examples;
};

void TestProtocolDoc::initTestCase()
{
    QFile f(QStringLiteral(HOLDPOINT_SOURCE_DIR "/core/protocol/PROTOCOL.md"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    m_doc = QString::fromUtf8(f.readAll());
    static const QRegularExpression block(QStringLiteral("```json\\n(.*?)\\n\\s*```"),
        QRegularExpression::DotMatchesEverythingOption);
    for (auto it = block.globalMatch(m_doc); it.hasNext();) {
        const std::string text = it.next().captured(1).toStdString();
        m_examples.push_back(Json::parse(text, nullptr, false));
        if (m_examples.back().is_discarded())
            QFAIL(qPrintable(QStringLiteral("not JSON: ") + QString::fromStdString(text)));
    }
    QVERIFY(m_examples.size() > 30);
}

void TestProtocolDoc::everyExampleIsValidJson()
{
    for (const auto &e : m_examples)
        QVERIFY(e.is_object());
}

void TestProtocolDoc::everyClientExampleParses()
{
    const std::set<std::string> clientTypes { "hello", "turn_start", "turn_end", "tool_call",
        "tool_result", "cancel", "review" };
    int parsed = 0;
    for (const auto &e : m_examples) {
        const std::string type = e.value("type", std::string());
        if (!clientTypes.contains(type))
            continue;
        const ParseResult r = parseMessage(dumpJson(e));
        QVERIFY2(r.ok(), (type + ": " + r.error.message).c_str());
        ++parsed;
    }
    QCOMPARE(parsed, 9);
}

void TestProtocolDoc::everyMessageTypeHasAnExample()
{
    std::set<std::string> seen;
    for (const auto &e : m_examples)
        seen.insert(e.value("type", std::string()));
    for (const char *type : { "hello", "welcome", "turn_start", "turn_end", "tool_call", "pending",
             "decision", "tool_result", "after_call", "cancel", "queue", "escalated", "updated",
             "resolved", "review", "reviewed", "voted", "audit", "team", "error" })
        QVERIFY2(seen.contains(type), type);
}

void TestProtocolDoc::everyErrorCodeIsDocumented()
{
    std::set<std::string> exampleCodes;
    for (const auto &e : m_examples)
        if (e.value("type", std::string()) == "error")
            exampleCodes.insert(e.value("code", std::string()));
    std::set<std::string> known;
    for (int c = int(ErrorCode::InvalidJson); c <= int(ErrorCode::ConnectionLimit); ++c) {
        const std::string name(errorCodeName(ErrorCode(c)));
        known.insert(name);
        QVERIFY2(exampleCodes.contains(name), ("no example for " + name).c_str());
        QVERIFY2(m_doc.contains(QStringLiteral("| `%1` |").arg(QString::fromStdString(name))),
            ("no table row for " + name).c_str());
    }
    for (const auto &code : exampleCodes)
        QVERIFY2(known.contains(code), ("documented but unknown to the code: " + code).c_str());
}

QTEST_GUILESS_MAIN(TestProtocolDoc)
#include "tst_protocol_doc.moc"
