"""The linear C3 merge (the symbol table's, which the resolver uses too) gives what the textbook
merge gives, fallback included."""

from __future__ import annotations

import random

from gyrelint.graphs.symbols import _c3


def _textbook_c3(seqs: list[list[str]]) -> list[str]:
    """The quadratic merge the resolver used before (reference)."""
    seqs = [list(s) for s in seqs if s]
    out: list[str] = []
    while seqs:
        for s in seqs:
            head = s[0]
            if not any(head in t[1:] for t in seqs):
                break
        else:
            for s in seqs:
                for x in s:
                    if x not in out:
                        out.append(x)
            return out
        out.append(head)
        seqs = [[x for x in s if x != head] for s in seqs]
        seqs = [s for s in seqs if s]
    return out


def test_diamond_and_inconsistent_hierarchies() -> None:
    # class D(B, C); B(A); C(A)
    assert _c3([["B", "A"], ["C", "A"], ["B", "C"]]) == ["B", "C", "A"]
    # X(A, B) with Y(B, A): no consistent order, depth-first fallback
    assert _c3([["A", "B"], ["B", "A"]]) == _textbook_c3([["A", "B"], ["B", "A"]]) == ["A", "B"]


def test_same_as_textbook_on_random_hierarchies() -> None:
    rng = random.Random(18)
    for _ in range(20000):
        seqs = [[rng.choice("abcdefgh") for _ in range(rng.randint(0, 6))] for _ in range(rng.randint(0, 5))]
        if rng.random() < 0.5:
            seqs = [list(dict.fromkeys(s)) for s in seqs]
        assert _c3([list(s) for s in seqs]) == _textbook_c3(seqs), seqs
