// SPDX-License-Identifier: Apache-2.0
#include "queue/rankedlist.h"

#include <QRandomGenerator>
#include <QTest>

#include <algorithm>
#include <vector>

using namespace holdpoint;

// RankedList against a plain vector doing the same operations: every
// position, every element and every search must agree, across the block
// splits and merges that thousands of insertions and removals cause.
class TestRankedList : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void emptyList();
    void positionalAgreesWithVector_data();
    void positionalAgreesWithVector();
    void sortedAgreesWithVector();
    void assignAndForEach();

private:
    static void compare(const RankedList<int> &list, const std::vector<int> &ref)
    {
        QCOMPARE(list.size(), ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i)
            QCOMPARE(list.at(i), ref[i]);
        // Backwards too: reads that move against the cached block.
        for (std::size_t i = ref.size(); i-- > 0;)
            QCOMPARE(list.at(i), ref[i]);
        std::vector<int> seen;
        list.forEach([&](int v) { seen.push_back(v); });
        QCOMPARE(seen, ref);
    }
};

void TestRankedList::emptyList()
{
    RankedList<int> list;
    QVERIFY(list.empty());
    QCOMPARE(list.lowerBound(5, std::less<int>()), std::size_t(0));
    QCOMPARE(list.find(5, std::less<int>()), -1L);
    list.eraseAt(0, 3); // nothing to erase: no effect
    QCOMPARE(list.size(), std::size_t(0));
    list.insertAt(0, 7);
    QCOMPARE(list.size(), std::size_t(1));
    QCOMPARE(list.at(0), 7);
    list.eraseAt(0);
    QVERIFY(list.empty());
}

void TestRankedList::positionalAgreesWithVector_data()
{
    QTest::addColumn<int>("operations");
    QTest::addColumn<int>("maxRun");
    QTest::newRow("single elements") << 20000 << 1;
    QTest::newRow("runs") << 3000 << 700; // runs longer than two blocks
}

void TestRankedList::positionalAgreesWithVector()
{
    QFETCH(int, operations);
    QFETCH(int, maxRun);
    QRandomGenerator rng(42);
    RankedList<int> list;
    std::vector<int> ref;
    int next = 0;
    for (int op = 0; op < operations; ++op) {
        const std::size_t rank = ref.empty() ? 0 : rng.bounded(quint32(ref.size() + 1));
        const std::size_t run = 1 + rng.bounded(quint32(maxRun));
        // Grow to a few thousand, then shrink and grow again.
        const bool grow = (op / 1000) % 2 == 0 ? rng.bounded(10) < 7 : rng.bounded(10) < 3;
        if (grow || ref.empty()) {
            std::vector<int> values(run);
            for (int &v : values)
                v = next++;
            list.insertAt(rank, values.begin(), values.size());
            ref.insert(ref.begin() + std::ptrdiff_t(std::min(rank, ref.size())), values.begin(),
                values.end());
        } else {
            const std::size_t at = std::min(rank, ref.size() - 1);
            const std::size_t n = std::min(run, ref.size() - at);
            list.eraseAt(at, n);
            ref.erase(ref.begin() + std::ptrdiff_t(at), ref.begin() + std::ptrdiff_t(at + n));
        }
        QCOMPARE(list.size(), ref.size());
        if (!ref.empty()) {
            const std::size_t probe = rng.bounded(quint32(ref.size()));
            QCOMPARE(list.at(probe), ref[probe]);
        }
        if (op % 500 == 0)
            compare(list, ref);
    }
    compare(list, ref);
}

void TestRankedList::sortedAgreesWithVector()
{
    QRandomGenerator rng(7);
    RankedList<int> list;
    std::vector<int> ref;
    const auto less = std::less<int>();
    for (int op = 0; op < 20000; ++op) {
        const int v = int(rng.bounded(100000));
        const auto pos = std::lower_bound(ref.begin(), ref.end(), v);
        QCOMPARE(list.lowerBound(v, less), std::size_t(pos - ref.begin()));
        const bool present = pos != ref.end() && *pos == v;
        QCOMPARE(list.find(v, less), present ? long(pos - ref.begin()) : -1L);
        if (present) {
            if (rng.bounded(3) == 0) {
                list.eraseAt(std::size_t(pos - ref.begin()));
                ref.erase(pos);
            }
        } else {
            QCOMPARE(list.insertSorted(v, less), std::size_t(pos - ref.begin()));
            ref.insert(pos, v);
        }
    }
    compare(list, ref);
    // Removing every other element in the middle merges blocks back.
    for (std::size_t i = ref.size() / 2; i < ref.size() && i < ref.size() / 2 + 2000; ++i) {
        list.eraseAt(i);
        ref.erase(ref.begin() + std::ptrdiff_t(i));
    }
    compare(list, ref);
    for (std::size_t i = 0; i < ref.size(); i += 97)
        QCOMPARE(list.find(ref[i], less), long(i));
}

void TestRankedList::assignAndForEach()
{
    std::vector<int> values(1000);
    for (int i = 0; i < 1000; ++i)
        values[std::size_t(i)] = i * 2;
    RankedList<int> list;
    list.insertAt(0, 5);
    list.assign(values);
    compare(list, values);
    QCOMPARE(list.find(998, std::less<int>()), 499L);
    QCOMPARE(list.find(999, std::less<int>()), -1L);
    QCOMPARE(list.lowerBound(999, std::less<int>()), std::size_t(500));
    list.clear();
    QVERIFY(list.empty());
}

QTEST_GUILESS_MAIN(TestRankedList)
#include "tst_rankedlist.moc"
