// SPDX-License-Identifier: Apache-2.0
#include "detailhtml.h"

#include "approvaltext.h"
#include "itemtext.h"
#include "queue/approvals.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QRegularExpression>
#include <QStringList>
#include <QTextBlock>
#include <QTextCursor>

#include <algorithm>
#include <map>

namespace holdpoint {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("holdpoint::MainWindow", text);
}

QString valueHtml(const Json &value)
{
    return displaySafe(
        toQString(value.is_string() ? value.get<std::string>() : dumpJson(value)), 300)
        .toHtmlEscaped();
}

} // namespace

QString trailHtml(const QueueItem &item, bool revealed)
{
    auto text = [&](const Json &j) {
        const std::string s = j.is_string() ? j.get<std::string>() : dumpJson(j);
        return displaySafe(toQString(revealed ? s : maskText(s, item.redactions)), 400)
            .toHtmlEscaped();
    };
    QStringList lines;
    for (const Json &v : item.trail) {
        const std::string action = v.value("action", std::string());
        const char *colour = action == "deny" || action == "halt" || action == "error" ? "#c0392b"
            : action == "ask" || action == "warn"                                      ? "#b9770e"
            : action == "pass"                                                         ? "#7f8c8d"
                                                                                       : "#1e8449";
        QString line = QStringLiteral("<b>%1</b> <span style=\"color:%2\">%3</span>")
                           .arg(text(v.value("guardrail", Json(""))), QLatin1String(colour),
                               text(Json(action)));
        if (!v.value("reason", std::string()).empty())
            line += QStringLiteral(" \u2014 ") + text(v["reason"]);
        if (!v.value("code", std::string()).empty())
            line += QStringLiteral(" <i>(%1)</i>").arg(text(v["code"]));
        lines << line;
    }
    for (const protocol::Warning &w : item.warnings)
        lines << QStringLiteral("<span style=\"color:#b9770e\">\u26a0 %1</span> %2")
                     .arg(text(Json(w.guardrail)), text(Json(w.message)));
    return lines.isEmpty()
        ? QString()
        : tr("Guardrails:") + QStringLiteral("<br>") + lines.join(QStringLiteral("<br>"));
}

QString turnFindingsHtml(const QueueItem &item)
{
    const QString turn
        = item.turnId ? displaySafe(toQString(*item.turnId), 60).toHtmlEscaped() : QString();
    const QString heading
        = item.turnId ? tr("This turn (%1)").arg(turn) : tr("This session (no turn markers)");
    if (item.turnFindings.empty())
        return QStringLiteral("<b>%1:</b> <span style=\"color:#8a8a8a\">%2</span>")
            .arg(heading, tr("no loop findings so far"));
    QStringList lines;
    lines << QStringLiteral("<b>%1:</b> %2")
                 .arg(heading, tr("loop detection found  [T] open the turn"));
    for (const protocol::TurnFinding &f : item.turnFindings) {
        const bool stopped = f.count >= f.stopAt;
        QStringList calls;
        for (const std::string &id : f.callIds)
            calls << displaySafe(toQString(id), 40).toHtmlEscaped();
        lines << QStringLiteral("<span style=\"color:%1\">\u27f2 <b>%2</b></span> \u2014 %3<br>"
                                "&nbsp;&nbsp;&nbsp;%4: %5 \u00b7 %6 %7 \u00b7 %8 %9 \u00b7 %10 %11")
                     .arg(stopped ? QStringLiteral("#c0392b") : QStringLiteral("#b9770e"),
                         displaySafe(toQString(protocol::turnFindingHint(f)), 200).toHtmlEscaped(),
                         displaySafe(toQString(maskText(f.message, item.redactions)), 300)
                             .toHtmlEscaped(),
                         toQString(f.pattern).toHtmlEscaped(), QString::number(f.count),
                         tr("warns at"), QString::number(f.warnAt),
                         stopped ? tr("stopped at") : tr("stops at"), QString::number(f.stopAt),
                         tr("calls"), calls.join(QStringLiteral(", ")));
    }
    return lines.join(QStringLiteral("<br>"));
}

