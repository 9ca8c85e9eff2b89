// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QString>
#include <QUrl>

namespace holdpoint {

// What a client needs to reach the console, read from the data dir.
struct EndpointInfo
{
    QUrl url;
    QByteArray agentToken;
    QByteArray reviewerToken; // empty unless reviewer.token was readable
    qint64 pid = 0;
};

// Reads endpoint.json (and reviewer.token when `withReviewer`) from `dataDir`.
// On failure returns false with a message a person can act on; *absent
// (when given) says whether endpoint.json does not exist (wire/endpoint.h).
bool readEndpointInfo(const QString &dataDir, bool withReviewer, EndpointInfo *info, QString *error,
    bool *absent = nullptr);

} // namespace holdpoint
