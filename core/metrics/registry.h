// SPDX-License-Identifier: Apache-2.0
#pragma once

// Counters, gauges and histograms, written out in Prometheus' text
// exposition format 0.0.4 ("Exposition formats", Prometheus docs).
//
// - Metrics are registered on one thread before anything reads them; the
//   registry's shape never changes after that. Their values are atomics, so
//   any thread may update them (the audit writer's thread does) while
//   another writes the exposition.
// - Every label's values are declared when its family is registered, and
//   every combination exists from the start: a label never takes a value
//   from outside (a tool name, an agent's string), so the number of series
//   is bounded by construction, and a rate() over a series that saw its
//   first event still starts from 0.
// - Names follow Prometheus' conventions, checked at registration: base
//   units in the name, `_total` on counters and on nothing else.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace holdpoint::metrics {

class Counter final
{
public:
    // `by` must not be negative: a counter only goes up (a reset is a restart).
    void inc(double by = 1.0);
    double value() const { return m_value.load(std::memory_order_relaxed); }

private:
    std::atomic<double> m_value { 0.0 };
};

class Gauge final
{
public:
    void set(double v) { m_value.store(v, std::memory_order_relaxed); }
    void add(double by) { m_value.fetch_add(by, std::memory_order_relaxed); }
    double value() const { return m_value.load(std::memory_order_relaxed); }

private:
    std::atomic<double> m_value { 0.0 };
};

// Buckets by upper bound: an observation v counts in every bucket whose
// bound is >= v (`le`, less or equal), and in +Inf.
class Histogram final
{
public:
    // Strictly increasing, finite bounds; +Inf is implied.
    explicit Histogram(std::vector<double> bounds);
    // NaN is ignored: it would turn the sum into NaN for good.
    void observe(double v);

    struct Snapshot
    {
        std::vector<std::uint64_t> cumulative; // one per bound, then +Inf (== count)
        std::uint64_t count = 0;
        double sum = 0;
    };
    // Consistent within itself: the +Inf bucket is the count, and buckets
    // never decrease. The sum may run a single observation ahead or behind.
    Snapshot snapshot() const;
    const std::vector<double> &bounds() const { return m_bounds; }

private:
    std::vector<double> m_bounds;
    std::unique_ptr<std::atomic<std::uint64_t>[]> m_counts; // per bucket, +Inf last
    std::atomic<double> m_sum { 0.0 };
};

struct Label
{
    std::string name;
    std::vector<std::string> values; // every value it may take
};

// One metric per combination of its labels' values.
template <typename T> class Family final
{
public:
    Family(std::vector<Label> labels, const std::function<std::unique_ptr<T>()> &make);
    // The metric for these values, one per label in order; null for a value
    // the family does not declare (so nothing undeclared is ever exposed).
    T *find(const std::vector<std::string_view> &values) const;
    const std::vector<Label> &labels() const { return m_labels; }
    std::size_t size() const { return m_items.size(); }
    // The i-th combination, the last label varying fastest.
    T &at(std::size_t i) const { return *m_items[i]; }
    std::vector<std::string_view> valuesAt(std::size_t i) const;

private:
    std::vector<Label> m_labels;
    std::vector<std::unique_ptr<T>> m_items;
};

class Registry final
{
public:
    Registry();
    ~Registry();
    Registry(const Registry &) = delete;
    Registry &operator=(const Registry &) = delete;

    // Each throws std::invalid_argument for a name that breaks the
    // conventions, a name taken already, a bad label, or bad bounds: a
    // programming error, found by the first test that builds the registry.
    Counter &counter(const std::string &name, const std::string &help);
    Family<Counter> &counters(
        const std::string &name, const std::string &help, std::vector<Label> labels);
    Gauge &gauge(const std::string &name, const std::string &help);
    Family<Gauge> &gauges(
        const std::string &name, const std::string &help, std::vector<Label> labels);
    // Read at each exposition, on the thread that writes it; a counter's
    // `read` must never go down (a count kept elsewhere).
    void gauge(const std::string &name, const std::string &help, std::function<double()> read);
    void counter(const std::string &name, const std::string &help, std::function<double()> read);
    Histogram &histogram(
        const std::string &name, const std::string &help, std::vector<double> bounds);
    Family<Histogram> &histograms(const std::string &name, const std::string &help,
        std::vector<double> bounds, std::vector<Label> labels);

    // Every metric in registration order, each with its HELP and TYPE lines.
    std::string exposition() const;

    struct Entry;

private:
    Entry &add(const std::string &name, const std::string &help, int type,
        const std::vector<Label> &labels);
    void addRead(
        const std::string &name, const std::string &help, int type, std::function<double()> read);
    std::vector<std::unique_ptr<Entry>> m_entries;
};

// The media type of exposition(), for Content-Type.
inline constexpr std::string_view ContentType = "text/plain; version=0.0.4; charset=utf-8";

// Text format 0.0.4: a sample value (Go's float syntax: "+Inf", "NaN").
std::string formatValue(double v);
// HELP text: backslash and line feed escaped.
std::string escapeHelp(std::string_view text);
// A label value: backslash, double quote and line feed escaped.
std::string escapeLabelValue(std::string_view text);

} // namespace holdpoint::metrics
