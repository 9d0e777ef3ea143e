//! Grading one measured value against a published claim: sign and size, with the runs'
//! 95 % interval where there are several runs.
//!
//! A claim's *region* is the set of values it allows: its test (`at_most`, `at_least`,
//! `between`, widened by the tolerance) intersected with its direction (a claimed increase
//! allows only values above 0, a claimed decrease only values below 0). A value v with
//! 95 % half-width h (0 for a single run):
//!
//! - **holds** if v is in the region and, for a claimed direction, the interval
//!   [v − h, v + h] lies on that side of 0 (the sign is established); for a claim without
//!   a direction (a level, or a band such as "within 5 %"), if the whole interval lies in
//!   the region (a band is established only when the runs exclude leaving it, on either
//!   side alike);
//! - **inconclusive** if it does not hold but the interval reaches the region (the runs
//!   cannot reject the claim), or v is in the region but the interval crosses 0 (a claimed
//!   direction) or leaves the region (no direction);
//! - **direction only** if the interval lies outside the region, on the claimed side of 0
//!   (an effect of the published sign, not of the published size);
//! - **does not hold** otherwise: the interval excludes the claim, and either the claim
//!   states no direction or the sign is not the published one.
//!
//! A value whose interval is unknown (h = ∞ or not a number: one run of a noisy
//! measurement) is **inconclusive**, whatever the value.
//!
//! An ordering link `a < b` is a claim of direction on the difference b − a (its region:
//! above 0); `a ≤ b` allows b − a ≥ −tolerance · b.
//!
//! An **ordering** `a < b < c` is graded link by link, and its verdict is the links'
//! [`combine`]d: one reversed link the claim depends on (its interval excludes the stated
//! relation) makes the whole order **does not hold**, however well its ends are ordered;
//! an ordering has no size, so it is never *direction only*.
//!
//! Over **several groups** (a claim's `per` cases, an order's links) the verdicts combine
//! by [`combine`]'s precedence — no data, then does not hold, then direction only, then
//! inconclusive, then holds: one group whose interval excludes the claim outweighs any
//! number that cannot tell, so an inconclusive group never hides one that clearly
//! misses the published size; and [`tally`] says how many groups gave each verdict.
//!
//! A **difference in points** (`difference = [a, b]`: a − b in the metric's own unit, e.g.
//! "5 percentage points fewer deadlines met") is graded like a change, on a − b.
//!
//! A **stated size** ("up to 25 % cheaper", "18.7 % faster on average": a claim's `size`)
//! is a two-sided band, [`size_band`]: the published value x within a factor of
//! [`SIZE_FACTOR`] either way, so an effect 2× the published one is *direction only*, as
//! is one a third of it — whichever way the encoding is written. A bound the paper states
//! as a bound ("at least 30 % cheaper", "below +50 %") stays one-sided (`at_most`,
//! `at_least`).

use serde::Deserialize;

/// A verdict, from best to worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// The published claim holds on frugal's runs.
    Holds,
    /// The effect has the published direction but not its size (or not every link of an
    /// ordering holds).
    DirectionOnly,
    /// The runs' intervals cannot tell: the claim is neither established nor excluded.
    Inconclusive,
    /// The runs contradict the claim.
    DoesNotHold,
    /// No run produced the metric (a failed run or a filter that matches nothing).
    NoData,
}

impl Verdict {
    /// Every verdict, in the report's order (best first).
    pub const ALL: [Verdict; 5] = [
        Verdict::Holds,
        Verdict::DirectionOnly,
        Verdict::Inconclusive,
        Verdict::DoesNotHold,
        Verdict::NoData,
    ];

    /// The report's wording.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DirectionOnly => "direction only",
            Verdict::Inconclusive => "inconclusive",
            Verdict::DoesNotHold => "does not hold",
            Verdict::NoData => "no data",
        }
    }
}

/// The sign a claim states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// An increase: the value must be above 0.
    Higher,
    /// A decrease: the value must be below 0.
    Lower,
    /// No sign: only the test counts (a level, or "within x %").
    Either,
}

/// A measured value: the point estimate and the half-width of its 95 % interval (0: a
/// single run, or runs that agree exactly).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// The point estimate.
    pub value: f64,
    /// Half-width of the 95 % interval, ≥ 0; ∞ when the spread is unknown (one run of a
    /// noisy measurement).
    pub half: f64,
}

/// The values a claim allows, [lo, hi] (infinite ends allowed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Region {
    /// Lowest allowed value.
    pub lo: f64,
    /// Highest allowed value.
    pub hi: f64,
}

impl Region {
    /// A test's region within `direction`: a claimed increase excludes 0 and below.
    pub fn new(lo: f64, hi: f64, direction: Direction) -> Region {
        match direction {
            Direction::Higher => Region {
                lo: lo.max(f64::MIN_POSITIVE),
                hi,
            },
            Direction::Lower => Region {
                lo,
                hi: hi.min(-f64::MIN_POSITIVE),
            },
            Direction::Either => Region { lo, hi },
        }
    }

