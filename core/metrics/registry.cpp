// SPDX-License-Identifier: Apache-2.0
#include "registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace holdpoint::metrics {

namespace {

enum Type
{
    CounterType,
    GaugeType,
    HistogramType,
};

constexpr std::string_view TypeNames[] = { "counter", "gauge", "histogram" };

// Data model: metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names
// [a-zA-Z_][a-zA-Z0-9_]*, and label names starting with __ are reserved.
bool validName(std::string_view name, bool colon)
{
    if (name.empty())
        return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
            || (colon && c == ':') || (i > 0 && c >= '0' && c <= '9');
        if (!ok)
            return false;
    }
    return true;
}

bool endsWith(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

[[noreturn]] void refuse(const std::string &name, const std::string &why)
{
    throw std::invalid_argument("metric " + name + ": " + why);
}

void appendLabels(std::string &out, const std::vector<Label> &labels,
    const std::vector<std::string_view> &values, std::string_view le = {})
{
    if (labels.empty() && le.empty())
        return;
    out += '{';
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (i)
            out += ',';
        out += labels[i].name;
        out += "=\"";
        out += escapeLabelValue(values[i]);
        out += '"';
    }
    if (!le.empty()) {
        if (!labels.empty())
            out += ',';
        out += "le=\"";
        out += le;
        out += '"';
    }
    out += '}';
}

void appendSample(std::string &out, std::string_view name, std::string_view suffix,
    const std::vector<Label> &labels, const std::vector<std::string_view> &values,
    const std::string &value, std::string_view le = {})
{
    out += name;
    out += suffix;
    appendLabels(out, labels, values, le);
    out += ' ';
    out += value;
    out += '\n';
}

} // namespace

void Counter::inc(double by)
{
    if (by > 0)
        m_value.fetch_add(by, std::memory_order_relaxed);
}

