// SPDX-License-Identifier: Apache-2.0
#include "notification.h"

#include "common/json.h"
#include "common/redaction.h"
#include "common/visibletext.h"
#include "queue/queuefilter.h"

#include <algorithm>
#include <optional>

namespace holdpoint {

namespace {

// Agent-chosen text (its name, the tool's name) as a notification may show
// it: the item's secrets masked, one line, every control, bidi-override or
// look-alike character that could make a title lie shown as an escape, at
// most MaxShownNameLength.
QString shownName(const std::string &text, const std::vector<Redaction> &redactions)
{
    // Hidden characters as ⟨U+XXXX⟩, look-alike letters as ⟨а U+0430
    // CYRILLIC⟩ (common/visibletext.h); what is left of tabs and line
    // breaks is a space.
    const QString masked = visibleText(toQString(maskText(text, redactions)));
    QString out;
    out.reserve(masked.size());
    bool gap = false;
    for (const QChar c : masked) {
        if (c.isSpace()) {
            gap = true;
            continue;
        }
        if (gap && !out.isEmpty())
            out += u' ';
        gap = false;
        out += c;
    }
    if (out.size() > MaxShownNameLength) {
        out.truncate(MaxShownNameLength - 1);
        if (out.back().isHighSurrogate()) // never half a character
            out.chop(1);
        out += u'…';
    }
    return out;
}

// A guardrail's name, code or secret kind, shown only when it looks like
// the identifier it should be; anything else might be text from the call.
std::optional<QString> identifier(const std::string &text)
{
    constexpr std::size_t MaxLength = 48;
    if (text.empty() || text.size() > MaxLength)
        return std::nullopt;
    for (const char c : text) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '_' || c == '-' || c == '.' || c == ':';
        if (!ok)
            return std::nullopt;
    }
    return toQString(text);
}

Urgency urgencyOf(int risk, const ItemSignals &signals)
{
    if (risk >= UrgentRisk)
        return Urgency::Urgent;
    if (risk >= HighRisk || signals.destructive)
        return Urgency::High;
    return Urgency::Normal;
}

Urgency raised(Urgency urgency)
{
    return urgency == Urgency::Normal ? Urgency::High : Urgency::Urgent;
}

QString urgencyName(Urgency urgency)
{
    switch (urgency) {
    case Urgency::Normal:
        return QStringLiteral("normal");
    case Urgency::High:
        return QStringLiteral("high");
    case Urgency::Urgent:
        return QStringLiteral("urgent");
    }
    return {};
}

// The signals behind the score, in words for the body and as labels.
void describeSignals(const ItemSignals &signals, QStringList *words, QStringList *labels)
{
    if (signals.destructive) {
        *words << QStringLiteral("destructive tool");
        *labels << QStringLiteral("destructive");
    }
    if (signals.secrets || !signals.secretKinds.empty()) {
        QStringList kinds;
        for (const std::string &kind : signals.secretKinds)
            if (const auto shown = identifier(kind))
                kinds << *shown;
        *words << (kinds.isEmpty()
                ? QStringLiteral("secrets in the arguments")
                : QStringLiteral("secrets in the arguments (%1)").arg(kinds.join(u", ")));
        *labels << QStringLiteral("secrets");
    }
    if (signals.protectedPath) {
        *words << QStringLiteral("a protected path");
        *labels << QStringLiteral("protected-path");
    }
    if (signals.openWorld)
        *words << QStringLiteral("reaches outside the machine");
    if (signals.loopWarnings > 0 || !signals.turnFindings.empty()) {
        *words << QStringLiteral("the agent may be looping");
        *labels << QStringLiteral("loop");
    }
    if (signals.otherWarnings > 0)
        *words << (signals.otherWarnings == 1
                ? QStringLiteral("1 warning")
                : QStringLiteral("%1 warnings").arg(signals.otherWarnings));
}

QString whyLine(const ItemSignals &signals)
{
    // askReason is deliberately unused: guardrails write it for the console,
    // where arguments are shown anyway, and it may quote them.
    const auto guardrail = identifier(signals.askedBy);
    if (!guardrail)
        return signals.askedBy.empty()
            ? QStringLiteral("Why: the policy asks a person for this call.")
            : QStringLiteral("Why: a guardrail asks a person for this call.");
    const auto code = identifier(signals.askCode);
    return code && *code != *guardrail ? QStringLiteral("Why: %1 asks (%2).").arg(*guardrail, *code)
                                       : QStringLiteral("Why: %1 asks.").arg(*guardrail);
}

QString deadlineLine(TimeMs now, TimeMs deadline)
{
    if (deadline == NoDeadline)
        return QStringLiteral("No deadline: it waits until someone decides.");
    if (deadline <= now)
        return QStringLiteral("Its deadline has passed.");
    return QStringLiteral("Decide within %1.").arg(formatRemaining(deadline - now));
}

} // namespace

