// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QTimer>

#include <functional>
#include <limits>
#include <string>

namespace holdpoint {

// Milliseconds since the Unix epoch, UTC.
using TimeMs = qint64;
inline constexpr TimeMs NoDeadline = std::numeric_limits<TimeMs>::max();

// ISO 8601 in UTC with milliseconds, "2026-11-22T06:25:11.026Z", exactly
// as QDateTime's Qt::ISODateWithMs writes it, without its cost: every
// audit record and reviewer event carries one.
std::string formatTimestamp(TimeMs ms);

// The seam through which all protocol-level time flows (timeouts, grace
// periods, rate windows), so tests move time by hand instead of sleeping.
class Clock : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~Clock() override = default;

    virtual TimeMs now() const = 0;
    // True when time only moves through advanced(), never by itself.
    virtual bool isManual() const = 0;

Q_SIGNALS:
    // A manual clock jumped forward; anything waiting on it re-checks.
    void advanced();
};

class SystemClock final : public Clock
{
    Q_OBJECT
public:
    using Clock::Clock;
    TimeMs now() const override;
    bool isManual() const override { return false; }
};

class ManualClock final : public Clock
{
    Q_OBJECT
public:
    explicit ManualClock(TimeMs start, QObject *parent = nullptr);
    TimeMs now() const override { return m_now; }
    bool isManual() const override { return true; }
    void advance(TimeMs ms);
    void set(TimeMs at);

private:
    TimeMs m_now;
};

// Calls back once the clock reaches a deadline. With the system clock it
// arms a real timer; with a manual clock it re-checks on every advance.
class Alarm final : public QObject
{
    Q_OBJECT
public:
    Alarm(Clock *clock, std::function<void()> onDue, QObject *parent = nullptr);
    // NoDeadline disarms.
    void setDeadline(TimeMs at);
    TimeMs deadline() const { return m_deadline; }

private:
    void check();

    Clock *m_clock;
    std::function<void()> m_onDue;
    QTimer m_timer;
    TimeMs m_deadline = NoDeadline;
};

} // namespace holdpoint