    fn contains(&self, v: f64) -> bool {
        self.lo <= v && v <= self.hi
    }

    fn meets(&self, lo: f64, hi: f64) -> bool {
        lo <= self.hi && hi >= self.lo
    }
}

/// How far a measured effect may lie from a stated size x and still reproduce it: by a
/// factor of 1.5 either way, the band [x / 1.5, 1.5 · x] (for x = −25 %: −37.5 % to
/// −16.7 %). Symmetric in ratio, so an overshoot and an undershoot of the same factor are
/// graded alike; wide enough for the papers' own spread between their figures and text
/// (paper 000 states its 25 % over cases whose savings it plots from 20 % to 30 %).
pub const SIZE_FACTOR: f64 = 1.5;

/// The band a stated size `x` (≠ 0, in the value's unit) allows: `[x / SIZE_FACTOR,
/// x · SIZE_FACTOR]`, ordered low to high (both ends have x's sign).
pub fn size_band(x: f64) -> (f64, f64) {
    let (a, b) = (x / SIZE_FACTOR, x * SIZE_FACTOR);
    (a.min(b), a.max(b))
}

/// Several verdicts as one (module doc): `NoData` if any group has no data, else the
/// first of does not hold, direction only, inconclusive that any group gives, else
/// holds (also for no verdicts at all).
pub fn combine(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
    let rank = |v: Verdict| match v {
        Verdict::Holds => 0,
        Verdict::Inconclusive => 1,
        Verdict::DirectionOnly => 2,
        Verdict::DoesNotHold => 3,
        Verdict::NoData => 4,
    };
    verdicts
        .into_iter()
        .max_by_key(|v| rank(*v))
        .unwrap_or(Verdict::Holds)
}

/// How many of `verdicts` gave each verdict, in report order and omitting zeros:
/// `"4 cases: 1 holds, 2 direction only, 1 does not hold"`.
pub fn tally(verdicts: &[Verdict]) -> String {
    let parts: Vec<String> = Verdict::ALL
        .iter()
        .filter_map(|&v| {
            let n = verdicts.iter().filter(|x| **x == v).count();
            let word = match (v, n) {
                (Verdict::Holds, 1) => "holds",
                (Verdict::Holds, _) => "hold",
                (Verdict::DoesNotHold, 1) => "does not hold",
                (Verdict::DoesNotHold, _) => "do not hold",
                (v, _) => v.text(),
            };
            (n > 0).then(|| format!("{n} {word}"))
        })
        .collect();
    format!("{} cases: {}", verdicts.len(), parts.join(", "))
}

