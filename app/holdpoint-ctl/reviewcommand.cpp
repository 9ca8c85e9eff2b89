// SPDX-License-Identifier: Apache-2.0
#include "reviewcommand.h"

#include "common/jsonparse.h"
#include "common/mixedscript.h"
#include "common/visibletext.h"
#include "hookcommand.h"
#include "protocol/protocol.h"

#include <QCommandLineParser>
#include <QFile>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace holdpoint {

// Files read for @FILE hold at most this: more than any console takes.
constexpr std::size_t MaxJsonFileBytes = 16 * 1024 * 1024;

// The option's JSON: its value, or with a leading @ the contents of that
// file (@- for stdin). A JSON value never starts with @, and one
// command-line argument is capped at 128 KiB on Linux.
static bool jsonOptionText(const QString &value, const char *what, std::string *out, QString *error)
{
    if (!value.startsWith(u'@')) {
        *out = value.toStdString();
        return true;
    }
    const QString path = value.mid(1);
    std::FILE *in = path == u"-" ? stdin : std::fopen(QFile::encodeName(path).constData(), "rb");
    const bool read = in && readInput(in, MaxJsonFileBytes, out);
    const int readError = errno;
    if (in && in != stdin)
        std::fclose(in);
    if (!read) {
        *error
            = QStringLiteral("--%1: cannot read %2: %3")
                  .arg(QLatin1String(what), path, QString::fromLocal8Bit(std::strerror(readError)));
        return false;
    }
    if (out->size() > MaxJsonFileBytes) {
        *error = QStringLiteral("--%1: %2 is larger than %3 bytes")
                     .arg(QLatin1String(what), path)
                     .arg(MaxJsonFileBytes);
        return false;
    }
    return true;
}

std::optional<Json> parseJsonOption(
    const QString &text, const char *what, bool requireObject, QString *error)
{
    std::string json;
    if (!jsonOptionText(text, what, &json, error))
        return std::nullopt;
    Json j;
    std::string why;
    if (!parseStrictJson(json, protocol::MaxDepth, &j, &why)) {
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
    out.reviewer
        = (p.isSet(reviewer) ? p.value(reviewer) : qEnvironmentVariable("HOLDPOINT_REVIEWER"))
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

std::vector<std::string> pendingLines(const Json &item, const std::string &where)
{
    const Json empty = Json::object();
    const Json &args = item.contains("args") ? item["args"] : empty;
    const Json &context = item.contains("context") ? item["context"] : empty;
    const std::string tool = item.value("tool_name", std::string());
    const Json agent = item.value("agent", Json::object());
    QString shownArgs = QString::fromStdString(visibleText(dumpJson(args)));
    if (shownArgs.size() > 100) {
        shownArgs.truncate(97);
        if (shownArgs.back().isHighSurrogate()) // never half a character
            shownArgs.chop(1);
        shownArgs += QStringLiteral("...");
    }
    std::string line = item.value("id", std::string()) + "  ";
    if (!where.empty())
        line += visibleText(where) + "  ";
    line += visibleText(agent.is_object() ? agent.value("name", std::string()) : std::string())
        + "  " + visibleText(tool) + "  " + shownArgs.toStdString();
    std::vector<std::string> lines { std::move(line) };
    const unsigned hidden
        = hiddenTextOf(std::string_view(tool)) | hiddenTextOfJson(args) | hiddenTextOfJson(context);
    if (hidden != 0)
        lines.push_back("    WARNING " + hiddenTextWarning(hidden));
    if (hidden & HiddenMixedScript) {
        Json names = Json::array();
        addMixedScriptJson(names, Json(tool));
        addMixedScriptJson(names, args);
        addMixedScriptJson(names, context);
        if (const std::string namesLine = lookAlikeNamesLine(names); !namesLine.empty())
            lines.push_back("    " + namesLine);
    }
    return lines;
}

} // namespace holdpoint
