//! Java's `Arrays.sort(Object[], Comparator)` (OpenJDK's `java.util.TimSort`), step for step.
//!
//! Flink's `ArraySortFunction` sorts with a comparator that never answers "equal" (`a > b ? 1 :
//! -1`), so which of two equal-comparing elements comes first (`-0.0` and `0.0`, NaN against
//! anything) is decided by the exact sequence of comparisons TimSort makes. A stable Rust sort
//! gives a different order; this port gives Java's. The comparator returns Java's `int` sign.

/// Runs shorter than this are sorted by binary insertion alone.
const MIN_MERGE: usize = 32;
/// The initial galloping threshold.
const MIN_GALLOP: usize = 7;

/// Why the sort could not finish: Java throws for a comparator whose answers contradict each
/// other in a way the merge notices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContractViolation;

/// Sorts `a` as `java.util.Arrays.sort(a, c)` does.
pub fn java_sort<T: Copy>(
    a: &mut [T],
    c: &mut impl FnMut(T, T) -> i32,
) -> Result<(), ContractViolation> {
    let hi = a.len();
    let mut lo = 0;
    let mut remaining = hi;
    if remaining < 2 {
        return Ok(());
    }
    if remaining < MIN_MERGE {
        let run = count_run_and_make_ascending(a, lo, hi, c);
        binary_sort(a, lo, hi, lo + run, c);
        return Ok(());
    }
    let mut ts = TimSort {
        min_gallop: MIN_GALLOP,
        tmp: Vec::new(),
        runs: Vec::new(),
    };
    let min_run = min_run_length(remaining);
    loop {
        let mut run = count_run_and_make_ascending(a, lo, hi, c);
        if run < min_run {
            let force = remaining.min(min_run);
            binary_sort(a, lo, lo + force, lo + run, c);
            run = force;
        }
        ts.runs.push((lo, run));
        ts.merge_collapse(a, c)?;
        lo += run;
        remaining -= run;
        if remaining == 0 {
            break;
        }
    }
    ts.merge_force_collapse(a, c)
}

fn min_run_length(mut n: usize) -> usize {
    let mut r = 0;
    while n >= MIN_MERGE {
        r |= n & 1;
        n >>= 1;
    }
    n + r
}

fn count_run_and_make_ascending<T: Copy>(
    a: &mut [T],
    lo: usize,
    hi: usize,
    c: &mut impl FnMut(T, T) -> i32,
) -> usize {
    let mut run_hi = lo + 1;
    if run_hi == hi {
        return 1;
    }
    let first = c(a[run_hi], a[lo]);
    run_hi += 1;
    if first < 0 {
        while run_hi < hi && c(a[run_hi], a[run_hi - 1]) < 0 {
            run_hi += 1;
        }
        a[lo..run_hi].reverse();
    } else {
        while run_hi < hi && c(a[run_hi], a[run_hi - 1]) >= 0 {
            run_hi += 1;
        }
    }
    run_hi - lo
}

