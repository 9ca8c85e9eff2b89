// SPDX-License-Identifier: Apache-2.0
// secrets: detection, masking for people, the real values for the agent.

#include "common/jsoncompare.h"
#include "common/policies.h"
#include "guardrails/chain.h"
#include "guardrails/secrets.h"
#include "policy/policy.h"

#include <QTest>

#include <algorithm>

using namespace holdpoint;
using holdpoint::test::policyError;
using holdpoint::test::policyOf;

namespace {

ChainOutcome run(const Policy &p, const Json &args)
{
    return holdpoint::test::runBeforeCall(p, "http_request", args);
}

} // namespace

class TestSecrets : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void detects_data();
    void detects();
    void reasonNamesKindsAndPlacesNeverValues();
    void maskingDoesNotDependOnChainOrder();
    void maskAndUnmaskRoundTrip();
    void quotesAreMaskedBeforeTheyAreCut();
    void customPatternsAndConfiguration();
    void prefilterMissesNothing();
};

void TestSecrets::detects_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("kind"); // empty: nothing found
    QTest::addColumn<QString>("secret");
    QTest::newRow("aws access key") << "key AKIAIOSFODNN7EXAMPLE here"
                                    << "aws_access_key_id"
                                    << "AKIAIOSFODNN7EXAMPLE";
    QTest::newRow("pem block")
        << "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\ntrailer"
        << "private_key"
        << "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----";
    QTest::newRow("pem without end") << "-----BEGIN PRIVATE KEY-----\nMIIEvQ..."
                                     << "private_key"
                                     << "-----BEGIN PRIVATE KEY-----\nMIIEvQ...";
    QTest::newRow("github classic")
        << QString(QStringLiteral("ghp_") + QString(36, u'a')) << "github_token"
        << QString(QStringLiteral("ghp_") + QString(36, u'a'));
    QTest::newRow("github fine-grained")
        << QString(QStringLiteral("github_pat_") + QString(30, u'B')) << "github_token"
        << QString(QStringLiteral("github_pat_") + QString(30, u'B'));
    QTest::newRow("slack bot token") << "xoxb-1234567890-abcdefghij"
                                     << "slack_token"
                                     << "xoxb-1234567890-abcdefghij";
    QTest::newRow("slack webhook")
        << "post to https://hooks.slack.com/services/T000/B000/XXXXXXXX now"
        << "slack_webhook"
        << "https://hooks.slack.com/services/T000/B000/XXXXXXXX";
    QTest::newRow("jwt") << "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
                            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
                         << "jwt"
                         << "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
                            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    QTest::newRow("bearer") << "Bearer abcdefghijklmnop1234"
                            << "bearer_token"
                            << "abcdefghijklmnop1234";
    QTest::newRow("plain text") << "just a normal sentence with AKIA in it"
                                << ""
                                << "";
    QTest::newRow("short bearer") << "Bearer abc"
                                  << ""
                                  << "";
}

void TestSecrets::detects()
{
    QFETCH(QString, value);
    QFETCH(QString, kind);
    QFETCH(QString, secret);
    const Policy p = policyOf(R"({"guardrails":[{"type":"secrets"}]})");
    const ChainOutcome o = run(p, { { "text", value.toStdString() } });
    if (kind.isEmpty()) {
        QVERIFY(o.redactions.empty());
        QCOMPARE(o.decidedBy, std::string("policy:default"));
        return;
    }
    QCOMPARE(o.redactions.size(), std::size_t(1));
    QCOMPARE(toQString(o.redactions[0].kind), kind);
    QCOMPARE(toQString(o.redactions[0].secret), secret);
    QCOMPARE(o.redactions[0].placeholder, "[secret:" + kind.toStdString() + ":1]");
    QCOMPARE(o.action, Action::Ask);
    QCOMPARE(o.code, std::string("secret_detected"));
}

void TestSecrets::reasonNamesKindsAndPlacesNeverValues()
{
    const Policy p = policyOf(R"({"guardrails":[{"type":"secrets","action":"deny"}]})");
    const Json args = { { "headers", { { "Authorization", "Bearer AKIAIOSFODNN7EXAMPLE" } } },
        { "body", { { "aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" } } } };
    const ChainOutcome o = run(p, args);
    QCOMPARE(o.action, Action::Deny);
    QCOMPARE(o.reason,
        std::string(
            "arguments contain secrets: credential in body.aws_secret_access_key, "
            "aws_access_key_id in headers.Authorization, bearer_token in headers.Authorization"));
    QVERIFY(dumpJson(trailToJson(o.trail)).find("EXAMPLE") == std::string::npos);
    QCOMPARE(o.redactions.size(), std::size_t(2)); // the bearer token is the access key itself
}

