"""Hand evaluation: high hands by the standard ranking, ace-to-five lows.

Hand rankings (both rule documents, last lines): royal flush, straight flush,
four of a kind, full house, flush, straight, three of a kind, two pair, one
pair, high card; suits never break ties; the wheel 5-4-3-2-A is the lowest
straight.

A high hand's value is one int, ``key = category << 20 | r1 << 16 | ... | r5``
where r1..r5 are the five ranks ordered by (count, rank) descending (the
wheel's ace counts as 1): comparing keys compares hands. A low hand's value
is its five ranks from the highest down (ace = 1) packed the same way; a
smaller packing is a better low, so ``LowValue`` orders by its negation.

Speed (bench/evaluator.py): Piranha's best five of nine is read off
rank and suit counts, not the 126 subsets. Piles searches only the legal
combinations (piles.txt 2.3) by prime products of rank multisets looked up in
a table of all 6,175 non-flush five-card rank multisets, built at import;
flushes are searched separately, only in suits that can make one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, combinations_with_replacement

from .cards import Card, rank_char, rank_word
from .errors import CardError

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
CATEGORY_NAMES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
_FULL_HOUSE_KEY = FULL_HOUSE << 20

_PRIME = (0, 0, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)  # by rank 2..14


def _pack(ranks: Sequence[int]) -> int:
    return (ranks[0] << 16) | (ranks[1] << 12) | (ranks[2] << 8) | (ranks[3] << 4) | ranks[4]


def _straight_top(mask: int) -> int:
    """Top rank of the best straight in a rank bitmask (bit r = rank r, bit 1 = ace low), or 0."""
    run = mask & (mask >> 1) & (mask >> 2) & (mask >> 3) & (mask >> 4)
    return run.bit_length() + 3 if run else 0


def _key5(ranks: Sequence[int], flush: bool) -> int:
    """The key of exactly five ranks (flush: all of one suit)."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    ordered = sorted(ranks, key=lambda r: (counts[r], r), reverse=True)
    if len(counts) == 5:
        mask = 0
        for r in ranks:
            mask |= 1 << r
        if mask & (1 << 14):
            mask |= 2
        top = _straight_top(mask)
        if top:
            seq = [top, top - 1, top - 2, top - 3, top - 4]
            if top == 5:
                seq[4] = 1  # the wheel: the ace plays low
            return ((STRAIGHT_FLUSH if flush else STRAIGHT) << 20) | _pack(seq)
        return ((FLUSH if flush else HIGH_CARD) << 20) | _pack(ordered)
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 4:
        cat = QUADS
    elif shape[0] == 3:
        cat = FULL_HOUSE if shape[1] == 2 else TRIPS
    elif shape[0] == 2:
        cat = TWO_PAIR if shape[1] == 2 else PAIR
    else:  # pragma: no cover - five of a kind cannot be dealt
        raise CardError("Five cards of one rank")
    return (cat << 20) | _pack(ordered)


def _build_tables() -> tuple[dict[int, int], dict[int, int]]:
    plain: dict[int, int] = {}
    flush: dict[int, int] = {}
    for combo in combinations_with_replacement(range(2, 15), 5):
        if combo[0] == combo[4]:
            continue  # five of a kind: impossible with one deck
        product = 1
        for r in combo:
            product *= _PRIME[r]
        plain[product] = _key5(combo, False)
        if len(set(combo)) == 5:
            flush[product] = _key5(combo, True)
    return plain, flush


# prime product of a rank multiset -> key (6,175 entries) and of five suited ranks (1,287)
_TABLE, _FLUSH_TABLE = _build_tables()


def _ranks_of(key: int) -> list[int]:
    return [(key >> s) & 15 for s in (16, 12, 8, 4, 0)]


def _article(rank: int) -> str:
    return "an" if rank in (8, 14, 1) else "a"


