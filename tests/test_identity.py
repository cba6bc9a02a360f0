"""The cache of what was worked out per object, by identity."""

from __future__ import annotations

from lesson.identity import ByIdentity


def test_each_object_is_built_once_and_an_equal_one_gets_its_own() -> None:
    built: list[list[int]] = []
    cache = ByIdentity(lambda xs: built.append(xs) or sum(xs), limit=2)
    a, b = [1, 2], [1, 2]
    assert (cache(a), cache(a), cache(b)) == (3, 3, 3)
    assert [x is a for x in built] == [True, False]  # a once, then b: equal, but another object
    a.append(3)  # a changed in place is not noticed: the cache is for objects not changed after
    assert cache(a) == 3
    cache([5])  # past the limit: starts over
    assert cache(a) == 6 and len(built) == 4