QString approvalsHtml(const QueueItem &item, bool revealed)
{
    if (!item.approvals.voted())
        return {};
    auto safe = [](const std::string &text, int max) {
        return displaySafe(toQString(text), max).toHtmlEscaped();
    };
    const int have = approvalCount(item);
    const int need = std::max(1, item.approvals.required);
    QStringList lines;
    lines << QStringLiteral("<b>%1</b> <span style=\"color:%2\">%3</span>")
                 .arg(tr("Approvals:"),
                     have >= need ? QStringLiteral("#1e8449") : QStringLiteral("#b9770e"),
                     have >= need ? tr("%1 of %2 approvals; complete").arg(have).arg(need)
                                  : tr("%1 of %2 approvals; needs %3 more")
                                        .arg(have)
                                        .arg(need)
                                        .arg(need - have));
    if (item.approvals.excludeRequester)
        lines << (item.requester.empty()
                ? tr("The agent's OS user is not known; anyone may approve.")
                : tr("Started by OS user <b>%1</b>, who may not approve it.")
                      .arg(safe(item.requester, 40)));
    // Each vote, in order; one that does not count (for other arguments
    // than those standing now, with on_edit "reset") is listed, greyed.
    const std::vector<std::string> counted = approvers(item);
    for (const protocol::Vote &v : item.votes) {
        const bool counts = std::find(counted.begin(), counted.end(), v.reviewer) != counted.end();
        const QString when
            = QDateTime::fromMSecsSinceEpoch(v.at).toString(QStringLiteral("HH:mm:ss"));
        const QString what = v.edit ? tr("edited the arguments to") : tr("approved");
        QString line = QStringLiteral("%1 <b>%2</b> \u00b7 %3 \u00b7 %4 \u00b7 %5: <tt>%6</tt>")
                           .arg(v.edit ? QStringLiteral("\u270e") : QStringLiteral("\u2714"),
                               safe(v.reviewer, 40), safe(v.via, 60), when, what,
                               summarizeArgs(v.args, 160).toHtmlEscaped());
        if (!counts)
            line = QStringLiteral("<span style=\"color:#8a8a8a\"><s>%1</s> %2</span>")
                       .arg(line, tr("(other arguments: does not count)"));
        lines << line;
    }
    const Json now = revealed ? approvedArgs(item) : item.masked(approvedArgs(item));
    QString standingLine
        = tr("An approval now approves: <tt>%1</tt>").arg(summarizeArgs(now, 200).toHtmlEscaped());
    if (const std::string by = editAuthor(item); !by.empty())
        standingLine += QStringLiteral(" ") + tr("(as edited by %1)").arg(safe(by, 40));
    lines << standingLine;
    return lines.join(QStringLiteral("<br>"));
}

QString batchFindingsHtml(const std::vector<const QueueItem *> &items)
{
    QStringList looping;
    for (const QueueItem *item : items)
        if (!item->turnFindings.empty())
            looping << QStringLiteral("%1 \u2014 %2")
                           .arg(displaySafe(toQString(item->agent.name), 40).toHtmlEscaped(),
                               displaySafe(
                                   toQString(protocol::turnFindingHint(item->turnFindings.front())),
                                   120)
                                   .toHtmlEscaped());
    if (looping.isEmpty())
        return QStringLiteral("<span style=\"color:#8a8a8a\">%1</span>")
            .arg(tr("No loop findings in their turns."));
    return QStringLiteral("<b>%1</b><br><span style=\"color:#b9770e\">\u27f2</span> %2")
        .arg(tr("%1 of %2 calls wait in a looping turn:").arg(looping.size()).arg(items.size()),
            looping.join(QStringLiteral("<br><span style=\"color:#b9770e\">\u27f2</span> ")));
}

QString changesHtml(const std::vector<ArgsChange> &changes, const QString &whose)
{
    QStringList lines;
    lines << QStringLiteral("<i>%1</i>").arg(whose.toHtmlEscaped());
    for (const ArgsChange &c : changes) {
        const QString path = displaySafe(toQString(c.path), 120).toHtmlEscaped();
        switch (c.kind) {
        case ArgsChange::Added:
            lines << QStringLiteral("<span style=\"color:#1e8449\">+ %1: %2</span>")
                         .arg(path, valueHtml(c.after));
            break;
        case ArgsChange::Removed:
            lines << QStringLiteral("<span style=\"color:#c0392b\">\u2212 %1: %2</span>")
                         .arg(path, valueHtml(c.before));
            break;
        case ArgsChange::Changed:
            lines << QStringLiteral("~ %1: <span style=\"color:#c0392b\"><s>%2</s></span> \u2192 "
                                    "<span style=\"color:#1e8449\">%3</span>")
                         .arg(path, valueHtml(c.before), valueHtml(c.after));
            break;
        }
    }
    return lines.join(QStringLiteral("<br>"));
}

QString batchSummary(const std::vector<const QueueItem *> &items)
{
    std::map<QString, int> agents;
    std::map<QString, int> tools;
    for (const QueueItem *item : items) {
        ++agents[displaySafe(toQString(item->agent.name), 40)];
        ++tools[displaySafe(toQString(item->toolName), 40)];
    }
    auto counted = [](const std::map<QString, int> &m) {
        QStringList parts;
        for (const auto &[name, n] : m)
            parts << QStringLiteral("%1 \u00d7%2").arg(name).arg(n);
        return parts.join(QStringLiteral(", "));
    };
    return tr("agents: %1  \u00b7  tools: %2").arg(counted(agents), counted(tools));
}

QList<QTextEdit::ExtraSelection> parseErrorMarks(QTextDocument *document, const QString &parseError)
{
    static const QRegularExpression where(QStringLiteral("line (\\d+), column (\\d+)"));
    const auto m = where.match(parseError);
    if (!m.hasMatch())
        return {};
    QTextCursor c(document->findBlockByNumber(m.captured(1).toInt() - 1));
    c.movePosition(
        QTextCursor::Right, QTextCursor::MoveAnchor, std::max(0, m.captured(2).toInt() - 1));
    c.movePosition(QTextCursor::Right, QTextCursor::KeepAnchor);
    QTextEdit::ExtraSelection mark;
    mark.cursor = c;
    mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    mark.format.setUnderlineColor(QColor(0xc0, 0x39, 0x2b));
    mark.format.setBackground(QColor(0xc0, 0x39, 0x2b, 60));
    return { mark };
}

} // namespace holdpoint
