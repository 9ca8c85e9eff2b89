// SPDX-License-Identifier: Apache-2.0
#include "reviewercommands.h"

#include "exitcodes.h"
#include "hookcommand.h"
#include "teamcommands.h"

#include "common/datadir.h"
#include "common/json.h"
#include "common/reviewertokens.h"
#include "common/sha256.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace holdpoint {

namespace {

int refuse(const QString &message)
{
    std::fprintf(stderr, "holdpoint-ctl: %s\n", qPrintable(message));
    return exitcode::Failed;
}

std::string ownOsUser()
{
    if (const passwd *pw = getpwuid(geteuid()); pw && pw->pw_name)
        return pw->pw_name;
    return qEnvironmentVariable("USER").toStdString();
}

// The data directory's reviewers; a missing file is none.
bool loadReviewers(const QString &path, std::vector<NamedReviewer> *out, QString *error)
{
    QByteArray bytes;
    bool missing = false;
    if (!readPrivateFile(path, MaxReviewersFileBytes, &bytes, error, &missing)) {
        if (!missing)
            return false;
        out->clear();
        return true;
    }
    ReviewersParse parsed = parseReviewersFile(bytes.toStdString());
    if (!parsed.error.empty()) {
        *error = QStringLiteral("%1: %2 (fix the file, or remove it to start over)")
                     .arg(path, toQString(parsed.error));
        return false;
    }
    *out = std::move(parsed.reviewers);
    return true;
}

int addReviewer(const QString &dataDir, const QString &path, std::vector<NamedReviewer> reviewers,
    const std::string &name, std::string osUser, QString out)
{
    const std::string self = ownOsUser();
    const std::string selfName = qEnvironmentVariable("HOLDPOINT_REVIEWER").trimmed().toStdString();
    if (name == self || (!selfName.empty() && name == selfName))
        return refuse(QStringLiteral(
            "reviewer add: \"%1\" is you, the console's own reviewer, who decides with "
            "the data directory's reviewer.token; a second reviewer is another person: "
            "give them a name of their own")
                          .arg(toQString(name)));
    if (osUser.empty())
        osUser = name;
    if (const std::string why = reviewerNameProblem(osUser); !why.empty())
        return refuse(QStringLiteral("reviewer add: --os-user \"%1\": %2")
                          .arg(toQString(osUser), toQString(why)));
    if (osUser == self)
        return refuse(QStringLiteral(
            "reviewer add: OS user %1 is you; a second reviewer is another person, with "
            "an OS user of their own (--os-user USER)")
                          .arg(toQString(osUser)));
    for (const NamedReviewer &n : reviewers) {
        if (n.name == name)
            return refuse(QStringLiteral(
                "reviewer add: reviewer %1 exists (added %2); to give them a new token, "
                "`holdpoint-ctl reviewer remove %1` first")
                              .arg(toQString(name), toQString(n.added)));
        // One person, one vote: a second name for the same user would count twice.
        if (n.osUser == osUser)
            return refuse(QStringLiteral(
                "reviewer add: OS user %1 is reviewer %2 already; one person, one reviewer")
                              .arg(toQString(osUser), toQString(n.name)));
    }

    // The credential carries the console's address: it must be running.
    EndpointInfo endpoint;
    QString error;
    if (!readEndpointInfo(dataDir, false, &endpoint, &error))
        return refuse(QStringLiteral(
            "reviewer add: %1\n(the credential carries the console's address, so add "
            "reviewers while it runs)")
                          .arg(error));
    if (out.isEmpty())
        out = QStringLiteral("holdpoint-reviewer-%1.json").arg(toQString(name));
    if (QFileInfo::exists(out))
        return refuse(
            QStringLiteral("reviewer add: %1 exists; remove it or give another --out FILE")
                .arg(out));

    const QByteArray token = generateToken();
    NamedReviewer added { name, osUser, sha256Hex(token.toStdString()),
        QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString() };
    const ReviewerCredential credential { endpoint.url.toString().toStdString(), name,
        token.toStdString() };
    if (!writePrivateFile(out, QByteArray::fromStdString(credentialFileText(credential)), &error))
        return refuse(QStringLiteral("reviewer add: %1").arg(error));
    reviewers.push_back(added);
    if (!writePrivateFile(path, QByteArray::fromStdString(reviewersFileText(reviewers)), &error)) {
        QFile::remove(out);
        return refuse(QStringLiteral("reviewer add: %1").arg(error));
    }
    if (!getpwnam(osUser.c_str()))
        std::fprintf(stderr,
            "holdpoint-ctl: warning: no OS user %s on this machine; "
            "exclude_requester compares agents' users with it\n",
            osUser.c_str());
    std::printf("added reviewer %s (OS user %s); the console accepts their token from now on.\n"
                "Their credential is %s (mode 0600). Hand it over privately, e.g.\n"
                "  sudo install -o %s -m 600 %s ~%s/\n"
                "then delete your copy. They decide with\n"
                "  holdpoint-ctl --credential %s pending\n"
                "It names the console at %s: start the console with a fixed --port, or it "
                "moves when the console restarts.\n",
        name.c_str(), osUser.c_str(), qPrintable(out), osUser.c_str(), qPrintable(out),
        osUser.c_str(), qPrintable(QFileInfo(out).fileName()), credential.url.c_str());
    return exitcode::Ok;
}

} // namespace