def high_name(key: int, full: bool = False) -> str:
    """Words for a high key: 'kings full of sevens', 'four jacks' ('four jacks with a nine' if full)."""
    cat = key >> 20
    r = _ranks_of(key)
    if cat == STRAIGHT_FLUSH:
        return "royal flush" if r[0] == 14 else f"{rank_word(r[0])}-high straight flush"
    if cat == QUADS:
        base = f"four {rank_word(r[0], True)}"
        return f"{base} with {_article(r[4])} {rank_word(r[4])}" if full else base
    if cat == FULL_HOUSE:
        return f"{rank_word(r[0], True)} full of {rank_word(r[3], True)}"
    if cat == FLUSH:
        base = f"{rank_word(r[0])}-high flush"
        return f"{base}, {'-'.join(map(rank_char, r))}" if full else base
    if cat == STRAIGHT:
        return f"{rank_word(r[0])}-high straight"
    if cat == TRIPS:
        base = f"three {rank_word(r[0], True)}"
        return f"{base} with {rank_char(r[3])}-{rank_char(r[4])}" if full else base
    if cat == TWO_PAIR:
        base = f"two pair, {rank_word(r[0], True)} and {rank_word(r[2], True)}"
        return f"{base} with {_article(r[4])} {rank_word(r[4])}" if full else base
    if cat == PAIR:
        base = f"pair of {rank_word(r[0], True)}"
        return f"{base} with {'-'.join(map(rank_char, r[2:]))}" if full else base
    base = f"{rank_word(r[0])} high"
    return f"{base}, {'-'.join(map(rank_char, r))}" if full else base


class HandValue:
    """A high hand: better compares greater, equal hands compare equal (whatever the cards).

    ``cards``: the five cards used, most significant first. ``name``: words
    ('kings full of sevens'); ``full_name`` adds kickers ('four jacks with a
    nine'). ``category``: 'full house', 'royal flush', ... ``key``: the int
    that orders hands.
    """

    __slots__ = ("key", "cards")

    def __init__(self, key: int, cards: Sequence[Card]) -> None:
        self.key = key
        self.cards: tuple[Card, ...] = tuple(cards)

    @property
    def category(self) -> str:
        cat = self.key >> 20
        if cat == STRAIGHT_FLUSH and (self.key >> 16) & 15 == 14:
            return "royal flush"
        return CATEGORY_NAMES[cat]

    @property
    def name(self) -> str:
        return high_name(self.key)

    @property
    def full_name(self) -> str:
        return high_name(self.key, full=True)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HandValue) and self.key == other.key

    def __hash__(self) -> int:
        return hash(("high", self.key))

    def __lt__(self, other: HandValue) -> bool:
        return self.key < other.key

    def __le__(self, other: HandValue) -> bool:
        return self.key <= other.key

    def __gt__(self, other: HandValue) -> bool:
        return self.key > other.key

    def __ge__(self, other: HandValue) -> bool:
        return self.key >= other.key

    def __repr__(self) -> str:
        return f"HandValue({self.full_name!r}, {' '.join(map(str, self.cards))})"


class LowValue:
    """An ace-to-five low: the BETTER (lower) low compares GREATER; equal lows compare equal.

    ``badness``: the five ranks from the highest down (ace = 1) packed in
    nibbles; smaller is better. ``name``: '8-6-4-2-A low'.
    """

    __slots__ = ("badness", "cards")

    def __init__(self, badness: int, cards: Sequence[Card]) -> None:
        self.badness = badness
        self.cards: tuple[Card, ...] = tuple(cards)

    @property
    def ranks(self) -> tuple[int, ...]:
        """The five ranks from the highest down, ace as 1."""
        return tuple(_ranks_of(self.badness))

    @property
    def name(self) -> str:
        return "-".join(rank_char(r) for r in self.ranks) + " low"

    @property
    def category(self) -> str:
        return "low"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowValue) and self.badness == other.badness

    def __hash__(self) -> int:
        return hash(("low", self.badness))

    def __lt__(self, other: LowValue) -> bool:
        return self.badness > other.badness

    def __le__(self, other: LowValue) -> bool:
        return self.badness >= other.badness

    def __gt__(self, other: LowValue) -> bool:
        return self.badness < other.badness

    def __ge__(self, other: LowValue) -> bool:
        return self.badness <= other.badness

    def __repr__(self) -> str:
        return f"LowValue({self.name!r}, {' '.join(map(str, self.cards))})"


