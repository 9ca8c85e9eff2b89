#include "itemtext.h"

#include <algorithm>

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
    QString clean;
    clean.reserve(std::min<qsizetype>(out.size(), maxChars + 1));
    for (QChar c : out) {
        if (clean.size() >= maxChars) {
            clean += QChar(0x2026);
            break;
        }
        if (c == u'\n')
            clean += QStringLiteral("\u21b5");
        else if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format)
            clean += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
        else
            clean += c;
    }
    return clean;
}

} // namespace holdpoint
