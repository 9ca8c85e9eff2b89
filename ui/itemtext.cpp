// SPDX-License-Identifier: Apache-2.0
#include "itemtext.h"

#include "common/visibletext.h"

#include <QStringList>

#include <algorithm>
#include <numeric>

namespace holdpoint {

QString formatDuration(TimeMs ms)
{
    const qint64 s = std::max<qint64>(0, ms / 1000);
    if (s < 60)
        return QStringLiteral("%1s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1m %2s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1h %2m").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString summarizeArgs(const Json &args, int maxChars)
{
    // One line a reviewer can scan: key=value pairs, strings unquoted,
    // control characters escaped so nothing can forge a row's appearance.
    QString out;
    if (args.is_object()) {
        for (auto it = args.begin(); it != args.end() && out.size() < maxChars; ++it) {
            if (!out.isEmpty())
                out += QStringLiteral("  ");
            const std::string value = it->is_string() ? it->get<std::string>() : dumpJson(*it);
            out += toQString(it.key()) + u'=' + toQString(value);
        }
    } else {
        out = toQString(dumpJson(args));
    }
    return displaySafe(out, maxChars);
}

QString displaySafe(const QString &out, int maxChars)
{
    // One line; hidden and look-alike characters as ⟨U+XXXX⟩ (common/visibletext.h).
    // Escapes only lengthen a text: what lies past maxChars is never shown.
    QString shown = out.left(maxChars + 1);
    shown.replace(u'\n', QChar(0x21b5));
    shown = visibleText(shown);
    if (shown.size() > maxChars) {
        shown.truncate(maxChars);
        if (shown.back().isHighSurrogate()) // never half a character
            shown.chop(1);
        shown += QChar(0x2026);
    }
    return shown;
}

bool onlyTheDefaultAsked(const ItemSignals &s)
{
    return s.askedBy.empty() && !s.secrets && !s.protectedPath && !s.destructive
        && s.loopWarnings == 0 && s.hiddenText == 0;
}

QString whyText(const QueueItem &item, const ItemSignals &s)
{
    QStringList parts;
    // Text that hides what the call does comes first: the rest of the row
    // may be what it disguises.
    if (s.hiddenText != 0)
        parts << toQString(hiddenTextWarning(s.hiddenText)).toUpper();
    // The agent looping says the most about this call, and changes as it waits.
    if (!s.turnFindings.empty())
        parts << toQString(protocol::turnFindingHint(s.turnFindings.front()));
    // A guardrail that asked because of secrets or a protected path is said
    // by those parts below, shorter than its reason.
    if (!s.askedBy.empty() && s.askCode != "secret_detected" && s.askCode != "protected_path"
        && s.askCode != "hidden_characters")
        parts << toQString(s.askedBy) + QStringLiteral(": ")
                + toQString(maskText(s.askReason, item.redactions));
    if (s.secrets)
        parts << (s.secretKinds.empty() ? QStringLiteral("secrets")
                                        : QStringLiteral("secrets: ")
                    + toQString(
                        std::accumulate(std::next(s.secretKinds.begin()), s.secretKinds.end(),
                            s.secretKinds.front(), [](std::string a, const std::string &b) {
                                return std::move(a) + ", " + b;
                            })));
    if (s.protectedPath)
        parts << QStringLiteral("protected path");
    if (s.destructive)
        parts << QStringLiteral("destructive (MCP)");
    if (s.loopWarnings > 0)
        parts << QStringLiteral("loop \u00d7%1").arg(s.loopWarnings);
    QString text
        = parts.isEmpty() ? QStringLiteral("default: ask") : parts.join(QStringLiteral(" \u00b7 "));
    if (!item.agentConnected)
        text = QStringLiteral("agent disconnected \u2014 ") + text;
    return displaySafe(text, 300);
}

QString counted(int n, const QString &one, const QString &many)
{
    return n == 1 ? QString(QStringLiteral("1 ") + one) : QString(QString::number(n) + u' ' + many);
}

} // namespace holdpoint