/// The verdict on `m` for a claim allowing `region` with `direction` (module doc).
pub fn grade(m: Measured, region: Region, direction: Direction) -> Verdict {
    if !m.half.is_finite() {
        return Verdict::Inconclusive;
    }
    let (lo, hi) = (m.value - m.half, m.value + m.half);
    let on_side = match direction {
        Direction::Higher => lo > 0.0,
        Direction::Lower => hi < 0.0,
        Direction::Either => region.contains(lo) && region.contains(hi),
    };
    if region.contains(m.value) {
        return if on_side {
            Verdict::Holds
        } else {
            Verdict::Inconclusive
        };
    }
    if region.meets(lo, hi) {
        Verdict::Inconclusive
    } else if direction != Direction::Either && on_side {
        Verdict::DirectionOnly
    } else {
        Verdict::DoesNotHold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(value: f64, half: f64) -> Measured {
        Measured { value, half }
    }

    /// A band without a direction ("within 5 %") holds only when the whole interval is
    /// in it, on either side alike: +2.6 ± 26.8 (the live loaded hour's three runs) and
    /// −2.6 ± 26.8 are inconclusive, ± 1.0 holds; outside it, an interval that reaches it
    /// is inconclusive and one that does not is a failure. A level ("at most 20") too.
    #[test]
    fn a_band_holds_only_when_its_interval_stays_inside_it() {
        let band = Region::new(-5.0, 5.0, Direction::Either);
        let g = |v, h| grade(m(v, h), band, Direction::Either);
        assert_eq!(g(2.6, 26.8), Verdict::Inconclusive);
        assert_eq!(g(-2.6, 26.8), Verdict::Inconclusive);
        assert_eq!(g(2.6, 1.0), Verdict::Holds);
        assert_eq!(g(-2.6, 1.0), Verdict::Holds);
        assert_eq!(g(2.6, 0.0), Verdict::Holds);
        assert_eq!(g(8.0, 4.0), Verdict::Inconclusive);
        assert_eq!(g(-8.0, 4.0), Verdict::Inconclusive);
        assert_eq!(g(8.0, 1.0), Verdict::DoesNotHold);
        let level = Region::new(f64::NEG_INFINITY, 20.0, Direction::Either);
        grades(
            level,
            Direction::Either,
            &[
                (15.0, 3.0, Verdict::Holds),
                (15.0, 6.0, Verdict::Inconclusive),
            ],
        );
    }

    /// "Up to 25 % cheaper" is the band [−37.5, −16.7]: −49.7 % (twice the size) and
    /// −8 % (a third) are the published sign at another size; −30 % holds; an interval
    /// reaching the band cannot be rejected.
    #[test]
    fn a_stated_size_is_a_band_on_both_sides() {
        let (lo, hi) = size_band(-25.0);
        assert_eq!((lo, hi), (-37.5, -25.0 / 1.5));
        let band = Region::new(lo, hi, Direction::Lower);
        let g = |v, h| grade(m(v, h), band, Direction::Lower);
        assert_eq!(g(-30.0, 0.0), Verdict::Holds);
        assert_eq!(g(-49.7, 0.0), Verdict::DirectionOnly);
        assert_eq!(g(-8.0, 0.0), Verdict::DirectionOnly);
        assert_eq!(g(-49.7, 15.0), Verdict::Inconclusive);
        assert_eq!(g(3.0, 1.0), Verdict::DoesNotHold);
        assert_eq!(size_band(6.0), (4.0, 9.0));
    }

    /// One group that excludes the published size outweighs any number that cannot tell;
    /// one that excludes the claim outweighs both; a missing group outweighs everything.
    #[test]
    fn groups_combine_by_the_firmest_failure_and_are_counted() {
        use Verdict::*;
        assert_eq!(combine([Holds, Holds]), Holds);
        assert_eq!(combine([Holds, Inconclusive]), Inconclusive);
        assert_eq!(combine([Inconclusive, DirectionOnly, Holds]), DirectionOnly);
        assert_eq!(
            combine([DirectionOnly, DoesNotHold, Inconclusive]),
            DoesNotHold
        );
        assert_eq!(combine([DoesNotHold, NoData]), NoData);
        assert_eq!(combine([]), Holds);
        assert_eq!(
            tally(&[DoesNotHold, Holds, DirectionOnly, DirectionOnly]),
            "4 cases: 1 holds, 2 direction only, 1 does not hold"
        );
        assert_eq!(
            tally(&[Holds, Holds, DoesNotHold, DoesNotHold, Inconclusive]),
            "5 cases: 2 hold, 1 inconclusive, 2 do not hold"
        );
    }

    /// Asserts the verdict of each (value, half-width) in `region`, claimed `dir`.
    fn grades(region: Region, dir: Direction, cases: &[(f64, f64, Verdict)]) {
        for &(value, half, want) in cases {
            assert_eq!(
                grade(m(value, half), region, dir),
                want,
                "{value} ± {half} in {region:?}"
            );
        }
    }

    #[test]
    fn the_opposite_sign_never_holds() {
        use Verdict::*;
        // Paper 002: "about 14 % more than AEP" (at_most = 14, an increase), measured
        // −13.5 % — the old upper-bound-only test passed it. A wide interval that crosses
        // 0 cannot tell the sign.
        let up_to_14 = Region::new(f64::NEG_INFINITY, 14.0, Direction::Higher);
        grades(
            up_to_14,
            Direction::Higher,
            &[
                (-13.5, 0.0, DoesNotHold),
                (-12.8, 3.0, DoesNotHold),
                (11.3, 0.0, Holds),
                (8.7, 12.0, Inconclusive),
            ],
        );
        // A claimed decrease measured as an increase.
        let cut = Region::new(-30.0, -25.0, Direction::Lower);
        grades(cut, Direction::Lower, &[(4.0, 1.0, DoesNotHold)]);
    }

    #[test]
    fn a_tie_inside_the_intervals_is_inconclusive() {
        use Verdict::*;
        // "β = 0.75 is cheaper than β = 1": the difference b − a = −0.034 ± 0.12; the same
        // point with no interval (single runs) does not hold; a positive point whose
        // interval crosses 0 has no established sign.
        let above_0 = Region::new(0.0, f64::INFINITY, Direction::Higher);
        grades(
            above_0,
            Direction::Higher,
            &[
                (-0.034, 0.12, Inconclusive),
                (-0.034, 0.0, DoesNotHold),
                (0.05, 0.12, Inconclusive),
                (0.05, 0.01, Holds),
            ],
        );
    }

    #[test]
    fn just_inside_and_just_outside_the_published_range() {
        use Verdict::*;
        // Just outside, but the interval reaches the range: the runs cannot reject it;
        // outside by more than the interval: the size is rejected, the sign stands.
        let cut = Region::new(-30.0, -25.0, Direction::Lower);
        grades(
            cut,
            Direction::Lower,
            &[
                (-25.0, 0.0, Holds),
                (-30.0, 0.0, Holds),
                (-24.99, 0.0, DirectionOnly),
                (-30.01, 0.0, DirectionOnly),
                (-24.0, 1.5, Inconclusive),
                (-20.0, 1.5, DirectionOnly),
            ],
        );
        // A claim without a direction ("within ±5 %") fails outside its range.
        let near = Region::new(-5.0, 5.0, Direction::Either);
        grades(
            near,
            Direction::Either,
            &[
                (5.0, 0.0, Holds),
                (7.0, 0.5, DoesNotHold),
                (7.0, 2.5, Inconclusive),
            ],
        );
    }
}
