"""Go's ``sort.Slice``: pattern-defeating quicksort, not stable.

Upstream preemption sorts victims with ``sort.Slice`` (``default_preemption.go``
SelectVictimsOnNode). When two victims compare equal (same priority, same start time) the
order Go leaves them in is the algorithm's, not the input's, once more than 12 elements are
sorted; Python's stable sort would differ. This is a line-by-line port of Go's
``src/sort/slice.go`` (Slice) and ``src/sort/zsortfunc.go`` (pdqsort_func and helpers) with
``src/sort/sort.go`` (xorshift, nextPowerOfTwo); it is deterministic (no randomness: the
pattern breaker is seeded with the slice length).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_MASK64 = (1 << 64) - 1
_INCREASING_HINT = 1
_DECREASING_HINT = 2
_UNKNOWN_HINT = 0


def sort_slice(data: list[Any], less: Callable[[Any, Any], bool]) -> None:
    """``sort.Slice(data, func(i, j) bool { return less(data[i], data[j]) })``, in place."""
    n = len(data)
    if n < 2:
        return
    _Sorter(data, less).pdqsort(0, n, n.bit_length())


class _Sorter:
    __slots__ = ("d", "less_fn")

    def __init__(self, data: list[Any], less: Callable[[Any, Any], bool]) -> None:
        self.d = data
        self.less_fn = less

    def less(self, i: int, j: int) -> bool:
        return self.less_fn(self.d[i], self.d[j])

    def swap(self, i: int, j: int) -> None:
        d = self.d
        d[i], d[j] = d[j], d[i]

    # insertionSort_func
    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    # siftDown_func
    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                break
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    # heapSort_func
    def heap_sort(self, a: int, b: int) -> None:
        first = a
        lo = 0
        hi = b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(lo, i, first)

    # pdqsort_func
    def pdqsort(self, a: int, b: int, limit: int) -> None:
        max_insertion = 12
        was_balanced = True
        was_partitioned = True
        while True:
            length = b - a
            if length <= max_insertion:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING_HINT:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING_HINT
            if was_balanced and was_partitioned and hint == _INCREASING_HINT:
                if self.partial_insertion_sort(a, b):
                    return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, already_partitioned = self.partition(a, b, pivot)
            was_partitioned = already_partitioned
            left_len, right_len = mid - a, b - mid
            balance_threshold = length // 8
            if left_len < right_len:
                was_balanced = left_len >= balance_threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right_len >= balance_threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    # partition_func
    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i += 1
        j -= 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        self.swap(j, a)
        return j, False

    # partitionEqual_func
    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        return i

    # partialInsertionSort_func
    def partial_insertion_sort(self, a: int, b: int) -> bool:
        max_steps = 5
        shortest_shifting = 50
        i = a + 1
        for _ in range(max_steps):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < shortest_shifting:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                j = i - 1
                while j >= 1:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j -= 1
            if b - i >= 2:
                j = i + 1
                while j < b:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j += 1
        return False

    # breakPatterns_func
    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length >= 8:
            random = length  # xorshift(length)
            modulus = 1 << length.bit_length()  # nextPowerOfTwo
            for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
                random ^= (random << 13) & _MASK64
                random ^= random >> 7
                random ^= (random << 17) & _MASK64
                other = random & (modulus - 1)
                if other >= length:
                    other -= length
                self.swap(idx, a + other)

    # choosePivot_func
    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        shortest_ninther = 50
        max_swaps = 4 * 3
        n = b - a
        swaps = [0]
        i = a + n // 4 * 1
        j = a + n // 4 * 2
        k = a + n // 4 * 3
        if n >= 8:
            if n >= shortest_ninther:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING_HINT
        if swaps[0] == max_swaps:
            return j, _DECREASING_HINT
        return j, _UNKNOWN_HINT

    # order2_func
    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    # median_func
    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    # reverseRange_func
    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i += 1
            j -= 1
