// SPDX-License-Identifier: Apache-2.0
// "Start at login" (XDG Autostart Specification 0.5) in the window, with
// real widgets offscreen: the Settings menu's check follows the entry in
// $XDG_CONFIG_HOME/autostart, choosing it writes or removes the entry, and
// a folder that cannot be written says why and leaves the check as it was.
// The entry's Exec quoting (Desktop Entry Specification 1.5) is tested on
// the function itself.

#include "autostart.h"
#include "mainwindow.h"
#include "windowharness.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QProcess>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

#include <unistd.h>

using namespace holdpoint;
using namespace holdpoint::test;

namespace {

const QString EntryName = QStringLiteral("dev.holdpoint.Holdpoint.desktop");

QAction *startAtLogin(MainWindow *window)
{
    return window->findChild<QAction *>(QStringLiteral("startAtLoginAction"));
}

// What a reviewer does: click Settings on the status bar, then "Start at
// login" in the menu it opens. The menu runs its own event loop inside the
// click, so the second click happens from a timer that fires in that loop.
bool chooseStartAtLogin(MainWindow *window)
{
    auto *button = window->findChild<QToolButton *>(QStringLiteral("settingsButton"));
    QAction *action = startAtLogin(window);
    if (!button || !action || !button->isVisible())
        return false;
    bool clicked = false;
    QTimer inMenu; // destroyed on return, so it never fires later
    inMenu.setSingleShot(true);
    QObject::connect(&inMenu, &QTimer::timeout, window, [&] {
        if (!QTest::qWaitFor([] { return QApplication::activePopupWidget() != nullptr; }, WaitMs))
            return;
        auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
        if (!menu)
            return;
        if (menu->objectName() == QStringLiteral("settingsMenu") && menu->actions().contains(action)
            && QTest::qWaitForWindowExposed(menu)) {
            QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(action).center());
            clicked = true;
        }
        if (menu->isVisible())
            menu->close();
    });
    inMenu.start(0);
    QTest::mouseClick(button, Qt::LeftButton);
    return clicked;
}

// The entry's keys, as lines of its [Desktop Entry] group.
QMap<QString, QString> keysOf(const QString &path)
{
    QMap<QString, QString> keys;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return keys;
    const QStringList lines = QString::fromUtf8(f.readAll()).split(u'\n', Qt::SkipEmptyParts);
    if (lines.value(0) != QStringLiteral("[Desktop Entry]"))
        return keys;
    for (const QString &line : lines.mid(1))
        keys.insert(line.section(u'=', 0, 0), line.section(u'=', 1));
    return keys;
}

bool writeFile(const QString &path, const QByteArray &text)
{
    QFile f(path);
    return QDir().mkpath(QFileInfo(path).path()) && f.open(QIODevice::WriteOnly)
        && f.write(text) == text.size();
}

} // namespace

class TestAutostart : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void pathFollowsXdgConfigHome();
    void execQuoting_data();
    void execQuoting();
    void entryState_data();
    void entryState();
    void entryWithASpaceValidates();
    void startsUncheckedWithoutAnEntry();
    void turnOnThenOff();
    void entryTurnedOffElsewhereCountsAsOff();
    void menuShowsTheEntryAsItIsNow();
    void unwritableFolderShowsTheError_data();
    void unwritableFolderShowsTheError();
    void removalRefusedKeepsTheCheck();

private:
    QString autostartDir() const { return m_config + QStringLiteral("/autostart"); }
    QString entryPath() const { return autostartDir() + u'/' + EntryName; }

    QTemporaryDir m_dir;
    QString m_config;
};

void TestAutostart::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_config = m_dir.filePath(QStringLiteral("config"));
    // Before any window reads it; the unit reads it on each call, through
    // QStandardPaths, which must honour it.
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_config));
    QCOMPARE(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation), m_config);
    QCOMPARE(Autostart().path(), entryPath());
}

void TestAutostart::init()
{
    QFile::remove(autostartDir());
    QFile(autostartDir()).setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QDir(autostartDir()).removeRecursively();
    QVERIFY(!QFileInfo::exists(autostartDir()));
}

void TestAutostart::cleanup()
{
    // A failing test may have left a message box open.
    for (QWidget *w : QApplication::topLevelWidgets())
        if (auto *box = qobject_cast<QMessageBox *>(w))
            delete box;
    QFile(autostartDir()).setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
}

