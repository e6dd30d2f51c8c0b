use std::collections::BTreeMap;

use super::*;
use crate::layout::state_key;
use crate::rocks::RocksBackend;

/// The model: every (table, key) -> value written, by key group.
type Model = BTreeMap<(String, Vec<u8>), Vec<u8>>;

/// Fills `store` with entries of key groups 0..=15 in two tables (one of which stays
/// empty in some key groups) and returns what was written.
fn fill(store: &mut dyn StateBackend) -> Model {
    let mut model = Model::new();
    let a = store.open_table("acc").unwrap();
    let b = store.open_table("timers:event").unwrap();
    store.open_table("never-written").unwrap();
    let mut batch = WriteBatch::new();
    let mut seed = 0x5EC7_1015_u64;
    for i in 0..400u32 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let kg = (seed >> 40) as u16 % 16;
        let key = state_key(kg, &i.to_be_bytes(), &[], &[]);
        let value = format!("v{i}").into_bytes();
        let (table, name) = if i % 3 == 0 {
            (b, "timers:event")
        } else {
            (a, "acc")
        };
        batch.put(table, &key, &value);
        model.insert((name.to_string(), key), value);
    }
    store.write(&batch).unwrap();
    model
}

fn cut(checkpoint: &Checkpoint, range: RangeInclusive<u16>, scratch: &Path) -> Vec<(u16, Vec<u8>)> {
    let mut out = Vec::new();
    export(
        checkpoint,
        &range,
        &RocksOptions::checked_in(),
        scratch,
        &mut |kg, bytes| {
            out.push((kg, bytes));
            Ok(())
        },
    )
    .unwrap();
    out
}

fn entries_of(sections: &[Section]) -> Model {
    let mut model = Model::new();
    for s in sections {
        for t in &s.tables {
            for (k, v) in &t.entries {
                assert!(
                    model
                        .insert((t.name.clone(), k.clone()), v.clone())
                        .is_none()
                );
            }
        }
    }
    model
}

fn restored_entries(checkpoint: &Checkpoint) -> Model {
    let store = checkpoint::restore_memory(checkpoint).unwrap();
    let mut model = Model::new();
    for (i, name) in store.table_names().into_iter().enumerate() {
        store
            .scan(TableId(i), ScanRange::All, &mut |k, v| {
                model.insert((name.clone(), k.to_vec()), v.to_vec());
                true
            })
            .unwrap();
    }
    model
}

#[test]
fn memory_and_rocksdb_checkpoints_cut_into_sections_that_put_back_every_entry() {
    let dir = tempfile::tempdir().unwrap();
    let mut memory = MemoryBackend::new();
    let mut rocks =
        RocksBackend::open(&dir.path().join("db"), &RocksOptions::checked_in()).unwrap();
    for (name, store) in [
        ("memory", &mut memory as &mut dyn StateBackend),
        ("rocks", &mut rocks),
    ] {
        let model = fill(store);
        let published =
            checkpoint::publish(store, &dir.path().join(format!("cp-{name}")), b"meta").unwrap();
        let bytes = cut(&published, 0..=15, dir.path());
        assert_eq!(
            bytes.iter().map(|(kg, _)| *kg).collect::<Vec<_>>(),
            (0..=15).collect::<Vec<_>>(),
            "one section per key group, empty ones included"
        );
        let sections: Vec<Section> = bytes
            .iter()
            .map(|(_, b)| Section::decode(b).unwrap())
            .collect();
        for (s, (kg, _)) in sections.iter().zip(&bytes) {
            assert_eq!(s.key_group, *kg);
            assert_eq!(s.metadata, b"meta");
            // Every table travels, so a table empty in this key group is not lost.
            let names: Vec<&str> = s.tables.iter().map(|t| t.name.as_str()).collect();
            assert!(
                names.contains(&"never-written") && names.contains(&"acc"),
                "{names:?}"
            );
        }
        assert_eq!(
            entries_of(&sections),
            model,
            "{name}: sections hold every entry once"
        );
        let (back, range) = publish_sections(
            &sections,
            b"merged",
            &dir.path().join(format!("back-{name}")),
        )
        .unwrap();
        assert_eq!(range, 0..=15);
        assert_eq!(back.metadata().unwrap(), b"merged");
        assert_eq!(restored_entries(&back), model, "{name}: put back whole");
    }
}

