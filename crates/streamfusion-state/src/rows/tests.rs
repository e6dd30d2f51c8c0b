use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use streamfusion_core::binary_row::BinaryRows;

use super::heap::{HeapBundle, HeapRows};
use super::*;
use crate::ScanRange;
use crate::memory::MemoryBackend;
use crate::objects::ObjectTable;
use crate::rocks::{RocksBackend, RocksOptions};
use crate::ttl::ManualClock;

/// Rows of `width` 64-bit integers, encoded big-endian back to back: a codec simple enough
/// to be its own model.
#[derive(Debug, Clone)]
struct Ints(Vec<i64>);

impl RowCodec for Ints {
    type Item = i64;

    fn fresh(&self) -> &[i64] {
        &self.0
    }

    fn encode(&self, row: &[i64], out: &mut Vec<u8>) {
        for item in row {
            out.extend_from_slice(&item.to_be_bytes());
        }
    }

    fn decode_into(&self, value: &[u8], row: &mut [i64]) -> Result<()> {
        if value.len() != 8 * row.len() {
            return Err(Error::State(format!(
                "{} bytes do not hold {} integers",
                value.len(),
                row.len()
            )));
        }
        for (item, bytes) in row.iter_mut().zip(value.chunks_exact(8)) {
            *item = i64::from_be_bytes(bytes.try_into().expect("8 bytes"));
        }
        Ok(())
    }

    fn placeholder(&self) -> i64 {
        0
    }
}

fn encoded(row: &[i64]) -> Vec<u8> {
    row.iter().flat_map(|i| i.to_be_bytes()).collect()
}

/// A deterministic generator of numbers below `m`.
fn numbers(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut seed = seed;
    move |m| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) % m
    }
}

/// Every entry, encoded, in key order.
fn contents(table: &dyn ObjectTable) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    table.for_each_encoded(&mut |k, v| out.push((k.to_vec(), v.to_vec())));
    out.sort();
    out
}

/// A bundle's state keys (`[key group][key]`, of many lengths) and their hashes.
fn bundle_keys(ids: &[u64]) -> (BinaryRows, Vec<i32>) {
    let mut data = Vec::new();
    let mut offsets = vec![0];
    let mut hashes = Vec::new();
    for &id in ids {
        let start = data.len();
        data.extend_from_slice(&[(id % 3) as u8, 1]);
        data.extend(std::iter::repeat_n(b'k', (id % 70) as usize * 4));
        data.extend_from_slice(&(id as u16).to_be_bytes());
        offsets.push(data.len());
        hashes.push(hash_of(&data[start..]));
    }
    (BinaryRows::from_parts(data, offsets), hashes)
}

#[test]
fn heap_byte_operations_behave_like_an_ordered_map() {
    // Keys of every length, repeated, with removals that leave garbage to compact and
    // slots to reuse.
    let mut table = HeapRows::new(Ints(vec![0, 0]));
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    let mut next = numbers(3);
    for step in 0..20_000i64 {
        let id = next(700);
        let mut key = vec![(id % 3) as u8, 0];
        key.extend(std::iter::repeat_n(id as u8, (id % 300) as usize));
        key.extend_from_slice(&id.to_be_bytes());
        if next(5) <= 2 {
            let value = encoded(&[step, step * 3]);
            table.put_encoded(&key, &value).unwrap();
            model.insert(key.clone(), value);
        } else {
            table.remove(&key);
            model.remove(&key);
        }
        if step % 997 == 0 {
            let expected: Vec<_> = model.clone().into_iter().collect();
            assert_eq!(contents(&table), expected, "step {step}");
            // What a checkpoint writes: the same entries, already in key order.
            let mut sorted = Vec::new();
            table
                .try_for_each_encoded_sorted(&mut |k, v| {
                    sorted.push((k.to_vec(), v.to_vec()));
                    Ok(())
                })
                .unwrap();
            assert_eq!(sorted, expected, "step {step}");
        }
        let mut got = Vec::new();
        let found = table.get_encoded(&key, &mut got);
        assert_eq!(found.then_some(got), model.get(&key).cloned());
    }
    assert_eq!(table.len(), model.len());
}

