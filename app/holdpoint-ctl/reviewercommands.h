// SPDX-License-Identifier: Apache-2.0
#pragma once

// Alone mode's second reviewer (README "A second reviewer on this
// machine"): the console's owner keeps named reviewer tokens in the data
// directory, and each person decides with a credential file of their own.

#include "client/endpointinfo.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <string>

namespace holdpoint {

// `holdpoint-ctl reviewer add NAME [--os-user USER] [--out FILE]`,
// `reviewer list [--json]`, `reviewer remove NAME`. `args` starts with
// "reviewer".
int runReviewers(const QStringList &args, const QString &dataDirFlag, const QString &teamFlag);

// Takes `--credential FILE` (or `--credential=FILE`) out of a command's
// arguments; `value` keeps what it had when there is none.
bool takeCredentialOption(QStringList &args, QString *value, QString *error);

// Where a reviewer command connects, and as whom.
struct ReviewerLogin
{
    EndpointInfo endpoint;
    QString credentialPath; // empty: the data directory's own reviewer.token
    std::string name; // the credential's reviewer; empty for reviewer.token
};

// An explicit --credential wins, then an explicit --data-dir (both at once
// is a usage error), then $HOLDPOINT_CREDENTIAL, then the data directory.
std::optional<ReviewerLogin> reviewerLogin(
    const QString &credentialFlag, const QString &dataDirFlag, QString *error);

} // namespace holdpoint