fn binary_sort<T: Copy>(
    a: &mut [T],
    lo: usize,
    hi: usize,
    mut start: usize,
    c: &mut impl FnMut(T, T) -> i32,
) {
    if start == lo {
        start += 1;
    }
    while start < hi {
        let pivot = a[start];
        let (mut left, mut right) = (lo, start);
        while left < right {
            let mid = (left + right) >> 1;
            if c(pivot, a[mid]) < 0 {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        a.copy_within(left..start, left + 1);
        a[left] = pivot;
        start += 1;
    }
}

/// `gallopLeft`: the position in `run[base..base + len]` to insert `key` before equal ones.
fn gallop_left<T: Copy>(
    key: T,
    run: &[T],
    base: usize,
    len: usize,
    hint: usize,
    c: &mut impl FnMut(T, T) -> i32,
) -> usize {
    let at = |i: isize| base + i as usize;
    let (hint, len) = (hint as isize, len as isize);
    let (mut last_ofs, mut ofs): (isize, isize) = (0, 1);
    if c(key, run[at(hint)]) > 0 {
        let max_ofs = len - hint;
        while ofs < max_ofs && c(key, run[at(hint + ofs)]) > 0 {
            last_ofs = ofs;
            ofs = (ofs << 1) + 1;
        }
        ofs = ofs.min(max_ofs);
        last_ofs += hint;
        ofs += hint;
    } else {
        let max_ofs = hint + 1;
        while ofs < max_ofs && c(key, run[at(hint - ofs)]) <= 0 {
            last_ofs = ofs;
            ofs = (ofs << 1) + 1;
        }
        ofs = ofs.min(max_ofs);
        let tmp = last_ofs;
        last_ofs = hint - ofs;
        ofs = hint - tmp;
    }
    last_ofs += 1;
    while last_ofs < ofs {
        let m = last_ofs + ((ofs - last_ofs) >> 1);
        if c(key, run[at(m)]) > 0 {
            last_ofs = m + 1;
        } else {
            ofs = m;
        }
    }
    ofs as usize
}

/// `gallopRight`: the position in `run[base..base + len]` to insert `key` after equal ones.
fn gallop_right<T: Copy>(
    key: T,
    run: &[T],
    base: usize,
    len: usize,
    hint: usize,
    c: &mut impl FnMut(T, T) -> i32,
) -> usize {
    let at = |i: isize| base + i as usize;
    let (hint, len) = (hint as isize, len as isize);
    let (mut last_ofs, mut ofs): (isize, isize) = (0, 1);
    if c(key, run[at(hint)]) < 0 {
        let max_ofs = hint + 1;
        while ofs < max_ofs && c(key, run[at(hint - ofs)]) < 0 {
            last_ofs = ofs;
            ofs = (ofs << 1) + 1;
        }
        ofs = ofs.min(max_ofs);
        let tmp = last_ofs;
        last_ofs = hint - ofs;
        ofs = hint - tmp;
    } else {
        let max_ofs = len - hint;
        while ofs < max_ofs && c(key, run[at(hint + ofs)]) >= 0 {
            last_ofs = ofs;
            ofs = (ofs << 1) + 1;
        }
        ofs = ofs.min(max_ofs);
        last_ofs += hint;
        ofs += hint;
    }
    last_ofs += 1;
    while last_ofs < ofs {
        let m = last_ofs + ((ofs - last_ofs) >> 1);
        if c(key, run[at(m)]) < 0 {
            ofs = m;
        } else {
            last_ofs = m + 1;
        }
    }
    ofs as usize
}

struct TimSort<T> {
    min_gallop: usize,
    tmp: Vec<T>,
    /// Pending runs: (base, length).
    runs: Vec<(usize, usize)>,
}

impl<T: Copy> TimSort<T> {
    fn len(&self, i: usize) -> usize {
        self.runs[i].1
    }

    fn merge_collapse(
        &mut self,
        a: &mut [T],
        c: &mut impl FnMut(T, T) -> i32,
    ) -> Result<(), ContractViolation> {
        while self.runs.len() > 1 {
            let mut n = self.runs.len() - 2;
            if (n > 0 && self.len(n - 1) <= self.len(n) + self.len(n + 1))
                || (n > 1 && self.len(n - 2) <= self.len(n) + self.len(n - 1))
            {
                if self.len(n - 1) < self.len(n + 1) {
                    n -= 1;
                }
            } else if self.len(n) > self.len(n + 1) {
                break;
            }
            self.merge_at(a, n, c)?;
        }
        Ok(())
    }

    fn merge_force_collapse(
        &mut self,
        a: &mut [T],
        c: &mut impl FnMut(T, T) -> i32,
    ) -> Result<(), ContractViolation> {
        while self.runs.len() > 1 {
            let mut n = self.runs.len() - 2;
            if n > 0 && self.len(n - 1) < self.len(n + 1) {
                n -= 1;
            }
            self.merge_at(a, n, c)?;
        }
        Ok(())
    }

    fn merge_at(
        &mut self,
        a: &mut [T],
        i: usize,
        c: &mut impl FnMut(T, T) -> i32,
    ) -> Result<(), ContractViolation> {
        let (mut base1, mut len1) = self.runs[i];
        let (base2, len2) = self.runs[i + 1];
        self.runs[i].1 = len1 + len2;
        self.runs.remove(i + 1);
        let k = gallop_right(a[base2], a, base1, len1, 0, c);
        base1 += k;
        len1 -= k;
        if len1 == 0 {
            return Ok(());
        }
        let len2 = gallop_left(a[base1 + len1 - 1], a, base2, len2, len2 - 1, c);
        if len2 == 0 {
            return Ok(());
        }
        if len1 <= len2 {
            self.merge_lo(a, base1, len1, base2, len2, c)
        } else {
            self.merge_hi(a, base1, len1, base2, len2, c)
        }
    }

    fn merge_lo(
        &mut self,
        a: &mut [T],
        base1: usize,
        mut len1: usize,
        base2: usize,
        mut len2: usize,
        c: &mut impl FnMut(T, T) -> i32,
    ) -> Result<(), ContractViolation> {
        self.tmp.clear();
        self.tmp.extend_from_slice(&a[base1..base1 + len1]);
        let tmp = &self.tmp;
        let (mut cursor1, mut cursor2, mut dest) = (0usize, base2, base1);
        a[dest] = a[cursor2];
        dest += 1;
        cursor2 += 1;
        len2 -= 1;
        if len2 == 0 {
            a[dest..dest + len1].copy_from_slice(&tmp[cursor1..cursor1 + len1]);
            return Ok(());
        }
        if len1 == 1 {
            a.copy_within(cursor2..cursor2 + len2, dest);
            a[dest + len2] = tmp[cursor1];
            return Ok(());
        }
        let mut min_gallop = self.min_gallop as isize;
        'outer: loop {
            let (mut count1, mut count2) = (0usize, 0usize);
            loop {
                if c(a[cursor2], tmp[cursor1]) < 0 {
                    a[dest] = a[cursor2];
                    dest += 1;
                    cursor2 += 1;
                    count2 += 1;
                    count1 = 0;
                    len2 -= 1;
                    if len2 == 0 {
                        break 'outer;
                    }
                } else {
                    a[dest] = tmp[cursor1];
                    dest += 1;
                    cursor1 += 1;
                    count1 += 1;
                    count2 = 0;
                    len1 -= 1;
                    if len1 == 1 {
                        break 'outer;
                    }
                }
                if ((count1 | count2) as isize) >= min_gallop {
                    break;
                }
            }
            loop {
                count1 = gallop_right(a[cursor2], tmp, cursor1, len1, 0, c);
                if count1 != 0 {
                    a[dest..dest + count1].copy_from_slice(&tmp[cursor1..cursor1 + count1]);
                    dest += count1;
                    cursor1 += count1;
                    len1 -= count1;
                    if len1 <= 1 {
                        break 'outer;
                    }
                }
                a[dest] = a[cursor2];
                dest += 1;
                cursor2 += 1;
                len2 -= 1;
                if len2 == 0 {
                    break 'outer;
                }
                count2 = gallop_left(tmp[cursor1], a, cursor2, len2, 0, c);
                if count2 != 0 {
                    a.copy_within(cursor2..cursor2 + count2, dest);
                    dest += count2;
                    cursor2 += count2;
                    len2 -= count2;
                    if len2 == 0 {
                        break 'outer;
                    }
                }
                a[dest] = tmp[cursor1];
                dest += 1;
                cursor1 += 1;
                len1 -= 1;
                if len1 == 1 {
                    break 'outer;
                }
                min_gallop -= 1;
                if !(count1 >= MIN_GALLOP || count2 >= MIN_GALLOP) {
                    break;
                }
            }
            if min_gallop < 0 {
                min_gallop = 0;
            }
            min_gallop += 2;
        }
        self.min_gallop = min_gallop.max(1) as usize;
        if len1 == 1 {
            a.copy_within(cursor2..cursor2 + len2, dest);
            a[dest + len2] = tmp[cursor1];
        } else if len1 == 0 {
            return Err(ContractViolation);
        } else {
            a[dest..dest + len1].copy_from_slice(&tmp[cursor1..cursor1 + len1]);
        }
        Ok(())
    }

    fn merge_hi(
        &mut self,
        a: &mut [T],
        base1: usize,
        mut len1: usize,
        base2: usize,
        mut len2: usize,
        c: &mut impl FnMut(T, T) -> i32,
    ) -> Result<(), ContractViolation> {
        self.tmp.clear();
        self.tmp.extend_from_slice(&a[base2..base2 + len2]);
        let tmp = &self.tmp;
        // Cursors may step one below their array's start, as in Java: signed.
        let mut cursor1 = (base1 + len1) as isize - 1;
        let mut cursor2 = len2 as isize - 1;
        let mut dest = (base2 + len2) as isize - 1;
        let at = |i: isize| i as usize;
        a[at(dest)] = a[at(cursor1)];
        dest -= 1;
        cursor1 -= 1;
        len1 -= 1;
        if len1 == 0 {
            let start = at(dest - (len2 as isize - 1));
            a[start..start + len2].copy_from_slice(&tmp[..len2]);
            return Ok(());
        }
        if len2 == 1 {
            dest -= len1 as isize;
            cursor1 -= len1 as isize;
            a.copy_within(at(cursor1 + 1)..at(cursor1 + 1) + len1, at(dest + 1));
            a[at(dest)] = tmp[at(cursor2)];
            return Ok(());
        }
        let mut min_gallop = self.min_gallop as isize;
        'outer: loop {
            let (mut count1, mut count2) = (0usize, 0usize);
            loop {
                if c(tmp[at(cursor2)], a[at(cursor1)]) < 0 {
                    a[at(dest)] = a[at(cursor1)];
                    dest -= 1;
                    cursor1 -= 1;
                    count1 += 1;
                    count2 = 0;
                    len1 -= 1;
                    if len1 == 0 {
                        break 'outer;
                    }
                } else {
                    a[at(dest)] = tmp[at(cursor2)];
                    dest -= 1;
                    cursor2 -= 1;
                    count2 += 1;
                    count1 = 0;
                    len2 -= 1;
                    if len2 == 1 {
                        break 'outer;
                    }
                }
                if ((count1 | count2) as isize) >= min_gallop {
                    break;
                }
            }
            loop {
                count1 = len1 - gallop_right(tmp[at(cursor2)], a, base1, len1, len1 - 1, c);
                if count1 != 0 {
                    dest -= count1 as isize;
                    cursor1 -= count1 as isize;
                    len1 -= count1;
                    a.copy_within(at(cursor1 + 1)..at(cursor1 + 1) + count1, at(dest + 1));
                    if len1 == 0 {
                        break 'outer;
                    }
                }
                a[at(dest)] = tmp[at(cursor2)];
                dest -= 1;
                cursor2 -= 1;
                len2 -= 1;
                if len2 == 1 {
                    break 'outer;
                }
                count2 = len2 - gallop_left(a[at(cursor1)], tmp, 0, len2, len2 - 1, c);
                if count2 != 0 {
                    dest -= count2 as isize;
                    cursor2 -= count2 as isize;
                    len2 -= count2;
                    let from = at(cursor2 + 1);
                    let to = at(dest + 1);
                    a[to..to + count2].copy_from_slice(&tmp[from..from + count2]);
                    if len2 <= 1 {
                        break 'outer;
                    }
                }
                a[at(dest)] = a[at(cursor1)];
                dest -= 1;
                cursor1 -= 1;
                len1 -= 1;
                if len1 == 0 {
                    break 'outer;
                }
                min_gallop -= 1;
                if !(count1 >= MIN_GALLOP || count2 >= MIN_GALLOP) {
                    break;
                }
            }
            if min_gallop < 0 {
                min_gallop = 0;
            }
            min_gallop += 2;
        }
        self.min_gallop = min_gallop.max(1) as usize;
        if len2 == 1 {
            dest -= len1 as isize;
            cursor1 -= len1 as isize;
            a.copy_within(at(cursor1 + 1)..at(cursor1 + 1) + len1, at(dest + 1));
            a[at(dest)] = tmp[at(cursor2)];
        } else if len2 == 0 {
            return Err(ContractViolation);
        } else {
            let start = at(dest - (len2 as isize - 1));
            a[start..start + len2].copy_from_slice(&tmp[..len2]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A consistent comparator gives a sorted, stable result at every size (the merge paths
    /// included); checked against the standard library's stable sort.
    #[test]
    fn sorts_and_keeps_equal_elements_in_order() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for n in [0, 1, 2, 5, 31, 32, 33, 64, 65, 100, 257, 1000, 5000] {
            for spread in [3u64, 1000] {
                let keys: Vec<(u64, usize)> = (0..n)
                    .map(|i| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed % spread, i)
                    })
                    .collect();
                let mut ours: Vec<usize> = (0..n).collect();
                java_sort(&mut ours, &mut |x, y| keys[x].0.cmp(&keys[y].0) as i32).unwrap();
                let mut want: Vec<usize> = (0..n).collect();
                want.sort_by_key(|&i| keys[i].0);
                assert_eq!(ours, want, "n = {n}, spread = {spread}");
            }
        }
        // Long presorted and reversed runs (galloping).
        let mut up: Vec<i32> = (0..3000).chain(0..3000).collect();
        java_sort(&mut up, &mut |x, y| x.cmp(&y) as i32).unwrap();
        assert!(up.windows(2).all(|w| w[0] <= w[1]));
        let mut down: Vec<i32> = (0..3000).rev().collect();
        java_sort(&mut down, &mut |x, y| x.cmp(&y) as i32).unwrap();
        assert_eq!(down, (0..3000).collect::<Vec<_>>());
    }

    /// With a comparator that never answers 0 (Flink's), binary insertion moves later equal
    /// elements before earlier ones; worked by hand from `TimSort.binarySort`.
    #[test]
    fn never_equal_comparator_follows_binary_insertion() {
        // Elements: (value, id); "greater" compares values only.
        let v = [(2, 0), (1, 1), (1, 2), (3, 3)];
        let mut a = [0usize, 1, 2, 3];
        java_sort(&mut a, &mut |x, y| if v[x].0 > v[y].0 { 1 } else { -1 }).unwrap();
        // Run: compare(a1, a0) = -1 → descending while compare(a2, a1) < 0: (1 > 1)? no → -1
        // → run [0, 1, 2] reversed to [2, 1, 0]; insert 3 at the end.
        assert_eq!(a, [2, 1, 0, 3]);
    }
}