def _pick(cards: Iterable[Card], ordered: Sequence[int], suit: str | None = None) -> list[Card]:
    """Cards matching the ordered ranks of a key (rank 1 = ace), in that order."""
    pool = [c for c in cards if suit is None or c.suit == suit]
    out: list[Card] = []
    for r in ordered:
        want = 14 if r == 1 else r
        for c in pool:
            if c.rank == want:
                out.append(c)
                pool.remove(c)
                break
    return out


def _check_distinct(*groups: Sequence[Card]) -> None:
    seen: set[Card] = set()
    count = 0
    for g in groups:
        seen.update(g)
        count += len(g)
    if len(seen) != count:
        raise CardError("The same card appears twice")


def best_any_key(cards: Sequence[Card]) -> tuple[int, str | None]:
    """Key of the best five of any 5..9 cards (any mix), and the flush suit if a flush plays.

    Read off rank counts, suit counts and a rank bitmask, not by trying subsets.
    """
    counts = [0] * 15
    by_suit: dict[str, list[int]] = {"c": [], "d": [], "h": [], "s": []}
    for c in cards:
        counts[c.rank] += 1
        by_suit[c.suit].append(c.rank)
    flush_key = 0
    flush_suit: str | None = None
    for suit, franks in by_suit.items():
        if len(franks) >= 5:
            fmask = 0
            for r in franks:
                fmask |= 1 << r
            if fmask & 16384:
                fmask |= 2
            top = _straight_top(fmask)
            if top:
                seq = [top, top - 1, top - 2, top - 3, 1 if top == 5 else top - 4]
                return (STRAIGHT_FLUSH << 20) | _pack(seq), suit
            franks.sort(reverse=True)
            flush_key = (FLUSH << 20) | _pack(franks)
            flush_suit = suit
            break  # at most nine cards: only one suit can hold five
    quads: list[int] = []
    trips: list[int] = []
    pairs: list[int] = []
    singles: list[int] = []
    mask = 0
    for r in range(14, 1, -1):
        n = counts[r]
        if n:
            mask |= 1 << r
            if n == 1:
                singles.append(r)
            elif n == 2:
                pairs.append(r)
            elif n == 3:
                trips.append(r)
            else:
                quads.append(r)
    if quads:
        q = quads[0]
        kick = max(quads[1:] + trips[:1] + pairs[:1] + singles[:1])
        return (QUADS << 20) | (q << 16) | (q << 12) | (q << 8) | (q << 4) | kick, None
    if trips and (len(trips) > 1 or pairs):
        t = trips[0]
        p = max(trips[1:2] + pairs[:1])
        return (FULL_HOUSE << 20) | (t << 16) | (t << 12) | (t << 8) | (p << 4) | p, None
    if flush_key:
        return flush_key, flush_suit
    if mask & 16384:
        mask |= 2
    top = _straight_top(mask)
    if top:
        return (STRAIGHT << 20) | _pack([top, top - 1, top - 2, top - 3, 1 if top == 5 else top - 4]), None
    if trips:
        t = trips[0]
        return (TRIPS << 20) | (t << 16) | (t << 12) | (t << 8) | (singles[0] << 4) | singles[1], None
    if len(pairs) >= 2:
        p1, p2 = pairs[0], pairs[1]
        kick = max(pairs[2:3] + singles[:1])
        return (TWO_PAIR << 20) | (p1 << 16) | (p1 << 12) | (p2 << 8) | (p2 << 4) | kick, None
    if pairs:
        p = pairs[0]
        return (PAIR << 20) | (p << 16) | (p << 12) | (singles[0] << 8) | (singles[1] << 4) | singles[2], None
    return _pack(singles), None


