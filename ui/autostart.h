// SPDX-License-Identifier: Apache-2.0
#pragma once

// "Start at login": the console's entry in the user's XDG autostart folder
// (XDG Autostart Specification 0.5), named after the desktop file id the
// package installs, so the session starts the console as the menu would.
// Qt Core only: the window's action (autostartaction.h) is the widget side.

#include <QByteArray>
#include <QCoreApplication>
#include <QString>

namespace holdpoint {

class Autostart final
{
    Q_DECLARE_TR_FUNCTIONS(Autostart)

public:
    // The package's desktop file id (dev.holdpoint.Holdpoint.desktop) and icon name.
    static constexpr const char *DesktopId = HOLDPOINT_APP_ID;

    // `configDir` empty: $XDG_CONFIG_HOME, else ~/.config (XDG Base
    // Directory 0.8), read on each call. `program` empty: this binary.
    explicit Autostart(const QString &configDir = {}, const QString &program = {});

    // <config dir>/autostart/dev.holdpoint.Holdpoint.desktop
    QString path() const;
    // The entry exists and is neither Hidden=true nor
    // X-GNOME-Autostart-enabled=false (the spec's and GNOME's "off").
    bool isOn() const;
    // Write the entry, replacing any other with our id, atomically; the
    // folder is created when missing. False and `error` on failure.
    bool turnOn(QString *error) const;
    // Remove the entry; one that is not there is off already.
    bool turnOff(QString *error) const;

    // The entry turnOn() writes, for `program`.
    QByteArray entry() const;
    // `program` as the Exec key's value: quoted per the Desktop Entry
    // Specification 1.5 "The Exec key" when it has a reserved character,
    // `%` doubled, then the string type's escapes applied.
    static QString execValue(const QString &program);
    // Whether an entry's text turns it on (see isOn()).
    static bool entryIsOn(const QByteArray &text);

private:
    QString configDir() const;
    QString program() const;

    QString m_configDir;
    QString m_program;
};

} // namespace holdpoint