Notification describePendingItem(const QueueItem &item, TimeMs now, bool reminder)
{
    const ItemSignals signals = itemSignals(item);
    // item.risk is the queue's score; a store that does not keep one (the
    // team's) leaves 0, and the same rule computes it here.
    const int risk = std::max(item.risk, riskScore(item));

    Notification n;
    n.itemId = item.id;
    n.reminder = reminder;
    n.urgency = urgencyOf(risk, signals);
    if (reminder) {
        n.urgency = raised(n.urgency);
        n.labels << QStringLiteral("reminder");
    }

    QString agent = shownName(item.agent.name, item.redactions);
    if (agent.isEmpty())
        agent = QStringLiteral("An agent");
    const QString framework = shownName(item.agent.framework, item.redactions);
    QString tool = shownName(item.toolName, item.redactions);
    if (tool.isEmpty())
        tool = QStringLiteral("a tool");

    n.title = reminder
        ? QStringLiteral("Holdpoint reminder: %1 still waits to run %2").arg(agent, tool)
        : QStringLiteral("Holdpoint: %1 wants to run %2").arg(agent, tool);

    QStringList words;
    describeSignals(signals, &words, &n.labels);
    QStringList lines;
    lines << (framework.isEmpty()
            ? QStringLiteral("%1 wants to run %2.").arg(agent, tool)
            : QStringLiteral("%1 (%2) wants to run %3.").arg(agent, framework, tool));
    // Computed here: a store that keeps no flags (the team's) leaves 0.
    if (const unsigned hidden = hiddenTextOf(item); hidden != 0) {
        lines << toQString(hiddenTextWarning(hidden)).toUpper();
        n.labels << QStringLiteral("hidden characters");
    }
    lines << QStringLiteral("Risk %1/100, %2%3")
                 .arg(QString::number(risk), urgencyName(n.urgency),
                     words.isEmpty() ? QStringLiteral(".") : u": " + words.join(u", ") + u'.');
    lines << whyLine(signals);
    lines << deadlineLine(now, item.deadline);
    if (const auto id = identifier(item.id))
        lines << QStringLiteral("Item %1").arg(*id);
    n.body = lines.join(u'\n');
    return n;
}

QString formatRemaining(TimeMs ms)
{
    const TimeMs seconds = std::max<TimeMs>(ms, 0) / 1000;
    if (seconds < 60)
        return QStringLiteral("%1 s").arg(seconds);
    const TimeMs minutes = seconds / 60;
    if (minutes < 60)
        return seconds % 60 == 0 ? QStringLiteral("%1 min").arg(minutes)
                                 : QStringLiteral("%1 min %2 s").arg(minutes).arg(seconds % 60);
    return minutes % 60 == 0 ? QStringLiteral("%1 h").arg(minutes / 60)
                             : QStringLiteral("%1 h %2 min").arg(minutes / 60).arg(minutes % 60);
}

TimeMs reminderTime(TimeMs now, TimeMs deadline)
{
    if (deadline == NoDeadline || deadline - now < MinReminderWaitMs)
        return NoDeadline;
    return std::max(deadline - ReminderLeadMs, now + (deadline - now) / 2);
}

} // namespace holdpoint
