// SPDX-License-Identifier: Apache-2.0
#include "autostart.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

namespace holdpoint {

namespace {

// An entry is a few hundred bytes; a bigger file is read this far only.
constexpr qint64 MaxEntryBytes = 64 * 1024;

// Desktop Entry Specification 1.5 "Possible value types": the escapes of
// the string type, applied after the Exec key's quoting.
QString escapeString(const QString &value)
{
    QString out;
    for (const QChar c : value) {
        if (c == u'\\')
            out += QStringLiteral("\\\\");
        else if (c == u'\n')
            out += QStringLiteral("\\n");
        else if (c == u'\t')
            out += QStringLiteral("\\t");
        else if (c == u'\r')
            out += QStringLiteral("\\r");
        else
            out += c;
    }
    return out;
}

} // namespace

Autostart::Autostart(const QString &configDir, const QString &program)
    : m_configDir(configDir)
    , m_program(program)
{ }

QString Autostart::configDir() const
{
    if (!m_configDir.isEmpty())
        return m_configDir;
    // XDG Base Directory 0.8: $XDG_CONFIG_HOME, else $HOME/.config; a
    // relative path in the variable is invalid and ignored.
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    if (dir.isEmpty() || QDir::isRelativePath(dir))
        return QDir::homePath() + QStringLiteral("/.config");
    return dir;
}

QString Autostart::program() const
{
    return m_program.isEmpty() ? QCoreApplication::applicationFilePath() : m_program;
}

QString Autostart::path() const
{
    return configDir() + QStringLiteral("/autostart/") + QLatin1StringView(DesktopId)
        + QStringLiteral(".desktop");
}

bool Autostart::entryIsOn(const QByteArray &text)
{
    // Only the [Desktop Entry] group counts; booleans as GLib reads them
    // (gnome-session and most autostart runners use GKeyFile).
    bool inEntry = false;
    for (const QByteArray &raw : text.split('\n')) {
        const QByteArray line = raw.trimmed();
        if (line.startsWith('[')) {
            inEntry = line == "[Desktop Entry]";
            continue;
        }
        const qsizetype eq = line.indexOf('=');
        if (!inEntry || line.startsWith('#') || eq < 0)
            continue;
        const QByteArray key = line.left(eq).trimmed();
        const QByteArray value = line.mid(eq + 1).trimmed();
        if (key == "Hidden" && (value == "true" || value == "1"))
            return false;
        if (key == "X-GNOME-Autostart-enabled" && (value == "false" || value == "0"))
            return false;
    }
    return true;
}

bool Autostart::isOn() const
{
    QFile f(path());
    if (!QFileInfo(f).isFile() || !f.open(QIODevice::ReadOnly))
        return false;
    return entryIsOn(f.read(MaxEntryBytes));
}

QString Autostart::execValue(const QString &program)
{
    // "The Exec key": an argument with a reserved character is quoted in
    // whole, with ", `, $ and \ escaped by a backslash; a literal % is %%.
    static const QString reserved = QStringLiteral(" \t\n\"'\\><~|&;$*?#`()");
    static const QString escapedInQuotes = QStringLiteral("\"`$\\");
    bool quote = false;
    for (const QChar c : program)
        quote = quote || reserved.contains(c);
    QString arg;
    for (const QChar c : program) {
        if (c == u'%')
            arg += QStringLiteral("%%");
        else if (quote && escapedInQuotes.contains(c))
            arg += u'\\' + QString(c);
        else
            arg += c;
    }
    return escapeString(quote ? u'"' + arg + u'"' : arg);
}

QByteArray Autostart::entry() const
{
    const QString exe = program();
    // TryExec: should the binary go (the package removed), the session
    // skips the entry instead of failing to start it at every login.
    const QString text = QStringLiteral("[Desktop Entry]\n"
                                        "Type=Application\n"
                                        "Name=Holdpoint\n"
                                        "Comment=Approve, deny or edit an AI agent's tool calls "
                                        "before they run\n")
        + QStringLiteral("TryExec=") + escapeString(exe) + u'\n' + QStringLiteral("Exec=")
        + execValue(exe) + u'\n' + QStringLiteral("Icon=") + QLatin1StringView(DesktopId)
        + QStringLiteral("\nTerminal=false\n"
                         "X-GNOME-Autostart-enabled=true\n");
    return text.toUtf8();
}

bool Autostart::turnOn(QString *error) const
{
    const QString dir = configDir() + QStringLiteral("/autostart");
    const QFileInfo info(dir);
    if (info.exists() && !info.isDir()) {
        *error = tr("%1 is a file, not a folder").arg(QDir::toNativeSeparators(dir));
        return false;
    }
    if (!QDir().mkpath(dir)) {
        *error = tr("the folder %1 cannot be created").arg(QDir::toNativeSeparators(dir));
        return false;
    }
    // Written beside the entry and renamed over it: a session starting
    // meanwhile reads the old entry or the new one, never half of one.
    QSaveFile f(path());
    if (!f.open(QIODevice::WriteOnly) || f.write(entry()) < 0 || !f.commit()) {
        *error
            = tr("%1 cannot be written: %2").arg(QDir::toNativeSeparators(path()), f.errorString());
        return false;
    }
    return true;
}

bool Autostart::turnOff(QString *error) const
{
    QFile f(path());
    const QFileInfo info(f);
    if (!info.exists() && !info.isSymLink())
        return true;
    if (!f.remove()) {
        *error
            = tr("%1 cannot be removed: %2").arg(QDir::toNativeSeparators(path()), f.errorString());
        return false;
    }
    return true;
}

} // namespace holdpoint
