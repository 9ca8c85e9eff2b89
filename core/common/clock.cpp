// SPDX-License-Identifier: Apache-2.0
#include "clock.h"

#include <QDateTime>

#include <algorithm>
#include <chrono>

namespace holdpoint {

std::string formatTimestamp(TimeMs ms)
{
    using namespace std::chrono;
    const sys_time<milliseconds> t { milliseconds(ms) };
    const sys_days day = floor<days>(t);
    const year_month_day date(day);
    const int y = int(date.year());
    if (y < 1 || y > 9999) // outside what Qt writes in four digits: its own form
        return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC)
            .toString(Qt::ISODateWithMs)
            .toStdString();
    const hh_mm_ss<milliseconds> time(t - day);
    std::string text = "0000-00-00T00:00:00.000Z";
    auto put = [&text](std::size_t end, int value) { // right-aligned digits ending before `end`
        for (std::size_t i = end; value > 0; value /= 10)
            text[--i] = char('0' + value % 10);
    };
    put(4, y);
    put(7, int(unsigned(date.month())));
    put(10, int(unsigned(date.day())));
    put(13, int(time.hours().count()));
    put(16, int(time.minutes().count()));
    put(19, int(time.seconds().count()));
    put(23, int(time.subseconds().count()));
    return text;
}

TimeMs SystemClock::now() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

ManualClock::ManualClock(TimeMs start, QObject *parent)
    : Clock(parent)
    , m_now(start)
{ }

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
