#include "clock.h"

#include <QDateTime>

#include <algorithm>

namespace holdpoint {

TimeMs SystemClock::now() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

ManualClock::ManualClock(TimeMs start, QObject *parent)
    : Clock(parent)
    , m_now(start)
{
}

void ManualClock::advance(TimeMs ms)
{
    m_now += ms;
    Q_EMIT advanced();
}

void ManualClock::set(TimeMs at)
{
    m_now = at;
    Q_EMIT advanced();
}

Alarm::Alarm(Clock *clock, std::function<void()> onDue, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_onDue(std::move(onDue))
{
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &Alarm::check);
    connect(m_clock, &Clock::advanced, this, &Alarm::check);
}

void Alarm::setDeadline(TimeMs at)
{
    m_deadline = at;
    if (at == NoDeadline || m_clock->isManual()) {
        m_timer.stop();
        return;
    }
    // QTimer takes an int; long deadlines are re-armed by check().
    const TimeMs wait = std::clamp<TimeMs>(at - m_clock->now(), 0, 24 * 3600 * 1000);
    m_timer.start(int(wait));
}

void Alarm::check()
{
    if (m_deadline == NoDeadline)
        return;
    if (m_clock->now() >= m_deadline) {
        m_deadline = NoDeadline;
        m_onDue(); // may set a new deadline
    } else if (!m_clock->isManual()) {
        setDeadline(m_deadline);
    }
}

} // namespace holdpoint