void TestSecrets::maskingDoesNotDependOnChainOrder()
{
    const Policy p = policyOf(R"({"guardrails":[
        {"type":"rules","rules":[{"when":{"tool":"http_request"},"action":"deny","reason":"no requests: {args.url}"}]},
        {"type":"secrets"}]})");
    const ChainOutcome o = run(p, { { "url", "https://x.test/?t=AKIAIOSFODNN7EXAMPLE" } });
    QCOMPARE(o.action, Action::Deny);
    QCOMPARE(o.trail.size(), std::size_t(1)); // secrets never ran as a verdict...
    QCOMPARE(o.redactions.size(), std::size_t(1)); // ...but still says what to mask
    QCOMPARE(maskText(o.reason, o.redactions),
        std::string("no requests: https://x.test/?t=[secret:aws_access_key_id:1]"));
}

void TestSecrets::quotesAreMaskedBeforeTheyAreCut()
{
    // Masking the finished reason cannot find a secret a quote cut short,
    // escaped or normalized: the guardrails quote the call masked.
    const std::string key = "AKIAIOSFODNN7EXAMPLE";
    const std::string hook
        = "https://hooks.slack.com/services/T0ABCDEFG/B0ABCDEFG/abcdefghijklmnopqrstuvwx";
    const Policy p = policyOf(R"({"guardrails":[{"type":"secrets","action":"warn"},
        {"type":"rules","rules":[
            {"when":{"tool":"bash"},"action":"ask","reason":"runs {args.command}"},
            {"when":{"tool":"configure"},"action":"ask","reason":"sets {args.env}"}]},
        {"type":"protected_paths","paths":["/"],"action":"ask","keys":["source"]}]})");
    const auto leaks = [](const ChainOutcome &o, std::string_view secret) {
        std::string all = o.reason;
        for (const TrailEntry &e : o.trail)
            all += e.reason + dumpJson(e.metadata);
        for (const protocol::Warning &w : o.warnings)
            all += w.message;
        return all.find(secret) != std::string::npos;
    };

    // Cut short: 197 characters and "...", with the key across the cut.
    ChainOutcome o = holdpoint::test::runBeforeCall(
        p, "bash", { { "command", std::string(185, 'x') + " " + key } });
    QCOMPARE(o.action, Action::Ask);
    QVERIFY2(!leaks(o, key.substr(0, 8)), o.reason.c_str());
    QVERIFY2(o.reason.find("[secret:aws") != std::string::npos, o.reason.c_str());

    // Escaped: a quote inside a password is \" in the dumped object.
    const std::string password = "Tr0ub\"4dor&3-secret";
    o = holdpoint::test::runBeforeCall(
        p, "configure", { { "env", { { "DB_PASSWORD", password } } } });
    QCOMPARE(o.action, Action::Ask);
    QVERIFY2(!leaks(o, "Tr0ub"), o.reason.c_str());
    QVERIFY2(o.reason.find("DB_PASSWORD") != std::string::npos, o.reason.c_str());

    // Normalized: the path's "//" becomes "/", and the URL with it.
    o = holdpoint::test::runBeforeCall(p, "copy", { { "source", hook } });
    QCOMPARE(o.action, Action::Ask);
    QVERIFY2(
        !leaks(o, "B0ABCDEFG/abcdefgh"), (o.reason + dumpJson(o.trail.back().metadata)).c_str());
    QVERIFY2(o.reason.find("is protected") != std::string::npos, o.reason.c_str());
}

void TestSecrets::maskAndUnmaskRoundTrip()
{
    const std::vector<Redaction> r { { "AKIAIOSFODNN7EXAMPLE", "[secret:aws_access_key_id:1]",
        "aws_access_key_id" } };
    const Json args
        = { { "auth", "Bearer AKIAIOSFODNN7EXAMPLE" }, { "list", { "AKIAIOSFODNN7EXAMPLE", 5 } } };
    const Json m = maskJson(args, r);
    QCOMPARE(m,
        Json({ { "auth", "Bearer [secret:aws_access_key_id:1]" },
            { "list", { "[secret:aws_access_key_id:1]", 5 } } }));
    QCOMPARE(unmaskJson(m, r), args);
    Json edited = m;
    edited["url"] = "https://other.test/";
    edited["auth"] = "Token [secret:aws_access_key_id:1]";
    const Json restored = unmaskJson(edited, r);
    QCOMPARE(restored["auth"], Json("Token AKIAIOSFODNN7EXAMPLE"));
    QCOMPARE(restored["url"], Json("https://other.test/"));
}

