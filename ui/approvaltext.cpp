// SPDX-License-Identifier: Apache-2.0
#include "approvaltext.h"

#include "engine/consolecore.h"
#include "itemtext.h"
#include "queue/approvals.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

namespace holdpoint {

namespace {

QString trApprovals(const char *text)
{
    return QCoreApplication::translate("holdpoint::MainWindow", text);
}

QString approverNames(const std::vector<std::string> &people)
{
    QStringList out;
    for (const std::string &n : people)
        out << displaySafe(toQString(n), 40);
    return out.join(QStringLiteral(", "));
}

} // namespace

QString approvalsSummary(const QueueItem &item)
{
    if (!item.approvals.voted())
        return {};
    const int have = approvalCount(item);
    const int need = std::max(1, item.approvals.required);
    QString text = trApprovals("%1 of %2 approvals").arg(have).arg(need);
    if (have > 0)
        text += QStringLiteral(" (%1)").arg(approverNames(approvers(item)));
    text += have >= need ? trApprovals("; complete")
                         : trApprovals("; needs %1 more").arg(need - have);
    if (item.approvals.excludeRequester && !item.requester.empty())
        text += trApprovals("; not from %1, who started the agent")
                    .arg(displaySafe(toQString(item.requester), 40));
    return text;
}

QString approveRefusal(const ConsoleCore &core, const QueueItem &item)
{
    if (!item.approvals.voted())
        return {};
    // A team console whose login maps to no reviewer is nobody here.
    if (!core.reviewerError().isEmpty())
        return core.reviewerError();
    return toQString(approvalRefusal(item, core.reviewerName(), core.reviewerOsUser()));
}

QString alwaysRefusal(const QueueItem &item)
{
    if (!item.approvals.voted())
        return {};
    return trApprovals("this call needs %1 people's approval, which a rule cannot give; approve it "
                       "alone (this call)")
        .arg(item.approvals.required);
}

QString approveRefusalShort(const ConsoleCore &core, const QueueItem &item)
{
    if (approveRefusal(core, item).isEmpty())
        return {};
    const QString count
        = QStringLiteral("%1/%2").arg(approvalCount(item)).arg(item.approvals.required);
    if (!core.reviewerError().isEmpty())
        return trApprovals("This console may not decide (see the banner above)");
    // The core refuses the agent's own user first; someone else is refused
    // only for having approved these arguments already.
    if (hasApproved(item, core.reviewerName()))
        return trApprovals("Waiting for someone other than you (%1)").arg(count);
    return trApprovals("You started this agent (OS user %1): someone else must approve (%2)")
        .arg(displaySafe(toQString(item.requester), 40), count);
}

bool mayEditVoted(const ConsoleCore &core, const QueueItem &item)
{
    return core.reviewerError().isEmpty()
        && (approveRefusal(core, item).isEmpty() || hasApproved(item, core.reviewerName()));
}

QString voteHint(const QueueItem &item)
{
    if (!item.approvals.voted())
        return {};
    const int need = std::max(1, item.approvals.required);
    const int after = approvalCount(item) + 1;
    if (after >= need)
        return trApprovals("Needs %1 approvals: yours completes it (%2 of %1) and the call runs")
            .arg(need)
            .arg(after);
    return trApprovals("Needs %1 approvals: yours makes %2 of %1; the call waits for %3 more")
        .arg(need)
        .arg(after)
        .arg(need - after);
}

std::string editAuthor(const QueueItem &item)
{
    if (!item.editedArgs)
        return {};
    const auto it = std::find_if(
        item.votes.rbegin(), item.votes.rend(), [](const protocol::Vote &v) { return v.edit; });
    return it == item.votes.rend() ? std::string() : it->reviewer;
}

} // namespace holdpoint
