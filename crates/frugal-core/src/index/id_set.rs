//! A set of VM ids as a two-level bitset.

use crate::cluster::VmId;

/// A set of VM ids below a fixed bound: one bit per id, and a summary bit per word that
/// is set when the word is non-zero. Insert and remove are O(1) without allocation; the
/// next id at or after a given one costs O(1) plus a scan of the summary (one word per
/// 4,096 ids). Sets that empty are kept by the index for reuse, so a steady run does not
/// allocate.
#[derive(Clone, Debug, Default)]
pub(crate) struct IdSet {
    words: Vec<u64>,
    summary: Vec<u64>,
    len: usize,
}

impl IdSet {
    /// An empty set for ids below `bound`.
    pub fn new(bound: usize) -> Self {
        let words = bound.div_ceil(64);
        IdSet {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            len: 0,
        }
    }

    /// Number of ids in the set.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Adds `id` (not already present).
    #[inline]
    pub fn insert(&mut self, id: VmId) {
        let (w, b) = (id as usize / 64, id % 64);
        debug_assert_eq!(self.words[w] & (1 << b), 0);
        self.words[w] |= 1 << b;
        self.summary[w / 64] |= 1 << (w % 64);
        self.len += 1;
    }

    /// Removes `id` (present).
    #[inline]
    pub fn remove(&mut self, id: VmId) {
        let (w, b) = (id as usize / 64, id % 64);
        debug_assert_ne!(self.words[w] & (1 << b), 0);
        self.words[w] &= !(1 << b);
        if self.words[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
        self.len -= 1;
    }

    /// The smallest id ≥ `from`, if any.
    #[inline]
    pub fn next_from(&self, from: usize) -> Option<VmId> {
        let w = from / 64;
        if w >= self.words.len() {
            return None;
        }
        let here = self.words[w] & (u64::MAX << (from % 64));
        if here != 0 {
            return Some((w * 64) as VmId + here.trailing_zeros());
        }
        // The next non-zero word after `w`, through the summary.
        let w = w + 1;
        let mut s = w / 64;
        if s >= self.summary.len() {
            return None;
        }
        let mut bits = self.summary[s] & (u64::MAX.checked_shl((w % 64) as u32).unwrap_or(0));
        loop {
            if bits != 0 {
                let word = s * 64 + bits.trailing_zeros() as usize;
                return Some((word * 64) as VmId + self.words[word].trailing_zeros());
            }
            s += 1;
            if s >= self.summary.len() {
                return None;
            }
            bits = self.summary[s];
        }
    }

    /// The ids ≥ `from`, ascending.
    pub fn iter_from(&self, from: usize) -> impl Iterator<Item = VmId> + '_ {
        let mut next = self.next_from(from);
        std::iter::from_fn(move || {
            let id = next?;
            next = self.next_from(id as usize + 1);
            Some(id)
        })
    }

    /// The ids, ascending.
    pub fn iter(&self) -> impl Iterator<Item = VmId> + '_ {
        self.iter_from(0)
    }

    /// The smallest id.
    #[inline]
    pub fn first(&self) -> Option<VmId> {
        self.next_from(0)
    }

    /// The largest id < `below`, if any: O(1) plus a scan of the summary, as
    /// [`IdSet::next_from`].
    pub fn prev_before(&self, below: usize) -> Option<VmId> {
        let below = below.min(self.words.len() * 64);
        if below == 0 {
            return None;
        }
        let last = below - 1;
        let w = last / 64;
        let here = self.words[w] & (u64::MAX >> (63 - last % 64));
        if here != 0 {
            return Some((w * 64 + 63 - here.leading_zeros() as usize) as VmId);
        }
        // The previous non-zero word before `w`, through the summary.
        if w == 0 {
            return None;
        }
        let w = w - 1;
        let mut s = w / 64;
        let mut bits = self.summary[s] & (u64::MAX >> (63 - w % 64));
        loop {
            if bits != 0 {
                let word = s * 64 + 63 - bits.leading_zeros() as usize;
                let top = 63 - self.words[word].leading_zeros() as usize;
                return Some((word * 64 + top) as VmId);
            }
            if s == 0 {
                return None;
            }
            s -= 1;
            bits = self.summary[s];
        }
    }

    /// The ids, descending.
    pub fn iter_rev(&self) -> impl Iterator<Item = VmId> + '_ {
        let mut next = self.prev_before(usize::MAX);
        std::iter::from_fn(move || {
            let id = next?;
            next = self.prev_before(id as usize);
            Some(id)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::IdSet;
    use std::collections::BTreeSet;

    /// Random inserts and removes agree with a `BTreeSet` on every query, across word
    /// and summary-word boundaries.
    #[test]
    fn agrees_with_an_ordered_set() {
        let bound = 9_000;
        let (mut a, mut b) = (IdSet::new(bound), BTreeSet::new());
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let id = (x % bound as u64) as u32;
            if b.insert(id) {
                a.insert(id);
            } else {
                b.remove(&id);
                a.remove(id);
            }
            let from = ((x >> 20) % (bound as u64 + 10)) as usize;
            assert_eq!(a.next_from(from), b.range(from as u32..).next().copied());
            assert_eq!(
                a.prev_before(from),
                b.range(..from.min(u32::MAX as usize) as u32)
                    .next_back()
                    .copied()
            );
            assert_eq!(a.len(), b.len());
        }
        assert!(a.iter().eq(b.iter().copied()));
        assert!(a.iter_rev().eq(b.iter().rev().copied()));
        // A sparse set: one id per summary word apart, and the ends.
        let mut sparse = IdSet::new(bound);
        for id in [0, 4_095, 4_096, 8_999] {
            sparse.insert(id);
        }
        assert_eq!(
            sparse.iter_rev().collect::<Vec<_>>(),
            [8_999, 4_096, 4_095, 0]
        );
        assert_eq!(sparse.prev_before(0), None);
        assert_eq!(IdSet::new(bound).prev_before(bound), None);
    }
}