def piranha_best(hole: Sequence[Card], board: Sequence[Card]) -> HandValue:
    """The best five cards of hole + board, any mix (piranha.txt 1.2, 4.2).

    Works with any 5..9 cards in all (the hand helper calls it with the three
    face-up board cards before the drop). Raises CardError with fewer than
    five cards, more than nine, or a card given twice.
    """
    cards = list(hole) + list(board)
    if not 5 <= len(cards) <= 9:
        raise CardError("A hand needs five to nine cards to choose from")
    _check_distinct(cards)
    key, suit = best_any_key(cards)
    return HandValue(key, _pick(cards, _ranks_of(key), suit))


def _pairs(cards: Sequence[Card]) -> list[tuple[Card, Card]]:
    return list(combinations(cards, 2))


def piles_best_high(
    hole: Sequence[Card], square1: Sequence[Card], square2: Sequence[Card], row: Sequence[Card], variant: bool = False
) -> HandValue | None:
    """The best legal Piles high: exactly two hole cards, two cards of ONE square, one row card.

    piles.txt 2.3. ``variant`` (piles.txt 5.1): None unless the best is a full
    house or better. Accepts partial squares and rows (cards turned so far) and
    returns None when no legal five can be made yet.
    """
    _check_distinct(hole, square1, square2, row)
    prime = _PRIME
    hole_pairs: dict[int, tuple[Card, Card]] = {}
    for a, b in combinations(hole, 2):
        hole_pairs.setdefault(prime[a.rank] * prime[b.rank], (a, b))
    square_pairs: dict[int, tuple[Card, Card]] = {}
    for square in (square1, square2):
        for a, b in combinations(square, 2):
            square_pairs.setdefault(prime[a.rank] * prime[b.rank], (a, b))
    row_cards: dict[int, Card] = {}
    for c in row:
        row_cards.setdefault(prime[c.rank], c)
    if not hole_pairs or not square_pairs or not row_cards:
        return None
    hole_row: dict[int, tuple[Card, Card, Card]] = {}
    for hp, (a, b) in hole_pairs.items():
        for rp, c in row_cards.items():
            hole_row.setdefault(hp * rp, (a, b, c))
    table = _TABLE
    products = list(hole_row)
    best = -1
    best_sp = 0
    for sp in square_pairs:
        value = max([table[p * sp] for p in products])
        if value > best:
            best, best_sp = value, sp
    best_cards: tuple[Card, ...] = ()
    flush = _piles_flush(hole, square1, square2, row)
    if flush is not None and flush[0] > best:
        best, best_cards = flush
    else:
        hp_rp = next(p for p in products if table[p * best_sp] == best)
        best_cards = hole_row[hp_rp] + square_pairs[best_sp]
    if variant and best < _FULL_HOUSE_KEY:
        return None  # piles.txt 5.1: the variant's high must be a full house or better
    return HandValue(best, _pick(best_cards, _ranks_of(best)))


def _piles_flush(
    hole: Sequence[Card], square1: Sequence[Card], square2: Sequence[Card], row: Sequence[Card]
) -> tuple[int, tuple[Card, ...]] | None:
    """Best legal flush or straight flush, searched only in suits with 2 hole, 2 square, 1 row."""
    best: tuple[int, tuple[Card, ...]] | None = None
    for suit in ("c", "d", "h", "s"):
        hs = [c for c in hole if c.suit == suit]
        if len(hs) < 2:
            continue
        rs = [c for c in row if c.suit == suit]
        if not rs:
            continue
        sq_pairs = [p for sq in (square1, square2) for p in combinations([c for c in sq if c.suit == suit], 2)]
        if not sq_pairs:
            continue
        for a, b in combinations(hs, 2):
            for c, d in sq_pairs:
                for e in rs:
                    key = _FLUSH_TABLE[
                        _PRIME[a.rank] * _PRIME[b.rank] * _PRIME[c.rank] * _PRIME[d.rank] * _PRIME[e.rank]
                    ]
                    if best is None or key > best[0]:
                        best = (key, (a, b, c, d, e))
    return best