/// Rescaling as Flink does it: two old subtasks' sections, regrouped into three new ranges,
/// give each new subtask exactly the entries of its key groups.
#[test]
fn sections_regroup_across_subtasks_without_loss_or_duplication() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = Model::new();
    let mut all = Vec::new();
    for (i, range) in [0..=7u16, 8..=15].into_iter().enumerate() {
        let mut store = MemoryBackend::new();
        let written = fill(&mut store);
        // Each old subtask owns only its range, as a keyed operator's store does.
        let mut owned = MemoryBackend::new();
        let mut batch = WriteBatch::new();
        for ((table, key), value) in &written {
            if range.contains(&key_group_of(key).unwrap()) {
                let id = owned.open_table(table).unwrap();
                batch.put(id, key, value);
                model.insert((table.clone(), key.clone()), value.clone());
            }
        }
        owned.write(&batch).unwrap();
        let published =
            checkpoint::publish(&mut owned, &dir.path().join(format!("old-{i}")), b"m").unwrap();
        all.extend(cut(&published, range, dir.path()));
    }
    let mut regrouped = Model::new();
    for (i, range) in [0..=4u16, 5..=10, 11..=15].into_iter().enumerate() {
        let mine: Vec<Section> = all
            .iter()
            .filter(|(kg, _)| range.contains(kg))
            .map(|(_, b)| Section::decode(b).unwrap())
            .collect();
        let (back, got) =
            publish_sections(&mine, b"m", &dir.path().join(format!("new-{i}"))).unwrap();
        assert_eq!(got, range);
        for (entry, value) in restored_entries(&back) {
            assert!(range.contains(&key_group_of(&entry.1).unwrap()));
            assert!(regrouped.insert(entry, value).is_none());
        }
    }
    assert_eq!(regrouped, model);
}

#[test]
fn corrupt_foreign_or_incomplete_sections_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = MemoryBackend::new();
    fill(&mut store);
    let published = checkpoint::publish(&mut store, &dir.path().join("cp"), b"m").unwrap();
    let bytes = cut(&published, 0..=3, dir.path());
    let good = &bytes[1].1;

    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    let err = Section::decode(&flipped).unwrap_err().to_string();
    assert!(err.contains("corrupted: CRC32"), "{err}");

    let err = Section::decode(&good[..good.len() - 9])
        .unwrap_err()
        .to_string();
    assert!(err.contains("CRC32") || err.contains("truncated"), "{err}");

    // A stock Flink operator's raw bytes, or anything else.
    let err = Section::decode(b"\0\0\0\x05hello world, not ours")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not written by StreamFusion"), "{err}");

    // A key of another key group, checksum recomputed: the section lies about its contents.
    let mut section = Section::decode(good).unwrap();
    let table = section
        .tables
        .iter_mut()
        .find(|t| !t.entries.is_empty())
        .unwrap();
    table.entries[0].0[..2].copy_from_slice(&9u16.to_be_bytes());
    let err = Section::decode(&section.encode()).unwrap_err().to_string();
    assert!(err.contains("holds a key of key group 9"), "{err}");

    let decoded: Vec<Section> = bytes
        .iter()
        .map(|(_, b)| Section::decode(b).unwrap())
        .collect();
    let gap = [decoded[0].clone(), decoded[2].clone()];
    let err = publish_sections(&gap, b"m", &dir.path().join("gap"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("key group 1 has no section"), "{err}");
    let twice = [decoded[0].clone(), decoded[0].clone()];
    let err = publish_sections(&twice, b"m", &dir.path().join("twice"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("key group 0 has two sections"), "{err}");
    assert!(!dir.path().join("gap").exists() && !dir.path().join("twice").exists());
}
