// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <tuple>
#include <utility>
#include <vector>

namespace holdpoint {

// A sequence kept in blocks of a few hundred elements, so that inserting
// or removing in the middle moves one block, not the whole sequence, and
// finding an element's position is a binary search plus a sum over the
// block sizes. The review queue keeps 100,000 pending calls in one: a
// decision in the middle costs microseconds, not a scan.
//
// The sorted operations (lowerBound, find, insertSorted) take
// the order as an argument and assume the elements are sorted by it and
// distinct under it; the positional ones keep whatever order the caller
// gives.
template <typename T> class RankedList
{
public:
    // Blocks split beyond twice this, so each holds 1 to 2 x BlockSize.
    static constexpr std::size_t BlockSize = 256;

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    void clear()
    {
        m_blocks.clear();
        m_size = 0;
        m_cacheValid = false;
    }

    const T &at(std::size_t rank) const
    {
        const auto [b, offset] = locate(rank);
        return m_blocks[b][offset];
    }
    T &at(std::size_t rank)
    {
        const auto [b, offset] = locate(rank);
        return m_blocks[b][offset];
    }

    // Replaces the whole content with `values`, in their order.
    void assign(std::vector<T> values)
    {
        clear();
        m_size = values.size();
        for (std::size_t i = 0; i < values.size(); i += BlockSize) {
            const std::size_t end = std::min(values.size(), i + BlockSize);
            m_blocks.emplace_back(std::make_move_iterator(values.begin() + std::ptrdiff_t(i)),
                std::make_move_iterator(values.begin() + std::ptrdiff_t(end)));
        }
    }

    template <typename Fn> void forEach(Fn &&fn) const
    {
        for (const auto &block : m_blocks)
            for (const T &value : block)
                fn(value);
    }

    // Inserts `count` values from `first` before position `rank`.
    template <typename It> void insertAt(std::size_t rank, It first, std::size_t count)
    {
        if (count == 0)
            return;
        const auto [b, offset] = slot(rank);
        auto &block = m_blocks[b];
        block.insert(
            block.begin() + std::ptrdiff_t(offset), first, std::next(first, std::ptrdiff_t(count)));
        grown(b, count);
    }
    void insertAt(std::size_t rank, const T &value)
    {
        const auto [b, offset] = slot(rank);
        auto &block = m_blocks[b];
        block.insert(block.begin() + std::ptrdiff_t(offset), value);
        grown(b, 1);
    }

    void eraseAt(std::size_t rank, std::size_t count = 1)
    {
        while (count > 0 && rank < m_size) {
            const auto [b, offset] = locate(rank);
            auto &block = m_blocks[b];
            const std::size_t n = std::min(count, block.size() - offset);
            block.erase(
                block.begin() + std::ptrdiff_t(offset), block.begin() + std::ptrdiff_t(offset + n));
            m_size -= n;
            count -= n;
            m_cacheValid = false;
            if (block.empty())
                m_blocks.erase(m_blocks.begin() + std::ptrdiff_t(b));
            else if (b + 1 < m_blocks.size() && block.size() + m_blocks[b + 1].size() <= BlockSize)
                merge(b);
        }
    }

    // The position of the first element not less than `value`.
    template <typename Less> std::size_t lowerBound(const T &value, Less less) const
    {
        // The first block whose last element is not less than `value`.
        const auto blockIt = std::partition_point(m_blocks.begin(), m_blocks.end(),
            [&](const std::vector<T> &block) { return less(block.back(), value); });
        if (blockIt == m_blocks.end())
            return m_size;
        const std::size_t b = std::size_t(blockIt - m_blocks.begin());
        const auto pos = std::lower_bound(blockIt->begin(), blockIt->end(), value, less);
        return start(b) + std::size_t(pos - blockIt->begin());
    }

    // The position of the element equal to `value` under `less`, or -1.
    template <typename Less> long find(const T &value, Less less) const
    {
        const std::size_t rank = lowerBound(value, less);
        if (rank >= m_size || less(value, at(rank)))
            return -1;
        return long(rank);
    }

    template <typename Less> std::size_t insertSorted(const T &value, Less less)
    {
        const std::size_t rank = lowerBound(value, less);
        insertAt(rank, value);
        return rank;
    }

private:
    // Where an insertion before `rank` goes; the end of the last block for
    // the end of the list.
    std::pair<std::size_t, std::size_t> slot(std::size_t rank)
    {
        if (m_blocks.empty())
            m_blocks.emplace_back();
        if (rank >= m_size)
            return { m_blocks.size() - 1, m_blocks.back().size() };
        return locate(rank);
    }

    void grown(std::size_t b, std::size_t count)
    {
        m_size += count;
        m_cacheValid = false;
        split(b);
    }

    std::pair<std::size_t, std::size_t> locate(std::size_t rank) const
    {
        // Rows are mostly read near the last one read (a view painting,
        // a model walking its rows), so start from there.
        std::size_t b = 0, first = 0;
        if (m_cacheValid && rank >= m_cacheStart) {
            b = m_cacheBlock;
            first = m_cacheStart;
        }
        while (rank - first >= m_blocks[b].size()) {
            first += m_blocks[b].size();
            ++b;
        }
        m_cacheBlock = b;
        m_cacheStart = first;
        m_cacheValid = true;
        return { b, rank - first };
    }

    std::size_t start(std::size_t b) const
    {
        if (m_cacheValid && m_cacheBlock == b)
            return m_cacheStart;
        std::size_t first = 0;
        std::size_t i = 0;
        if (m_cacheValid && m_cacheBlock < b) {
            i = m_cacheBlock;
            first = m_cacheStart;
        }
        for (; i < b; ++i)
            first += m_blocks[i].size();
        m_cacheBlock = b;
        m_cacheStart = first;
        m_cacheValid = true;
        return first;
    }

    void split(std::size_t b)
    {
        if (m_blocks[b].size() <= 2 * BlockSize)
            return;
        std::vector<T> big = std::move(m_blocks[b]);
        std::vector<std::vector<T>> parts;
        for (std::size_t i = 0; i < big.size(); i += BlockSize) {
            // The last part takes the remainder if it would be small.
            const std::size_t end = big.size() - i < 2 * BlockSize ? big.size() : i + BlockSize;
            parts.emplace_back(std::make_move_iterator(big.begin() + std::ptrdiff_t(i)),
                std::make_move_iterator(big.begin() + std::ptrdiff_t(end)));
            if (end == big.size())
                break;
        }
        m_blocks.erase(m_blocks.begin() + std::ptrdiff_t(b));
        m_blocks.insert(m_blocks.begin() + std::ptrdiff_t(b),
            std::make_move_iterator(parts.begin()), std::make_move_iterator(parts.end()));
        m_cacheValid = false;
    }

    void merge(std::size_t b)
    {
        auto &next = m_blocks[b + 1];
        m_blocks[b].insert(m_blocks[b].end(), std::make_move_iterator(next.begin()),
            std::make_move_iterator(next.end()));
        m_blocks.erase(m_blocks.begin() + std::ptrdiff_t(b + 1));
        m_cacheValid = false;
    }

    std::vector<std::vector<T>> m_blocks;
    std::size_t m_size = 0;
    mutable std::size_t m_cacheBlock = 0;
    mutable std::size_t m_cacheStart = 0;
    mutable bool m_cacheValid = false;
};

} // namespace holdpoint