void TestSecrets::customPatternsAndConfiguration()
{
    const Policy p
        = policyOf(R"({"guardrails":[{"type":"secrets","builtin":false,"credential_keys":false,
        "patterns":[{"name":"internal_token","regex":"itk_[A-Za-z0-9]{12}"}]}]})");
    ChainOutcome o = run(p,
        { { "x", "use itk_abcdefABCDEF1 please" }, { "password", "hunter2hunter2" },
            { "k", "AKIAIOSFODNN7EXAMPLE" } });
    QCOMPARE(o.redactions.size(), std::size_t(1));
    QCOMPARE(o.redactions[0].secret, std::string("itk_abcdefABCDEF"));

    QCOMPARE(
        policyError(
            R"({"guardrails":[{"type":"secrets","patterns":[{"name":"x","regex":"[unclosed"}]}]})"),
        QStringLiteral("p.json: guardrails[0].patterns[0].regex: invalid regex: missing "
                       "terminating ] for character class at offset 9"));
}

// Each detector is asked only about text holding a literal all its matches
// contain; these are matches the cheap test must let through.
void TestSecrets::prefilterMissesNothing()
{
    const Policy p = policyOf(R"({"guardrails":[{"type":"secrets","patterns":[
        {"name":"internal_token","regex":"itk_[A-Za-z0-9]{12}"},
        {"name":"shouting_token","regex":"(?i)zzq_[a-z]{8}"}]}]})");
    auto found = [&](const Json &args) {
        std::vector<std::string> out;
        for (const Redaction &r : run(p, args).redactions)
            out.push_back(r.kind + "=" + r.secret);
        std::sort(out.begin(), out.end());
        return out;
    };
    using List = std::vector<std::string>;
    // Without case, in any spelling, and deep inside arrays and objects.
    QCOMPARE(found({ { "h", "BEARER abcdefghijklmnop1234" } }),
        List { "bearer_token=abcdefghijklmnop1234" });
    QCOMPARE(found({ { "h", { { "x", Json::array({ 1, "x bEaReR abcdefghijklmnop1234" }) } } } }),
        List { "bearer_token=abcdefghijklmnop1234" });
    // Beyond ASCII, PCRE folds the Kelvin sign onto k and the long s onto
    // s: such keys and values go to PCRE whatever the literals say.
    QCOMPARE(found({ { "api_\u212Aey", "abcdefgh" } }), List { "credential=abcdefgh" });
    QCOMPARE(found({ { "pa\u017F\u017Fword", "abcdefgh" } }), List { "credential=abcdefgh" });
    QCOMPARE(
        found({ { "Token", "abcdefgh" }, { "X-API-KEY", "ijklmnop" }, { "tokens", "qrstuvwx" } }),
        (List { "credential=abcdefgh", "credential=ijklmnop" }));
    // A detector's literal in non-ASCII text.
    QCOMPARE(found({ { "t", "cl\u00e9 AKIAIOSFODNN7EXAMPLE \u00e9t\u00e9" } }),
        List { "aws_access_key_id=AKIAIOSFODNN7EXAMPLE" });
    // Custom patterns: one with a leading literal, found mid-text, and one
    // with none to filter on (an inline option), found in upper case.
    QCOMPARE(found({ { "list", Json::array({ Json::array({ "see itk_abcdefABCDEF" }) }) } }),
        List { "internal_token=itk_abcdefABCDEF" });
    QCOMPARE(found({ { "x", "ZZQ_ABCDEFGH" } }), List { "shouting_token=ZZQ_ABCDEFGH" });
    // Several detectors in one string, and one that finds nothing.
    QCOMPARE(found({ { "x", "xoxb-1234567890-abcdefghij and ghp_" + std::string(36, 'a') } }),
        (List { "github_token=ghp_" + std::string(36, 'a'),
            "slack_token=xoxb-1234567890-abcdefghij" }));
    QCOMPARE(found({ { "command", "make test" }, { "cwd", "/home/dev/app" }, { "timeout", 60 } }),
        List {});
}

QTEST_GUILESS_MAIN(TestSecrets)
#include "tst_secrets.moc"