int runReviewers(const QStringList &args, const QString &dataDirFlag, const QString &teamFlag)
{
    const QString usage
        = QStringLiteral("reviewer: expected `add NAME [--os-user USER] [--out FILE]`, "
                         "`list [--json]` or `remove NAME`");
    if (args.size() < 2)
        return refuse(usage);
    const QString sub = args.at(1);
    QCommandLineParser p;
    const QCommandLineOption osUser(QStringLiteral("os-user"), {}, QStringLiteral("user"));
    const QCommandLineOption out(QStringLiteral("out"), {}, QStringLiteral("file"));
    const QCommandLineOption json(QStringLiteral("json"));
    if (sub == u"add")
        p.addOptions({ osUser, out });
    else if (sub == u"list")
        p.addOption(json);
    else if (sub != u"remove")
        return refuse(usage);
    if (!teamUrl(teamFlag).isEmpty())
        return refuse(
            QStringLiteral("reviewer %1: a team's reviewers are its PostgreSQL logins; use "
                           "`holdpoint-ctl team reviewer add|list|disable`")
                .arg(sub));
    QStringList rest = args.mid(1);
    rest.first() = QStringLiteral("holdpoint-ctl reviewer ") + sub;
    if (!p.parse(rest))
        return refuse(QStringLiteral("reviewer %1: %2").arg(sub, p.errorText()));
    const QStringList names = p.positionalArguments();
    if (sub == u"list" && !names.isEmpty())
        return refuse(
            QStringLiteral("reviewer list: unexpected argument \"%1\"").arg(names.first()));
    if (sub != u"list" && names.size() != 1)
        return refuse(QStringLiteral("reviewer %1: expected exactly one NAME").arg(sub));
    const std::string name = sub == u"list" ? std::string() : names.first().toStdString();
    if (sub == u"add") {
        if (const std::string why = reviewerNameProblem(name); !why.empty())
            return refuse(
                QStringLiteral("reviewer add: \"%1\" is not a reviewer name: %2 (at most %3)")
                    .arg(names.first(), toQString(why))
                    .arg(MaxReviewerNameLength));
        if (p.isSet(out) && p.value(out).isEmpty())
            return refuse(QStringLiteral("reviewer add: --out: give a file name"));
    }

    const QString dataDir = resolveDataDir(dataDirFlag);
    const QString path = dataDir + u'/' + QLatin1String(ReviewersFileName);
    std::vector<NamedReviewer> reviewers;
    QString error;
    if (sub == u"list") {
        if (!loadReviewers(path, &reviewers, &error))
            return refuse(QStringLiteral("reviewer list: %1").arg(error));
        if (p.isSet(json)) {
            Json list = Json::array();
            for (const NamedReviewer &n : reviewers)
                list.push_back(
                    Json { { "name", n.name }, { "os_user", n.osUser }, { "added", n.added } });
            printLine(stdout, dumpJson(list, 2));
        } else if (reviewers.empty()) {
            printLine(
                stdout, "no reviewers besides you; add one with `holdpoint-ctl reviewer add NAME`");
        } else {
            for (const NamedReviewer &n : reviewers)
                printLine(stdout, n.name + "  os user: " + n.osUser + "  added " + n.added);
        }
        return exitcode::Ok;
    }

    // Two owners' commands at once must not lose one's change.
    if (!QFileInfo(dataDir).isDir())
        return refuse(
            QStringLiteral("reviewer %1: no data directory %2; start `holdpoint` first, or point "
                           "--data-dir or HOLDPOINT_DATA_DIR at its data directory")
                .arg(sub, dataDir));
    QLockFile lock(path + QStringLiteral(".lock"));
    if (!lock.tryLock(5000))
        return refuse(
            QStringLiteral("reviewer %1: %2.lock is held by another holdpoint-ctl").arg(sub, path));
    if (!loadReviewers(path, &reviewers, &error))
        return refuse(QStringLiteral("reviewer %1: %2").arg(sub, error));
    if (sub == u"add")
        return addReviewer(dataDir, path, std::move(reviewers), name,
            p.value(osUser).trimmed().toStdString(), p.value(out));

    const auto it = std::find_if(reviewers.begin(), reviewers.end(),
        [&name](const NamedReviewer &n) { return n.name == name; });
    if (it == reviewers.end())
        return refuse(QStringLiteral(
            "reviewer remove: no reviewer \"%1\" (see `holdpoint-ctl reviewer list`)")
                          .arg(names.first()));
    reviewers.erase(it);
    if (!writePrivateFile(path, QByteArray::fromStdString(reviewersFileText(reviewers)), &error))
        return refuse(QStringLiteral("reviewer remove: %1").arg(error));
    std::printf("removed reviewer %s: the console refuses their token from now on, and closes the "
                "connection they have open\n",
        name.c_str());
    return exitcode::Ok;
}

