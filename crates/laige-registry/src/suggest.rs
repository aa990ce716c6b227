//! "Did you mean" suggestions for misspelt system names.

/// Names longer than this are compared only for exact, case-insensitive equality.
const MAX_COMPARED: usize = 64;

/// The candidate closest to `name` (a likely typo), if its edit distance is small for the name's length.
/// Ties go to the earlier candidate, so the answer is deterministic.
pub fn closest(name: &str, candidates: impl Iterator<Item = &'static str>) -> Option<&'static str> {
    let limit = (name.len() / 3).max(1);
    let mut best: Option<(usize, &'static str)> = None;
    for candidate in candidates {
        let distance = if candidate.eq_ignore_ascii_case(name) {
            0
        } else {
            match edit_distance(name.as_bytes(), candidate.as_bytes()) {
                Some(d) => d,
                None => continue,
            }
        };
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, it)| it)
}

/// Edit distance over bytes (Levenshtein plus adjacent swaps), on the stack; `None` when either side is too long.
pub(crate) fn edit_distance(a: &[u8], b: &[u8]) -> Option<usize> {
    if a.len() > MAX_COMPARED || b.len() > MAX_COMPARED {
        return None;
    }
    let mut before = [0usize; MAX_COMPARED + 1];
    let mut prev = [0usize; MAX_COMPARED + 1];
    let mut cur = [0usize; MAX_COMPARED + 1];
    for (j, slot) in prev.iter_mut().enumerate().take(b.len() + 1) {
        *slot = j;
    }
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let substitute = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = substitute.min(prev[j] + 1).min(cur[j - 1] + 1);
            // A swap of two neighbours ("Gmae") is one typo, not two.
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits() {
        assert_eq!(edit_distance(b"Movement", b"Movement"), Some(0));
        assert_eq!(edit_distance(b"Movment", b"Movement"), Some(1));
        assert_eq!(edit_distance(b"", b"abc"), Some(3));
        assert_eq!(edit_distance(b"kitten", b"sitting"), Some(3));
        assert_eq!(edit_distance(b"Gmae", b"Game"), Some(1));
        assert_eq!(edit_distance(b"ab", b"ba"), Some(1));
        assert_eq!(edit_distance(&[b'a'; 65], b"a"), None);
    }

    #[test]
    fn closest_prefers_smallest_then_earliest() {
        let names = ["Physics", "Movement", "Moverment"];
        assert_eq!(closest("Movment", names.into_iter()), Some("Movement"));
        assert_eq!(closest("movement", names.into_iter()), Some("Movement"));
        assert_eq!(closest("Rendering", names.into_iter()), None);
    }
}