void TestAutostart::pathFollowsXdgConfigHome()
{
    const QByteArray home = qgetenv("HOME");
    auto restore = qScopeGuard([&] {
        qputenv("HOME", home);
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_config));
    });
    const QString other = m_dir.filePath(QStringLiteral("other"));
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(other));
    QCOMPARE(Autostart().path(), other + QStringLiteral("/autostart/") + EntryName);

    // Unset, or relative (invalid, XDG Base Directory 0.8): ~/.config.
    const QString fakeHome = m_dir.filePath(QStringLiteral("home"));
    qputenv("HOME", QFile::encodeName(fakeHome));
    qunsetenv("XDG_CONFIG_HOME");
    QCOMPARE(Autostart().path(), fakeHome + QStringLiteral("/.config/autostart/") + EntryName);
    qputenv("XDG_CONFIG_HOME", "relative/config");
    QCOMPARE(Autostart().path(), fakeHome + QStringLiteral("/.config/autostart/") + EntryName);

    // A folder given to the unit wins.
    QCOMPARE(Autostart(QStringLiteral("/x")).path(), QStringLiteral("/x/autostart/") + EntryName);
}

void TestAutostart::execQuoting_data()
{
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("exec");
    QTest::newRow("plain") << QStringLiteral("/usr/bin/holdpoint")
                           << QStringLiteral("/usr/bin/holdpoint");
    QTest::newRow("space") << QStringLiteral("/opt/Hold Point/holdpoint")
                           << QStringLiteral("\"/opt/Hold Point/holdpoint\"");
    QTest::newRow("parentheses") << QStringLiteral("/opt/holdpoint (beta)/holdpoint")
                                 << QStringLiteral("\"/opt/holdpoint (beta)/holdpoint\"");
    QTest::newRow("single quote") << QStringLiteral("/home/o'brien/holdpoint")
                                  << QStringLiteral("\"/home/o'brien/holdpoint\"");
    // ", `, $ and \ get a backslash inside the quotes; the string type then
    // doubles every backslash, so a literal one becomes four.
    QTest::newRow("double quote") << QStringLiteral("/tmp/a\"b/holdpoint")
                                  << QStringLiteral("\"/tmp/a\\\\\"b/holdpoint\"");
    QTest::newRow("dollar") << QStringLiteral("/tmp/$HOME/holdpoint")
                            << QStringLiteral("\"/tmp/\\\\$HOME/holdpoint\"");
    QTest::newRow("backtick") << QStringLiteral("/tmp/a`b/holdpoint")
                              << QStringLiteral("\"/tmp/a\\\\`b/holdpoint\"");
    QTest::newRow("backslash") << QStringLiteral("/tmp/a\\b/holdpoint")
                               << QStringLiteral("\"/tmp/a\\\\\\\\b/holdpoint\"");
    // A field code would be expanded: a literal % is %%, quoted or not.
    QTest::newRow("percent") << QStringLiteral("/tmp/100%/holdpoint")
                             << QStringLiteral("/tmp/100%%/holdpoint");
    QTest::newRow("percent and space") << QStringLiteral("/tmp/100% sure/holdpoint")
                                       << QStringLiteral("\"/tmp/100%% sure/holdpoint\"");
    QTest::newRow("tab") << QStringLiteral("/tmp/a\tb/holdpoint")
                         << QStringLiteral("\"/tmp/a\\tb/holdpoint\"");
    QTest::newRow("equals and unicode")
        << QStringLiteral("/opt/a=b/h\u00f6ldpoint") << QStringLiteral("/opt/a=b/h\u00f6ldpoint");
}

void TestAutostart::execQuoting()
{
    QFETCH(QString, program);
    QFETCH(QString, exec);
    QCOMPARE(Autostart::execValue(program), exec);
}

void TestAutostart::entryState_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("on");
    QTest::newRow("ours") << Autostart(QStringLiteral("/x"), QStringLiteral("/bin/h")).entry()
                          << true;
    QTest::newRow("plain") << QByteArray("[Desktop Entry]\nType=Application\nExec=h\n") << true;
    QTest::newRow("hidden") << QByteArray("[Desktop Entry]\nExec=h\nHidden=true\n") << false;
    QTest::newRow("hidden=false") << QByteArray("[Desktop Entry]\nHidden=false\n") << true;
    QTest::newRow("gnome off") << QByteArray(
        "[Desktop Entry]\nExec=h\nX-GNOME-Autostart-enabled=false\n")
                               << false;
    QTest::newRow("gnome off, spaced")
        << QByteArray("[Desktop Entry]\nX-GNOME-Autostart-enabled = false\n") << false;
    QTest::newRow("gnome on") << QByteArray("[Desktop Entry]\nX-GNOME-Autostart-enabled=true\n")
                              << true;
    QTest::newRow("off in another group only")
        << QByteArray("[Desktop Entry]\nExec=h\n[Desktop Action x]\nHidden=true\n") << true;
    QTest::newRow("commented out") << QByteArray("[Desktop Entry]\n#Hidden=true\n") << true;
}

