// SPDX-License-Identifier: Apache-2.0
#include "endpointinfo.h"

#include "common/datadir.h"
#include "common/json.h"

#include <QFile>

namespace holdpoint {

bool readEndpointInfo(const QString &dataDir, bool withReviewer, EndpointInfo *info, QString *error)
{
    const QString path = dataDir + u'/' + QLatin1String(EndpointFileName);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("no console found: cannot read %1 (%2). Start `holdpoint`, or point --data-dir "
                                "or HOLDPOINT_DATA_DIR at its data directory")
                     .arg(path, file.errorString());
        return false;
    }
    const QByteArray bytes = file.read(64 * 1024);
    const Json j = Json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (!j.is_object() || !j.contains("url") || !j["url"].is_string() || !j.contains("agent_token")
        || !j["agent_token"].is_string()) {
        *error = QStringLiteral("%1 is not a valid endpoint file (expected url and agent_token)").arg(path);
        return false;
    }
    info->url = QUrl(toQString(j["url"].get<std::string>()));
    info->agentToken = QByteArray::fromStdString(j["agent_token"].get<std::string>());
    info->pid = j.value("pid", qint64(0));
    if (!info->url.isValid() || info->url.scheme() != u"ws") {
        *error = QStringLiteral("%1: url is not a ws:// URL").arg(path);
        return false;
    }
    if (withReviewer) {
        QFile tokenFile(dataDir + u'/' + QLatin1String(ReviewerTokenFileName));
        if (!tokenFile.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("cannot read the reviewer token %1 (%2)").arg(tokenFile.fileName(), tokenFile.errorString());
            return false;
        }
        info->reviewerToken = tokenFile.read(4096).trimmed();
    }
    return true;
}

} // namespace holdpoint