def _low_rank(card: Card) -> int:
    return 1 if card.rank == 14 else card.rank


def piles_best_low(
    hole: Sequence[Card], square1: Sequence[Card], square2: Sequence[Card], row: Sequence[Card], variant: bool = False
) -> LowValue | None:
    """The best legal Piles low, or None when none qualifies (or none can be made yet).

    Legal five as for the high (piles.txt 2.3). Ace-to-five, straights and
    flushes don't count (piles.txt 1.3). Default (piles.txt 4.4): five
    different ranks, all eight or lower. ``variant`` (piles.txt 5.1, docs/design.md):
    repeated ranks allowed, every card five or lower, compared from the
    highest card down (4-3-2-2-A beats 5-4-3-2-A; best A-A-A-A-2).
    """
    _check_distinct(hole, square1, square2, row)
    if variant:
        return _variant_low(hole, square1, square2, row)
    # Five different ranks: a set of five ranks is a bitmask (bit r, ace = 1), and for
    # sets of equal size comparing from the highest card down is comparing the masks.
    hole_masks: dict[int, tuple[Card, Card]] = {}
    for a, b in combinations([c for c in hole if c.rank <= 8 or c.rank == 14], 2):
        if a.rank != b.rank:
            hole_masks.setdefault((1 << _low_rank(a)) | (1 << _low_rank(b)), (a, b))
    if not hole_masks:
        return None
    square_masks: dict[int, tuple[Card, Card]] = {}
    for square in (square1, square2):
        for a, b in combinations([c for c in square if c.rank <= 8 or c.rank == 14], 2):
            if a.rank != b.rank:
                square_masks.setdefault((1 << _low_rank(a)) | (1 << _low_rank(b)), (a, b))
    row_masks: dict[int, Card] = {}
    for c in row:
        if c.rank <= 8 or c.rank == 14:
            row_masks.setdefault(1 << _low_rank(c), c)
    if not square_masks or not row_masks:
        return None
    best = 1 << 10
    found: tuple[Card, ...] = ()
    for hm, hcards in hole_masks.items():
        for sm, scards in square_masks.items():
            if hm & sm:
                continue
            hs = hm | sm
            for rm, rcard in row_masks.items():
                if not hs & rm and hs | rm < best:
                    best = hs | rm
                    found = (*hcards, *scards, rcard)
    if not found:
        return None
    ranks = [r for r in range(8, 0, -1) if best & (1 << r)]
    return LowValue(_pack(ranks), _pick(found, ranks))


def _variant_low(
    hole: Sequence[Card], square1: Sequence[Card], square2: Sequence[Card], row: Sequence[Card]
) -> LowValue | None:
    """piles.txt 5.1(a): repeated ranks allowed, every card five or lower."""

    def small(cards: Iterable[Card]) -> list[Card]:
        return [c for c in cards if c.rank <= 5 or c.rank == 14]

    hole_pairs = {tuple(sorted((_low_rank(a), _low_rank(b)))): (a, b) for a, b in combinations(small(hole), 2)}
    square_pairs = {
        tuple(sorted((_low_rank(a), _low_rank(b)))): (a, b)
        for sq in (square1, square2)
        for a, b in combinations(small(sq), 2)
    }
    row_cards = {_low_rank(c): c for c in small(row)}
    best = 1 << 24
    found: tuple[Card, ...] = ()
    for hr, hcards in hole_pairs.items():
        for sr, scards in square_pairs.items():
            for rr, rcard in row_cards.items():
                value = _pack(sorted((*hr, *sr, rr), reverse=True))
                if value < best:
                    best = value
                    found = (*hcards, *scards, rcard)
    if not found:
        return None
    return LowValue(best, _pick(found, _ranks_of(best)))