void TestAutostart::entryState()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, on);
    QCOMPARE(Autostart::entryIsOn(text), on);
    QVERIFY(writeFile(entryPath(), text));
    QCOMPARE(Autostart().isOn(), on);
}

void TestAutostart::entryWithASpaceValidates()
{
    // The desktop's own checker reads the entry as a session would.
    const QString validate
        = QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
    if (validate.isEmpty())
        QSKIP("desktop-file-validate (desktop-file-utils) is not installed");
    const Autostart entry(m_config, QStringLiteral("/opt/Hold Point/$bin/holdpoint"));
    QString error;
    QVERIFY2(entry.turnOn(&error), qPrintable(error));
    QProcess p;
    p.start(validate, { entry.path() });
    QVERIFY(p.waitForFinished(WaitMs));
    const QByteArray said = p.readAllStandardOutput() + p.readAllStandardError();
    QVERIFY2(p.exitCode() == 0 && !said.contains("error"), said.constData());
    QCOMPARE(keysOf(entry.path()).value(QStringLiteral("Exec")),
        QStringLiteral("\"/opt/Hold Point/\\\\$bin/holdpoint\""));
}

void TestAutostart::startsUncheckedWithoutAnEntry()
{
    WindowHarness h;
    QVERIFY(h.started && h.active);
    QAction *action = startAtLogin(h.window.get());
    QVERIFY(action);
    QVERIFY(action->isCheckable());
    QVERIFY(!action->isChecked());
    QCOMPARE(action->text(), QStringLiteral("Start at login"));
    auto *button = h.child<QToolButton>("settingsButton");
    QVERIFY(button && button->isVisible());
    QCOMPARE(button->text(), QStringLiteral("Settings"));
    QVERIFY(button->menu() && button->menu()->actions().contains(action));
    QVERIFY(!QFileInfo::exists(entryPath()));
}

void TestAutostart::turnOnThenOff()
{
    const QString binary = QCoreApplication::applicationFilePath();
    QVERIFY2(Autostart::execValue(binary) == binary, "the test binary's path needs no quoting");
    {
        WindowHarness h;
        QVERIFY(h.started && h.active);
        QAction *action = startAtLogin(h.window.get());
        QVERIFY(action && !action->isChecked());
        QVERIFY(chooseStartAtLogin(h.window.get()));
        QVERIFY(action->isChecked());
        QVERIFY(QFileInfo(entryPath()).isFile());
        const QMap<QString, QString> keys = keysOf(entryPath());
        QCOMPARE(keys.value(QStringLiteral("Type")), QStringLiteral("Application"));
        QCOMPARE(keys.value(QStringLiteral("Name")), QStringLiteral("Holdpoint"));
        QVERIFY(!keys.value(QStringLiteral("Comment")).isEmpty());
        QCOMPARE(keys.value(QStringLiteral("Exec")), binary);
        QCOMPARE(keys.value(QStringLiteral("Icon")), QStringLiteral("dev.holdpoint.Holdpoint"));
        QCOMPARE(keys.value(QStringLiteral("Terminal")), QStringLiteral("false"));
        QCOMPARE(keys.value(QStringLiteral("X-GNOME-Autostart-enabled")), QStringLiteral("true"));
        QVERIFY(!keys.contains(QStringLiteral("Hidden")));
        QCOMPARE(h.window->statusBar()->currentMessage(),
            QStringLiteral("Holdpoint will start when you log in"));
        // QSaveFile leaves nothing else behind.
        QCOMPARE(
            QDir(autostartDir()).entryList(QDir::Files | QDir::Hidden), QStringList { EntryName });
    }
    {
        // A console started later sees it on, and turns it off.
        WindowHarness h;
        QVERIFY(h.started && h.active);
        QAction *action = startAtLogin(h.window.get());
        QVERIFY(action && action->isChecked());
        QVERIFY(chooseStartAtLogin(h.window.get()));
        QVERIFY(!action->isChecked());
        QVERIFY(!QFileInfo::exists(entryPath()));
        QVERIFY(!h.window->findChild<QMessageBox *>(QStringLiteral("autostartError")));
        QCOMPARE(h.window->statusBar()->currentMessage(),
            QStringLiteral("Holdpoint will not start when you log in"));
    }
}

