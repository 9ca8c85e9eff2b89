// SPDX-License-Identifier: Apache-2.0
#pragma once

// A queue that other instances share (team mode): what the console and its
// views ask of it beyond QueueStore. core/team implements it over
// PostgreSQL; the engine, the web part and the window know only this seam,
// so none of them compiles against the database's driver. The program
// (app/holdpoint) makes the store and hands it to the console.

#include "common/json.h"
#include "queue/queuestore.h"

#include <QString>

#include <functional>
#include <string>
#include <vector>

namespace holdpoint {

class ReviewQueue;

// Whether this instance's login may decide as a reviewer, as the shared
// store last read it: unknown until it has answered.
enum class Acting
{
    Unknown,
    Yes,
    No,
};

// Another instance's agents, as it published them.
struct RemoteAgents
{
    std::string instance;
    std::string host;
    bool online = false;
    Json sessions; // as its agents source gave them
};

class SharedQueue : public QueueStore
{
    Q_OBJECT
public:
    using QueueStore::QueueStore;

    // Every item the instances share, pending here or elsewhere: what the
    // window shows.
    virtual ReviewQueue *view() = 0;

    // The instance: its kind ("gateway", "console") and id, which start()
    // announces. The id is set before start() (the console keeps it in its
    // data dir).
    virtual std::string instanceKind() const = 0;
    virtual std::string instanceId() const = 0;
    virtual void setInstanceId(std::string id) = 0;
    virtual void start() = 0;

    // The link to the shared store.
    virtual bool isConnected() const = 0;
    virtual QString lastError() const = 0;
    virtual quint64 reconnects() const = 0;

    // Who this instance decides as: the reviewer its login maps to ("" until
    // known), that reviewer's OS user, and why it may not decide, if so.
    virtual std::string reviewer() const = 0;
    virtual std::string reviewerOsUser() const = 0;
    virtual QString reviewerError() const = 0;
    // The reviewers this login may act as (the reviewer page's sessions):
    // followed once asked, then actingReviewersChanged on each change.
    virtual void followActingReviewers() = 0;
    virtual Acting mayActAs(const std::string &name) const = 0;
    virtual bool actingKnown() const = 0;

    // Presence: this instance's agents, published with each heartbeat from
    // `source`, and the other instances' as last read.
    virtual void setAgentsSource(std::function<Json()> source) = 0;
    virtual const std::vector<RemoteAgents> &remoteAgents() const = 0;

    // The editor lease on an item: taken while a person edits it here.
    virtual void claim(const std::string &id) = 0;
    virtual void release(const std::string &id) = 0;

    // A record this instance's audit log wrote, for the shared audit.
    virtual void copyRecord(const Json &record) = 0;

Q_SIGNALS:
    // A console's view of what the rest of the team did: every line of the
    // shared audit that another instance wrote.
    void activity(const Json &record);
    // reviewer() or reviewerError() changed.
    void reviewerChanged();
    // What mayActAs() answers changed: a reviewer disabled, added or
    // unmapped, or the shared store lost or found again.
    void actingReviewersChanged();
};

} // namespace holdpoint