#[test]
fn heap_bundles_edited_in_place_commit_or_roll_back_like_a_map() {
    // Bundles of random keys (many repeated, so new keys are sometimes most of a bundle's
    // buffer and sometimes not), each group set, removed or left alone, then committed or
    // rolled back: the table must always hold what a map model holds.
    let mut table = HeapRows::new(Ints(vec![0]));
    let mut model: BTreeMap<Vec<u8>, i64> = BTreeMap::new();
    let mut next = numbers(5);
    for bundle in 0..300 {
        let rows = 1 + next(60) as usize;
        let domain = [8, 40, 2000][bundle % 3];
        let ids: Vec<u64> = (0..rows).map(|_| next(domain)).collect();
        let (keys, hashes) = bundle_keys(&ids);
        let (groups, row_group, found) = table.group(keys, hashes, |_| 0);
        assert_eq!(row_group.len(), rows);
        // Each row's group holds its key, and groups are distinct.
        for (row, &g) in row_group.iter().enumerate() {
            assert_eq!(
                groups.key(g as usize),
                bundle_keys(&ids[row..=row]).0.row(0)
            );
        }
        let mut view = HeapBundle::new(&mut table, &groups, found);
        let mut changed: BTreeMap<Vec<u8>, Option<i64>> = BTreeMap::new();
        for g in 0..groups.len() {
            let key = groups.key(g).to_vec();
            assert_eq!(
                view.get(g).map(|r| r[0]),
                model.get(&key).copied(),
                "bundle {bundle}: group {g} before"
            );
            match next(4) {
                0 => {}
                1 if model.contains_key(&key) => {
                    view.get_or_create(g);
                    view.remove(g);
                    changed.insert(key, None);
                }
                _ => {
                    let value = next(1000) as i64 + 1;
                    view.get_or_create(g)[0] = value;
                    changed.insert(key, Some(value));
                }
            }
        }
        if next(5) == 0 {
            view.rollback();
        } else {
            view.commit(None).unwrap();
            table.settle(groups.into_key_data());
            for (key, value) in changed {
                match value {
                    Some(v) => model.insert(key, v),
                    None => model.remove(&key),
                };
            }
        }
        let expected: Vec<(Vec<u8>, Vec<u8>)> = model
            .iter()
            .map(|(k, &c)| (k.clone(), encoded(&[c])))
            .collect();
        assert_eq!(contents(&table), expected, "bundle {bundle}");
    }
}

#[test]
fn heap_values_that_do_not_decode_are_refused_and_change_nothing() {
    let mut table = HeapRows::new(Ints(vec![0, 0]));
    let good = encoded(&[2, 5]);
    table.put_encoded(b"\0\x01k", &good).unwrap();
    for bad in [
        &good[..good.len() - 1],
        &[good.as_slice(), &[0]].concat()[..],
        &[],
    ] {
        assert!(table.check_encoded(bad).is_err());
        assert!(table.put_encoded(b"\0\x01k", bad).is_err());
    }
    let mut got = Vec::new();
    assert!(table.get_encoded(b"\0\x01k", &mut got));
    assert_eq!(got, good);
}

/// The stores a row table can live in, and whether its rows should end up on the heap.
fn stores(dir: &std::path::Path) -> Vec<(&'static str, Box<dyn StateBackend>, bool, bool)> {
    let rocks = RocksBackend::open(&dir.join("rocks"), &RocksOptions::checked_in()).unwrap();
    vec![
        ("memory", Box::new(MemoryBackend::new()), false, true),
        ("memory+ttl", Box::new(MemoryBackend::new()), true, false),
        ("rocksdb", Box::new(rocks), false, false),
    ]
}

