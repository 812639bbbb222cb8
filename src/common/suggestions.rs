//! "Did you mean …?": the closest name to a misspelt one, as CPython 3.13 picks it.
//!
//! In: the misspelt name and the candidate names (a scope's names for NameError, an
//! object's attributes for AttributeError, a function's parameters for a bad keyword).
//! Out: the suggestion, if one is close enough. Mirrors `Python/suggestions.c`
//! (`_Py_CalculateSuggestions`, a Levenshtein distance where a case flip costs half a
//! move). Depends on nothing but `std`.

/// Cost of inserting, deleting or replacing a character.
const MOVE_COST: usize = 2;
/// Cost of changing only a character's case.
const CASE_COST: usize = 1;
/// Longer (trimmed) names are never compared.
const MAX_STRING_SIZE: usize = 40;
/// Bigger candidate lists are not searched.
const MAX_CANDIDATE_ITEMS: usize = 750;

/// The candidate closest to `name` (no more than about a third of the characters changed),
/// the first one on ties; never `name` itself.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    if candidates.len() > MAX_CANDIDATE_ITEMS {
        return None;
    }
    let mut best: Option<(&str, usize)> = None;
    for candidate in candidates {
        if candidate == name {
            continue;
        }
        let mut max_distance = (name.len() + candidate.len() + 3) * MOVE_COST / 6;
        if let Some((_, best_distance)) = best {
            max_distance = max_distance.min(best_distance.saturating_sub(1));
        }
        let distance = levenshtein(name.as_bytes(), candidate.as_bytes(), max_distance);
        if distance > max_distance {
            continue;
        }
        if best.is_none_or(|(_, best_distance)| distance < best_distance) {
            best = Some((candidate, distance));
        }
    }
    best.map(|(candidate, _)| candidate)
}

/// `substitution_cost`: 0 for equal bytes, a case flip is cheap, anything else a move.
fn substitution_cost(a: u8, b: u8) -> usize {
    if a & 31 != b & 31 {
        return MOVE_COST;
    }
    if a == b {
        return 0;
    }
    if a.eq_ignore_ascii_case(&b) {
        CASE_COST
    } else {
        MOVE_COST
    }
}

/// `levenshtein_distance` over UTF-8 bytes, giving up (returning more than `max_cost`) as
/// soon as every path costs more.
fn levenshtein<'a>(mut a: &'a [u8], mut b: &'a [u8], max_cost: usize) -> usize {
    while let (Some(x), Some(y)) = (a.first(), b.first()) {
        if x != y {
            break;
        }
        a = &a[1..];
        b = &b[1..];
    }
    while let (Some(x), Some(y)) = (a.last(), b.last()) {
        if x != y {
            break;
        }
        a = &a[..a.len() - 1];
        b = &b[..b.len() - 1];
    }
    if a.is_empty() || b.is_empty() {
        return (a.len() + b.len()) * MOVE_COST;
    }
    if a.len() > MAX_STRING_SIZE || b.len() > MAX_STRING_SIZE {
        return max_cost + 1;
    }
    if b.len() < a.len() {
        std::mem::swap(&mut a, &mut b);
    }
    if (b.len() - a.len()) * MOVE_COST > max_cost {
        return max_cost + 1;
    }
    let mut row: Vec<usize> = (1..=a.len()).map(|i| i * MOVE_COST).collect();
    let mut result = 0;
    for (b_index, &code) in b.iter().enumerate() {
        let mut distance = b_index * MOVE_COST;
        result = distance;
        let mut minimum = usize::MAX;
        for (index, &byte) in a.iter().enumerate() {
            let substitute = distance + substitution_cost(code, byte);
            distance = row[index];
            let insert_delete = result.min(distance) + MOVE_COST;
            result = insert_delete.min(substitute);
            row[index] = result;
            minimum = minimum.min(result);
        }
        if minimum > max_cost {
            return max_cost + 1;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    // Suggestions python3.13 prints: NameError for `prnt`, `Print`, `lenght`, `x1`;
    // TypeError for "a".split(maxsplitt=1), "a".split(sep2=1); nothing for `zzz`.

    #[test]
    fn picks_cpythons_suggestion() {
        let builtins = ["print", "len", "list", "range", "sorted", "sum", "str"];
        assert_eq!(suggest("prnt", builtins), Some("print"));
        assert_eq!(suggest("Print", builtins), Some("print"));
        assert_eq!(suggest("lenght", ["length", "len"]), Some("length"));
        assert_eq!(suggest("zzz", builtins), None);
        assert_eq!(suggest("maxsplitt", ["sep", "maxsplit"]), Some("maxsplit"));
        assert_eq!(suggest("sep2", ["sep", "maxsplit"]), Some("sep"));
        assert_eq!(suggest("print", builtins), None);
    }
}