Histogram::Histogram(std::vector<double> bounds)
    : m_bounds(std::move(bounds))
    , m_counts(new std::atomic<std::uint64_t>[m_bounds.size() + 1])
{
    for (std::size_t i = 0; i <= m_bounds.size(); ++i)
        m_counts[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double v)
{
    if (std::isnan(v))
        return;
    const auto it = std::lower_bound(m_bounds.begin(), m_bounds.end(), v);
    m_counts[std::size_t(it - m_bounds.begin())].fetch_add(1, std::memory_order_relaxed);
    m_sum.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const
{
    Snapshot s;
    s.sum = m_sum.load(std::memory_order_relaxed);
    s.cumulative.reserve(m_bounds.size() + 1);
    std::uint64_t running = 0;
    for (std::size_t i = 0; i <= m_bounds.size(); ++i) {
        running += m_counts[i].load(std::memory_order_relaxed);
        s.cumulative.push_back(running);
    }
    s.count = running;
    return s;
}

template <typename T>
Family<T>::Family(std::vector<Label> labels, const std::function<std::unique_ptr<T>()> &make)
    : m_labels(std::move(labels))
{
    std::size_t n = 1;
    for (const Label &l : m_labels)
        n *= l.values.size();
    m_items.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        m_items.push_back(make());
}

template <typename T> T *Family<T>::find(const std::vector<std::string_view> &values) const
{
    if (values.size() != m_labels.size())
        return nullptr;
    std::size_t index = 0;
    for (std::size_t i = 0; i < m_labels.size(); ++i) {
        const std::vector<std::string> &allowed = m_labels[i].values;
        const auto it = std::find(allowed.begin(), allowed.end(), values[i]);
        if (it == allowed.end())
            return nullptr;
        index = index * allowed.size() + std::size_t(it - allowed.begin());
    }
    return m_items[index].get();
}

template <typename T> std::vector<std::string_view> Family<T>::valuesAt(std::size_t i) const
{
    std::vector<std::string_view> out(m_labels.size());
    for (std::size_t l = m_labels.size(); l-- > 0;) {
        const std::vector<std::string> &values = m_labels[l].values;
        out[l] = values[i % values.size()];
        i /= values.size();
    }
    return out;
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

struct Registry::Entry
{
    std::string name;
    std::string help;
    int type = GaugeType;
    std::vector<Label> labels;
    std::unique_ptr<Family<Counter>> counters;
    std::unique_ptr<Family<Gauge>> gauges;
    std::unique_ptr<Family<Histogram>> histograms;
    std::function<double()> read;
};

Registry::Registry() = default;
Registry::~Registry() = default;

Registry::Entry &Registry::add(
    const std::string &name, const std::string &help, int type, const std::vector<Label> &labels)
{
    if (!validName(name, true))
        refuse(name, "not a valid metric name");
    if (name.rfind("__", 0) == 0)
        refuse(name, "names starting with __ are reserved");
    if ((type == CounterType) != endsWith(name, "_total"))
        refuse(name, "counters, and only counters, end in _total");
    for (std::string_view reserved : { "_bucket", "_count", "_sum" })
        if (endsWith(name, reserved))
            refuse(name, "ends in a suffix that histograms and summaries use");
    if (help.empty())
        refuse(name, "needs a HELP text");
    for (const auto &e : m_entries)
        if (e->name == name)
            refuse(name, "registered twice");
    for (const Label &l : labels) {
        if (!validName(l.name, false) || l.name.rfind("__", 0) == 0)
            refuse(name, "label \"" + l.name + "\" is not a valid label name");
        if (type == HistogramType && l.name == "le")
            refuse(name, "a histogram's own label is le");
        if (l.values.empty())
            refuse(name, "label " + l.name + " declares no values");
        std::vector<std::string> sorted = l.values;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
            refuse(name, "label " + l.name + " declares a value twice");
    }
    for (std::size_t i = 0; i < labels.size(); ++i)
        for (std::size_t j = i + 1; j < labels.size(); ++j)
            if (labels[i].name == labels[j].name)
                refuse(name, "label " + labels[i].name + " twice");
    auto entry = std::make_unique<Entry>();
    entry->name = name;
    entry->help = help;
    entry->type = type;
    entry->labels = labels;
    m_entries.push_back(std::move(entry));
    return *m_entries.back();
}

Counter &Registry::counter(const std::string &name, const std::string &help)
{
    return counters(name, help, {}).at(0);
}

Family<Counter> &Registry::counters(
    const std::string &name, const std::string &help, std::vector<Label> labels)
{
    Entry &e = add(name, help, CounterType, labels);
    e.counters = std::make_unique<Family<Counter>>(
        std::move(labels), [] { return std::make_unique<Counter>(); });
    return *e.counters;
}

Gauge &Registry::gauge(const std::string &name, const std::string &help)
{
    return gauges(name, help, {}).at(0);
}

Family<Gauge> &Registry::gauges(
    const std::string &name, const std::string &help, std::vector<Label> labels)
{
    Entry &e = add(name, help, GaugeType, labels);
    e.gauges = std::make_unique<Family<Gauge>>(
        std::move(labels), [] { return std::make_unique<Gauge>(); });
    return *e.gauges;
}

void Registry::gauge(const std::string &name, const std::string &help, std::function<double()> read)
{
    addRead(name, help, GaugeType, std::move(read));
}

void Registry::counter(
    const std::string &name, const std::string &help, std::function<double()> read)
{
    addRead(name, help, CounterType, std::move(read));
}

void Registry::addRead(
    const std::string &name, const std::string &help, int type, std::function<double()> read)
{
    if (!read)
        refuse(name, "a metric read at exposition needs a function");
    add(name, help, type, {}).read = std::move(read);
}

Histogram &Registry::histogram(
    const std::string &name, const std::string &help, std::vector<double> bounds)
{
    return histograms(name, help, std::move(bounds), {}).at(0);
}

Family<Histogram> &Registry::histograms(const std::string &name, const std::string &help,
    std::vector<double> bounds, std::vector<Label> labels)
{
    if (bounds.empty())
        refuse(name, "a histogram needs at least one bucket bound");
    for (std::size_t i = 0; i < bounds.size(); ++i)
        if (!std::isfinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1]))
            refuse(name, "bucket bounds must be finite and strictly increasing");
    Entry &e = add(name, help, HistogramType, labels);
    e.histograms = std::make_unique<Family<Histogram>>(
        std::move(labels), [&bounds] { return std::make_unique<Histogram>(bounds); });
    return *e.histograms;
}

std::string Registry::exposition() const
{
    std::string out;
    out.reserve(8192);
    for (const auto &e : m_entries) {
        out += "# HELP ";
        out += e->name;
        out += ' ';
        out += escapeHelp(e->help);
        out += "\n# TYPE ";
        out += e->name;
        out += ' ';
        out += TypeNames[e->type];
        out += '\n';
        if (e->read) {
            appendSample(out, e->name, {}, {}, {}, formatValue(e->read()));
        } else if (e->counters) {
            for (std::size_t i = 0; i < e->counters->size(); ++i)
                appendSample(out, e->name, {}, e->labels, e->counters->valuesAt(i),
                    formatValue(e->counters->at(i).value()));
        } else if (e->gauges) {
            for (std::size_t i = 0; i < e->gauges->size(); ++i)
                appendSample(out, e->name, {}, e->labels, e->gauges->valuesAt(i),
                    formatValue(e->gauges->at(i).value()));
        } else if (e->histograms) {
            for (std::size_t i = 0; i < e->histograms->size(); ++i) {
                const Histogram &h = e->histograms->at(i);
                const std::vector<std::string_view> values = e->histograms->valuesAt(i);
                const Histogram::Snapshot s = h.snapshot();
                for (std::size_t b = 0; b < h.bounds().size(); ++b)
                    appendSample(out, e->name, "_bucket", e->labels, values,
                        std::to_string(s.cumulative[b]), formatValue(h.bounds()[b]));
                appendSample(
                    out, e->name, "_bucket", e->labels, values, std::to_string(s.count), "+Inf");
                appendSample(out, e->name, "_sum", e->labels, values, formatValue(s.sum));
                appendSample(out, e->name, "_count", e->labels, values, std::to_string(s.count));
            }
        }
    }
    return out;
}

std::string formatValue(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "+Inf" : "-Inf";
    // The shortest text that reads back as the same double, in %g's form
    // as Go's client writes it (0.0005, 5e-05), so a bucket's le reads the
    // same from every exporter.
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general);
    return std::string(buf, r.ptr);
}

std::string escapeHelp(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string escapeLabelValue(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

} // namespace holdpoint::metrics