#[test]
fn row_tables_read_and_write_bundles_like_a_map_on_every_store() {
    // The same bundles through a row table on the heap, encoded with TTL, and on RocksDB:
    // each bundle reads its groups' rows, changes some, removes some, and writes them with
    // a change to another table in the same write. Every store must read back what a map
    // model holds, and hold the same encoded entries as the model.
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000));
    for (name, mut store, with_ttl, on_heap) in stores(dir.path()) {
        let ttl =
            with_ttl.then(|| StateTtl::new(Duration::from_secs(3600), clock.clone()).unwrap());
        let table = RowTable::open(store.as_mut(), "rows", Ints(vec![0, 7]), ttl.clone()).unwrap();
        assert_eq!(
            table.in_place(store.as_mut()).unwrap().is_some(),
            on_heap,
            "{name}"
        );
        let side = store.open_table("side").unwrap();
        let mut model: BTreeMap<Vec<u8>, [i64; 2]> = BTreeMap::new();
        let mut next = numbers(11);
        for bundle in 0..200u64 {
            let ids: Vec<u64> = (0..1 + next(40)).map(|_| next(300)).collect();
            let (keys, hashes) = bundle_keys(&ids);
            let (groups, _) = Groups::of(keys, hashes);
            let order: Vec<u32> = (0..groups.len() as u32).collect();
            let (mut rows, persisted) = table.read(store.as_mut(), &groups, &order).unwrap();
            for (g, &was_persisted) in persisted.iter().enumerate() {
                let key = groups.key(g).to_vec();
                assert_eq!(
                    rows.get(g),
                    model.get(&key).map(|r| &r[..]),
                    "{name} {bundle}"
                );
                assert_eq!(was_persisted, model.contains_key(&key), "{name} {bundle}");
                match next(3) {
                    0 => {}
                    1 => {
                        rows.remove(g);
                        model.remove(&key);
                    }
                    _ => {
                        let (row, had) = rows.get_or_create(g);
                        assert_eq!(had, model.contains_key(&key));
                        row[0] += 1;
                        row[1] = bundle as i64;
                        model.insert(key, [row[0], row[1]]);
                    }
                }
            }
            let mut writes = WriteBatch::new();
            writes.put(side, bundle.to_be_bytes(), b"x");
            table
                .write(
                    store.as_mut(),
                    &mut writes,
                    &groups,
                    &order,
                    (&mut rows, &persisted),
                )
                .unwrap();
            let mut side_rows = 0;
            store
                .scan(side, ScanRange::All, &mut |_, _| {
                    side_rows += 1;
                    true
                })
                .unwrap();
            assert_eq!(
                side_rows,
                bundle + 1,
                "{name}: the other table's change was written"
            );
        }
        // The encoded entries are the model's, whatever the store keeps.
        let mut stored = Vec::new();
        store
            .scan(table.id(), ScanRange::All, &mut |k, v| {
                let v = match &ttl {
                    Some(ttl) => ttl.unwrap(v).unwrap().unwrap(),
                    None => v,
                };
                stored.push((k.to_vec(), v.to_vec()));
                true
            })
            .unwrap();
        let expected: Vec<_> = model.iter().map(|(k, r)| (k.clone(), encoded(r))).collect();
        assert_eq!(stored, expected, "{name}");
    }
}

#[test]
fn a_refused_budget_writes_nothing_on_the_heap() {
    use crate::budget::MemoryBudget;
    let budget = MemoryBudget::new(600);
    let mut store = MemoryBackend::with_budget(&budget, "test").unwrap();
    let table = RowTable::open(&mut store, "rows", Ints(vec![0]), None).unwrap();
    let side = store.open_table("side").unwrap();
    let ids: Vec<u64> = (0..20).collect();
    let (keys, hashes) = bundle_keys(&ids);
    let (groups, _) = Groups::of(keys, hashes);
    let order: Vec<u32> = (0..groups.len() as u32).collect();
    let (mut rows, persisted) = table.read(&mut store, &groups, &order).unwrap();
    for g in 0..groups.len() {
        rows.get_or_create(g).0[0] = 1;
    }
    let mut writes = WriteBatch::new();
    writes.put(side, b"k", b"v");
    let refused = table.write(
        &mut store,
        &mut writes,
        &groups,
        &order,
        (&mut rows, &persisted),
    );
    assert!(
        matches!(refused, Err(Error::BudgetExceeded { .. })),
        "{refused:?}"
    );
    assert_eq!(store.len(table.id()), 0);
    assert_eq!(store.len(side), 0);
    assert_eq!(budget.reserved(), 0);
}

/// Grouping by a cheaper hash gives the groups plain grouping gives, each with the table's
/// hash of its key; a grouping hash that collides for every key changes nothing either.
#[test]
fn groups_by_a_grouping_hash_carry_the_table_hash() {
    let mut next = numbers(5);
    for bundle in 0..50 {
        let ids: Vec<u64> = (0..1 + next(60)).map(|_| next(40)).collect();
        let (keys, hashes) = bundle_keys(&ids);
        let (plain, plain_rows) = Groups::of(keys.clone(), hashes);
        for grouping in [
            ids.iter().map(|&id| (id % 7) as i32).collect::<Vec<_>>(),
            vec![0; ids.len()],
        ] {
            let (rehashed, rows) = Groups::of_rehashed(keys.clone(), grouping);
            assert_eq!(rows, plain_rows, "bundle {bundle}");
            assert_eq!(rehashed.first_rows(), plain.first_rows(), "bundle {bundle}");
            for g in 0..rehashed.len() {
                assert_eq!(rehashed.key(g), plain.key(g));
                assert_eq!(
                    rehashed.hash(g),
                    hash_of(rehashed.key(g)),
                    "bundle {bundle}"
                );
            }
        }
    }
}
