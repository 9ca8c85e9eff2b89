// SPDX-License-Identifier: Apache-2.0
// With no tray, escalations reach the reviewer through the desktop's
// notification service over D-Bus. The test starts its own session bus
// (dbus-daemon), an X server (Xvfb) and a real notification daemon (dunst)
// on them, then asks dunst what it received.

#include "common/jsoncompare.h"
#include "presence.h"

#include <QApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDir>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QWidget>

using namespace holdpoint;

class TestNotifications : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void escalationIsNotifiedWithoutATray();
    void activatingTheNotificationBringsTheWindowForward();

private:
    // dunstctl's answer on the test's bus.
    QByteArray dunstctl(const QStringList &args);
    // Everything dunst has shown, newest first (closes what is on screen).
    Json shownNotifications();
    bool sendToBackground(QWidget &window);

    QProcess m_bus, m_x, m_dunst;
    QString m_address, m_display;
    QDBusConnection m_connection { QStringLiteral("none") };
    QWidget m_other; // takes the activation, so the console's window is in the background
};

void TestNotifications::initTestCase()
{
    for (const char *tool : { "dbus-daemon", "Xvfb", "dunst", "dunstctl" })
        if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty())
            QFAIL(qPrintable(QStringLiteral("%1 is missing: bash .ci/quickstart test installs it")
                                 .arg(QString::fromLatin1(tool))));

    m_bus.start(QStringLiteral("dbus-daemon"),
        { QStringLiteral("--session"), QStringLiteral("--nofork"),
            QStringLiteral("--print-address=1") });
    QVERIFY(m_bus.waitForReadyRead(10'000));
    m_address = QString::fromUtf8(m_bus.readLine()).trimmed();
    QVERIFY(m_address.startsWith(QStringLiteral("unix:")));
    // Xvfb picks a free display and says which on the given descriptor.
    m_x.start(QStringLiteral("Xvfb"),
        { QStringLiteral("-displayfd"), QStringLiteral("1"), QStringLiteral("-nolisten"),
            QStringLiteral("tcp"), QStringLiteral("-screen"), QStringLiteral("0"),
            QStringLiteral("1024x768x24") });
    QVERIFY(m_x.waitForReadyRead(20'000));
    m_display = QStringLiteral(":") + QString::fromUtf8(m_x.readLine()).trimmed();

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), m_address);
    env.insert(QStringLiteral("DISPLAY"), m_display);
    env.insert(QStringLiteral("HOME"), QDir::tempPath()); // no user dunstrc
    m_dunst.setProcessEnvironment(env);
    m_dunst.start(QStringLiteral("dunst"), {});
    QVERIFY(m_dunst.waitForStarted());

    m_connection = QDBusConnection::connectToBus(m_address, QStringLiteral("holdpoint-test"));
    QVERIFY(m_connection.isConnected());
    QTRY_VERIFY_WITH_TIMEOUT(
        m_connection.interface()
            ->isServiceRegistered(QStringLiteral("org.freedesktop.Notifications"))
            .value(),
        10'000);
    m_other.resize(200, 100);
    m_other.show();
}

void TestNotifications::cleanupTestCase()
{
    QDBusConnection::disconnectFromBus(QStringLiteral("holdpoint-test"));
    for (QProcess *p : { &m_dunst, &m_x, &m_bus }) {
        p->terminate();
        if (!p->waitForFinished(5000))
            p->kill();
    }
}

QByteArray TestNotifications::dunstctl(const QStringList &args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), m_address);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral("dunstctl"), args);
    if (!p.waitForFinished(10'000) || p.exitCode() != 0)
        return {};
    return p.readAllStandardOutput();
}

Json TestNotifications::shownNotifications()
{
    dunstctl({ QStringLiteral("close-all") });
    // Closing is a D-Bus call of its own; the history has it once it returns.
    const QByteArray out = dunstctl({ QStringLiteral("history") });
    const Json j = Json::parse(out.toStdString(), nullptr, false);
    return j.is_object() && j["data"].is_array() && !j["data"].empty() ? j["data"][0]
                                                                       : Json::array();
}

bool TestNotifications::sendToBackground(QWidget &window)
{
    m_other.raise();
    m_other.activateWindow();
    return QTest::qWaitFor(
        [&] { return !window.isActiveWindow() && m_other.isActiveWindow(); }, 5000);
}

void TestNotifications::escalationIsNotifiedWithoutATray()
{
    QWidget window;
    window.show();
    Presence presence(&window, m_connection);
    QVERIFY(!presence.hasTray()); // the offscreen platform has none
    QSignalSpy notified(&presence, &Presence::notified);

    // While the reviewer looks at the window, it says nothing.
    window.activateWindow();
    QTRY_VERIFY(window.isActiveWindow());
    presence.announce(QStringLiteral("not shown"), QStringLiteral("the window is in front"));
    QVERIFY(sendToBackground(window));
    presence.announce(QStringLiteral("coder wants to run bash"), QStringLiteral("default: ask"));
    QVERIFY(notified.wait(10'000));
    const uint first = notified.at(0).at(0).toUInt();
    QVERIFY(first > 0);

    // The next message replaces the last one instead of piling up.
    presence.announce(
        QStringLiteral("3 calls need a person"), QStringLiteral("<b>rm -rf build</b> & more"));
    QVERIFY(notified.wait(10'000));
    QCOMPARE(notified.at(1).at(0).toUInt(), first);

    const Json shown = shownNotifications();
    QVERIFY2(shown.size() >= 1, shown.dump().c_str());
    QCOMPARE(shown[0]["appname"]["data"], Json("Holdpoint"));
    QCOMPARE(shown[0]["summary"]["data"], Json("3 calls need a person"));
    // An agent's text arrives as text, never as markup.
    QCOMPARE(shown[0]["body"]["data"], Json("&lt;b&gt;rm -rf build&lt;/b&gt; &amp; more"));
    for (const Json &n : shown)
        QVERIFY(n["summary"]["data"] != Json("not shown"));
}

void TestNotifications::activatingTheNotificationBringsTheWindowForward()
{
    QWidget window;
    window.show();
    Presence presence(&window, m_connection);
    QSignalSpy notified(&presence, &Presence::notified);
    QVERIFY(sendToBackground(window));
    presence.announce(QStringLiteral("coder wants to run deploy"), QStringLiteral("production"));
    QVERIFY(notified.wait(10'000));
    // The reviewer clicks it: dunst invokes its default action.
    dunstctl({ QStringLiteral("action"), QStringLiteral("0") });
    QTRY_VERIFY_WITH_TIMEOUT(window.isActiveWindow(), 10'000);
}

QTEST_MAIN(TestNotifications)
#include "tst_notifications.moc"