bool takeCredentialOption(QStringList &args, QString *value, QString *error)
{
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (args.at(i) == u"--")
            break;
        if (args.at(i) == u"--credential") {
            if (i + 1 >= args.size()) {
                *error = QStringLiteral("--credential: give the credential FILE");
                return false;
            }
            *value = args.at(i + 1);
            args.remove(i, 2);
            --i;
        } else if (args.at(i).startsWith(u"--credential=")) {
            *value = args.at(i).mid(13);
            args.removeAt(i);
            --i;
        }
    }
    return true;
}

std::optional<ReviewerLogin> reviewerLogin(
    const QString &credentialFlag, const QString &dataDirFlag, QString *error)
{
    ReviewerLogin login;
    if (!credentialFlag.isEmpty() && !dataDirFlag.isEmpty()) {
        *error = QStringLiteral(
            "--credential and --data-dir: give one; a credential says which console, and "
            "as whom");
        return std::nullopt;
    }
    login.credentialPath = credentialFlag;
    if (login.credentialPath.isEmpty() && dataDirFlag.isEmpty())
        login.credentialPath = qEnvironmentVariable("HOLDPOINT_CREDENTIAL");
    if (login.credentialPath.isEmpty()) {
        if (!readEndpointInfo(resolveDataDir(dataDirFlag), true, &login.endpoint, error))
            return std::nullopt;
        return login;
    }
    QByteArray bytes;
    bool missing = false;
    if (!readPrivateFile(login.credentialPath, MaxCredentialFileBytes, &bytes, error, &missing)) {
        if (missing)
            *error
                = QStringLiteral(
                    "no credential %1%2: the console's owner creates one with `holdpoint-ctl "
                    "reviewer add NAME`")
                      .arg(login.credentialPath,
                          credentialFlag.isEmpty() ? QStringLiteral(" (from $HOLDPOINT_CREDENTIAL)")
                                                   : QString());
        return std::nullopt;
    }
    const CredentialParse parsed = parseCredentialFile(bytes.toStdString());
    if (!parsed.error.empty()) {
        *error = QStringLiteral("%1 is not a reviewer credential: %2")
                     .arg(login.credentialPath, toQString(parsed.error));
        return std::nullopt;
    }
    login.endpoint.url = QUrl(toQString(parsed.credential.url));
    login.endpoint.reviewerToken = QByteArray::fromStdString(parsed.credential.token);
    login.name = parsed.credential.name;
    return login;
}

} // namespace holdpoint