void TestAutostart::entryTurnedOffElsewhereCountsAsOff()
{
    // The desktop's settings turn an entry off without removing it.
    QVERIFY(writeFile(entryPath(),
        "[Desktop Entry]\nType=Application\nName=Holdpoint\nExec=/usr/bin/holdpoint\n"
        "X-GNOME-Autostart-enabled=false\n"));
    WindowHarness h;
    QVERIFY(h.started && h.active);
    QAction *action = startAtLogin(h.window.get());
    QVERIFY(action && !action->isChecked());
    // Turning it on replaces it with ours.
    QVERIFY(chooseStartAtLogin(h.window.get()));
    QVERIFY(action->isChecked());
    QCOMPARE(keysOf(entryPath()).value(QStringLiteral("X-GNOME-Autostart-enabled")),
        QStringLiteral("true"));
    QCOMPARE(
        keysOf(entryPath()).value(QStringLiteral("Exec")), QCoreApplication::applicationFilePath());
    QVERIFY(Autostart().isOn());
}

void TestAutostart::menuShowsTheEntryAsItIsNow()
{
    WindowHarness h;
    QVERIFY(h.started && h.active);
    QAction *action = startAtLogin(h.window.get());
    QVERIFY(action && !action->isChecked());
    // Another console turned it on meanwhile: the menu shows it on, so
    // choosing the item turns it off rather than writing it again.
    QString error;
    QVERIFY2(Autostart().turnOn(&error), qPrintable(error));
    QVERIFY(chooseStartAtLogin(h.window.get()));
    QVERIFY(!action->isChecked());
    QVERIFY(!QFileInfo::exists(entryPath()));
}

void TestAutostart::unwritableFolderShowsTheError_data()
{
    QTest::addColumn<bool>("fileInTheWay");
    QTest::addColumn<QString>("why");
    QTest::newRow("autostart is a file") << true << QStringLiteral("is a file, not a folder");
    QTest::newRow("read-only folder") << false << QStringLiteral("cannot be written");
}

void TestAutostart::unwritableFolderShowsTheError()
{
    QFETCH(bool, fileInTheWay);
    QFETCH(QString, why);
    if (fileInTheWay) {
        QVERIFY(writeFile(autostartDir(), "not a folder"));
    } else {
        if (::geteuid() == 0)
            QSKIP("root writes into a read-only folder; the file row covers root");
        QVERIFY(QDir().mkpath(autostartDir()));
        QVERIFY(QFile(autostartDir()).setPermissions(QFile::ReadOwner | QFile::ExeOwner));
    }
    WindowHarness h;
    QVERIFY(h.started && h.active);
    QAction *action = startAtLogin(h.window.get());
    QVERIFY(action && !action->isChecked());
    QVERIFY(chooseStartAtLogin(h.window.get()));
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = h.window->findChild<QMessageBox *>(QStringLiteral("autostartError"))));
    QVERIFY(box->isVisible());
    QVERIFY2(box->text().startsWith(QStringLiteral("Holdpoint cannot start at login: ")),
        qPrintable(box->text()));
    QVERIFY2(
        box->text().contains(autostartDir()) && box->text().contains(why), qPrintable(box->text()));
    QVERIFY(!action->isChecked());
    QVERIFY(!QFileInfo(entryPath()).isFile());
    // OK closes it, and the window is as it was.
    QTest::mouseClick(box->button(QMessageBox::Ok), Qt::LeftButton);
    QTRY_VERIFY(!h.window->findChild<QMessageBox *>(QStringLiteral("autostartError")));
    QVERIFY(!action->isChecked());
}

void TestAutostart::removalRefusedKeepsTheCheck()
{
    if (::geteuid() == 0)
        QSKIP("root removes files from a read-only folder");
    QString error;
    QVERIFY2(Autostart().turnOn(&error), qPrintable(error));
    QVERIFY(QFile(autostartDir()).setPermissions(QFile::ReadOwner | QFile::ExeOwner));
    WindowHarness h;
    QVERIFY(h.started && h.active);
    QAction *action = startAtLogin(h.window.get());
    QVERIFY(action && action->isChecked());
    QVERIFY(chooseStartAtLogin(h.window.get()));
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = h.window->findChild<QMessageBox *>(QStringLiteral("autostartError"))));
    QVERIFY2(box->text().startsWith(QStringLiteral("Holdpoint still starts at login: ")),
        qPrintable(box->text()));
    QVERIFY(action->isChecked());
    QVERIFY(QFileInfo(entryPath()).isFile());
    QTest::mouseClick(box->button(QMessageBox::Ok), Qt::LeftButton);
    QTRY_VERIFY(!h.window->findChild<QMessageBox *>(QStringLiteral("autostartError")));
}

QTEST_MAIN(TestAutostart)
#include "tst_autostart.moc"
