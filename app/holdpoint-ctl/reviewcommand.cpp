#include "reviewcommand.h"

#include "common/jsonparse.h"
#include "protocol/protocol.h"

#include <QCommandLineParser>

namespace holdpoint {

std::optional<Json> parseJsonOption(
    const QString &text, const char *what, bool requireObject, QString *error)
{
    Json j;
    std::string why;
    if (!parseStrictJson(text.toStdString(), protocol::MaxDepth, &j, &why)) {
        *error = QStringLiteral("--%1: invalid JSON: %2").arg(QLatin1String(what), toQString(why));
        return std::nullopt;
    }
    if (requireObject && !j.is_object()) {
        *error = QStringLiteral("--%1: expected a JSON object, got %2")
                     .arg(QLatin1String(what), QLatin1String(j.type_name()));
        return std::nullopt;
    }
    return j;
}

std::optional<ReviewCommand> parseReviewCommand(
    const QString &command, const QStringList &args, const QString &pendingHint, QString *error)
{
    QCommandLineParser p;
    const QCommandLineOption reason(QStringLiteral("reason"), {}, QStringLiteral("text"));
    const QCommandLineOption argsOpt(QStringLiteral("args"), {}, QStringLiteral("json"));
    const QCommandLineOption json(QStringLiteral("json"));
    const QCommandLineOption reviewer(QStringLiteral("reviewer"), {}, QStringLiteral("name"));
    if (command == u"pending")
        p.addOption(json);
    else
        p.addOptions({ reason, reviewer });
    if (command == u"edit")
        p.addOption(argsOpt);
    if (!p.parse(args)) {
        *error = p.errorText();
        return std::nullopt;
    }

    ReviewCommand out;
    if (command == u"pending") {
        if (!p.positionalArguments().isEmpty()) {
            *error = QStringLiteral("pending: unexpected argument \"%1\"")
                         .arg(p.positionalArguments().first());
            return std::nullopt;
        }
        out.pending = true;
        out.json = p.isSet(json);
        return out;
    }
    if (p.positionalArguments().size() != 1) {
        *error = QStringLiteral("%1: expected exactly one item ID (see `%2`)")
                     .arg(command, pendingHint);
        return std::nullopt;
    }
    out.review
        = Json { { "type", "review" }, { "id", p.positionalArguments().first().toStdString() },
              { "action", command.toStdString() } };
    if (command == u"deny" && p.value(reason).trimmed().isEmpty()) {
        *error = QStringLiteral("deny: --reason TEXT is required; the agent sees it");
        return std::nullopt;
    }
    if (p.isSet(reason))
        out.review["reason"] = p.value(reason).toStdString();
    out.reviewer = (p.isSet(reviewer) ? p.value(reviewer) : qEnvironmentVariable("HOLDPOINT_REVIEWER"))
                       .trimmed()
                       .toStdString();
    if (command == u"edit") {
        if (!p.isSet(argsOpt)) {
            *error = QStringLiteral("edit: --args JSON is required");
            return std::nullopt;
        }
        auto j = parseJsonOption(p.value(argsOpt), "args", true, error);
        if (!j)
            return std::nullopt;
        out.review["args"] = std::move(*j);
    }
    return out;
}

} // namespace holdpoint
