//! Keyed state against a model: both backends, checkpoints, aligned and rebuilt restore,
//! rescaling, damaged checkpoints, and a process killed in the middle of checkpointing.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Arc;

use streamfusion::keys::key_groups::Parallelism;
use streamfusion::state::checkpoint::{self, Checkpoint, MANIFEST_FILE};
use streamfusion::state::layout::{key_group_of, state_key};
use streamfusion::state::memory::MemoryBackend;
use streamfusion::state::rocks::{RocksBackend, RocksOptions};
use streamfusion::state::ttl::SystemClock;
use streamfusion::state::{ScanRange, StateBackend, TableAccess, TableId, WriteBatch};

type Model = BTreeMap<(String, Vec<u8>), Vec<u8>>;

/// splitmix64: the published-seed generator for these tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

const SEED: u64 = 0x5EED_F11C;
const TABLES: [&str; 2] = ["values", "timers"];

fn key(rng: &mut Rng, max_parallelism: u16) -> Vec<u8> {
    let kg = (rng.next() % u64::from(max_parallelism)) as u16;
    let id = rng.next() % 500;
    // Prefix-free: a fixed-width key and a one-byte namespace.
    state_key(kg, &id.to_be_bytes(), &[(id % 3) as u8], &[])
}

fn rocks(dir: &Path) -> RocksBackend {
    RocksBackend::open(dir, &RocksOptions::checked_in()).unwrap()
}

/// Applies `ops` random batches to the store and the model.
fn churn(store: &mut dyn StateBackend, model: &mut Model, rng: &mut Rng, batches: usize) {
    let tables: Vec<TableId> = TABLES
        .iter()
        .map(|t| store.open_table(t).unwrap())
        .collect();
    for _ in 0..batches {
        let mut batch = WriteBatch::new();
        for _ in 0..64 {
            let t = (rng.next() % 2) as usize;
            let k = key(rng, 128);
            if rng.next().is_multiple_of(4) {
                batch.delete(tables[t], k.clone());
                model.remove(&(TABLES[t].to_string(), k));
            } else {
                let v = rng.next().to_le_bytes().to_vec();
                batch.put(tables[t], k.clone(), v.clone());
                model.insert((TABLES[t].to_string(), k), v);
            }
        }
        store.write(&batch).unwrap();
    }
}

fn contents(store: &dyn StateBackend, range: ScanRange<'_>) -> Model {
    let mut out = Model::new();
    for (i, name) in store.table_names().iter().enumerate() {
        store
            .scan(TableId::from_index(i), range, &mut |k, v| {
                out.insert((name.clone(), k.to_vec()), v.to_vec());
                true
            })
            .unwrap();
    }
    out
}

fn in_groups(model: &Model, groups: &RangeInclusive<u16>) -> Model {
    model
        .iter()
        .filter(|((_, k), _)| groups.contains(&key_group_of(k).unwrap()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn check_backend(store: &mut dyn StateBackend) {
    let mut model = Model::new();
    let mut rng = Rng(SEED);
    churn(store, &mut model, &mut rng, 40);
    assert_eq!(contents(store, ScanRange::All), model);

    // Batched point reads, hits and misses, in request order.
    let values = store.open_table("values").unwrap();
    let probes: Vec<Vec<u8>> = (0..300).map(|_| key(&mut rng, 128)).collect();
    let refs: Vec<&[u8]> = probes.iter().map(Vec::as_slice).collect();
    let got = store.multi_get(values, &refs).unwrap();
    for (probe, got) in probes.iter().zip(got) {
        assert_eq!(
            got.as_ref(),
            model.get(&("values".to_string(), probe.clone()))
        );
    }

    // Key-group and prefix scans return exactly the model's slice, in order.
    let groups = 10..=20;
    assert_eq!(
        contents(store, ScanRange::KeyGroups(&groups)),
        in_groups(&model, &groups)
    );
    let prefix = state_key(7, &[], &[], &[]);
    let scanned = contents(store, ScanRange::Prefix(&prefix));
    assert!(scanned.keys().all(|(_, k)| k.starts_with(&prefix)));
    assert_eq!(scanned, in_groups(&model, &(7..=7)));

    // Many ranges at once (prefixes here): each one's slice of the model, in order, whatever
    // their order (ascending, shuffled, repeated, one inside another, with no entries).
    // Half are the key group and id of a stored key (namespace cut off), half random.
    let stored: Vec<&Vec<u8>> = model
        .keys()
        .filter(|(t, _)| t == "values")
        .map(|(_, k)| k)
        .collect();
    let mut prefixes: Vec<Vec<u8>> = (0..60)
        .map(|i| {
            if i % 2 == 0 {
                let k = stored[(rng.next() % stored.len() as u64) as usize];
                k[..k.len() - 1].to_vec()
            } else {
                let id = rng.next() % 520;
                state_key((rng.next() % 128) as u16, &id.to_be_bytes(), &[], &[])
            }
        })
        .collect();
    prefixes.sort();
    prefixes.dedup();
    let ascending = prefixes.clone();
    let mut mixed = prefixes.clone();
    mixed.reverse();
    mixed.push(ascending[3].clone());
    mixed.push(ascending[3][..2].to_vec());
    let mut nested = vec![ascending[5][..2].to_vec(), ascending[5].clone()];
    nested.extend(ascending.iter().skip(6).cloned());
    // From a floor: each key's entries of namespace 1 and up.
    let floors: Vec<(Vec<u8>, Vec<u8>)> = ascending
        .iter()
        .map(|p| {
            let mut start = p.clone();
            start.push(1);
            (
                start,
                streamfusion::state::layout::prefix_successor(p).unwrap(),
            )
        })
        .collect();
    fn prefix_ranges(list: &[Vec<u8>]) -> Vec<ScanRange<'_>> {
        list.iter().map(|p| ScanRange::Prefix(p)).collect()
    }
    let floor_ranges: Vec<ScanRange<'_>> = floors
        .iter()
        .map(|(start, end)| ScanRange::Between(start, end))
        .collect();
    for refs in [
        prefix_ranges(&ascending),
        prefix_ranges(&mixed),
        prefix_ranges(&nested),
        floor_ranges,
    ] {
        let mut got: Vec<(usize, Vec<u8>, Vec<u8>)> = Vec::new();
        store
            .scan_ranges(values, &refs, &mut |i, k, v| {
                got.push((i, k.to_vec(), v.to_vec()));
                true
            })
            .unwrap();
        let want: Vec<(usize, Vec<u8>, Vec<u8>)> = refs
            .iter()
            .enumerate()
            .flat_map(|(i, range)| {
                let (start, end) = range.bounds();
                model
                    .iter()
                    .filter(move |((t, k), _)| {
                        t == "values" && *k >= start && end.as_ref().is_none_or(|e| k < e)
                    })
                    .map(move |((_, k), v)| (i, k.clone(), v.clone()))
            })
            .collect();
        assert!(want.len() > 10, "{}", want.len());
        assert_eq!(got, want);
        // Stopping ends the walk.
        let mut seen = 0;
        store
            .scan_ranges(values, &refs, &mut |_, _, _| {
                seen += 1;
                seen < 5
            })
            .unwrap();
        assert_eq!(seen, 5);
    }

    // Descending scans visit the same slices backwards, and stop when told to.
    for range in [
        ScanRange::All,
        ScanRange::KeyGroups(&groups),
        ScanRange::Prefix(&prefix),
    ] {
        let forward: Vec<Vec<u8>> = contents(store, range)
            .into_keys()
            .filter(|(t, _)| t == "values")
            .map(|(_, k)| k)
            .collect();
        let mut backward = Vec::new();
        store
            .scan_rev(values, range, &mut |k, _| {
                backward.push(k.to_vec());
                true
            })
            .unwrap();
        backward.reverse();
        assert_eq!(backward, forward);
        let mut last = None;
        store
            .scan_rev(values, range, &mut |k, _| {
                last = Some(k.to_vec());
                false
            })
            .unwrap();
        assert_eq!(last, forward.last().cloned());
    }
}

#[test]
fn both_backends_behave_like_an_ordered_map() {
    check_backend(&mut MemoryBackend::new());
    let dir = tempfile::tempdir().unwrap();
    check_backend(&mut rocks(&dir.path().join("db")));
}

fn checkpoint_restores_aligned(
    store: &mut dyn StateBackend,
    dir: &Path,
    restore: impl Fn(&Checkpoint) -> Box<dyn StateBackend>,
) {
    let mut model = Model::new();
    let mut rng = Rng(SEED ^ 1);
    churn(store, &mut model, &mut rng, 20);
    let published = checkpoint::publish(store, &dir.join("ckpt-1"), b"watermark=42").unwrap();
    // Later writes change neither the checkpoint nor what it restores.
    churn(store, &mut Model::new(), &mut rng, 5);
    let opened = Checkpoint::open(published.path()).unwrap();
    assert_eq!(opened.metadata().unwrap(), b"watermark=42");
    let mut restored = restore(&opened);
    assert_eq!(contents(restored.as_ref(), ScanRange::All), model);
    // A restored store keeps working, and the checkpoint stays valid.
    churn(restored.as_mut(), &mut model, &mut rng, 5);
    assert_eq!(contents(restored.as_ref(), ScanRange::All), model);
    Checkpoint::open(published.path()).unwrap();
}

#[test]
fn aligned_restore_gives_back_exactly_what_was_checkpointed() {
    let dir = tempfile::tempdir().unwrap();
    checkpoint_restores_aligned(&mut MemoryBackend::new(), &dir.path().join("mem"), |c| {
        Box::new(checkpoint::restore_memory(c).unwrap())
    });
    let base = dir.path().join("rocks");
    checkpoint_restores_aligned(&mut rocks(&dir.path().join("db")), &base, |c| {
        Box::new(
            checkpoint::restore_rocks(
                c,
                &base.join("restored"),
                &RocksOptions::checked_in(),
                Arc::new(SystemClock),
            )
            .unwrap(),
        )
    });
}

/// Point and queue tables' writes wait in RocksDB's write-back buffer (decisions 0043 and
/// 0046): point reads see the newest write at once, scans (merged, for a queue table) and
/// checkpoints see every write, with the buffer large (never flushed until a scan), small
/// (flushed every few batches) and off; a restored store, whose tables RocksDB holds,
/// goes on alike.
#[test]
fn rocksdb_point_and_queue_tables_read_scan_and_checkpoint_their_buffered_writes() {
    const NAMES: [&str; 3] = ["values", "timers", "queue"];
    const ACCESS: [TableAccess; 3] = [TableAccess::Point, TableAccess::Ordered, TableAccess::Queue];
    // 64 keys in 8 key groups: most writes rewrite or delete a key written before.
    let key = |id: u64| state_key((id % 8) as u16, &id.to_be_bytes(), &[], &[]);
    let open = |store: &mut RocksBackend| -> Vec<TableId> {
        NAMES
            .iter()
            .zip(ACCESS)
            .map(|(name, access)| store.open_table_with(name, access).unwrap())
            .collect()
    };
    // Random batches against `model`, every read checked after each; checkpointed after
    // round `checkpoint_at`.
    let run = |store: &mut RocksBackend,
               model: &mut Model,
               rng: &mut Rng,
               rounds: usize,
               checkpoint_at: Option<(usize, &Path)>,
               label: &str|
     -> Option<Model> {
        let tables = open(store);
        let mut checkpointed = None;
        for round in 0..rounds {
            let mut batch = WriteBatch::new();
            for _ in 0..12 {
                let t = (rng.next() % 3) as usize;
                let k = key(rng.next() % 64);
                if rng.next().is_multiple_of(3) {
                    batch.delete(tables[t], &k);
                    model.remove(&(NAMES[t].to_string(), k));
                } else {
                    let v = vec![round as u8; (rng.next() % 40) as usize];
                    batch.put(tables[t], &k, &v);
                    model.insert((NAMES[t].to_string(), k), v);
                }
            }
            store.write(&batch).unwrap();
            let probes: Vec<Vec<u8>> = (0..64).map(key).collect();
            let refs: Vec<&[u8]> = probes.iter().map(Vec::as_slice).collect();
            for (t, name) in tables.iter().zip(NAMES) {
                let got = store.multi_get(*t, &refs).unwrap();
                for (probe, got) in probes.iter().zip(got) {
                    let expected = model.get(&(name.to_string(), probe.clone()));
                    assert_eq!(got.as_ref(), expected, "{label}, round {round}");
                }
            }
            // The queue table's key groups 2..=5 forward (stopping part-way) and backward.
            let slice: Vec<_> = in_groups(model, &(2..=5))
                .into_iter()
                .filter(|((t, _), _)| t == "queue")
                .map(|((_, k), v)| (k, v))
                .collect();
            let stop = 1 + (rng.next() % 6) as usize;
            let mut forward = Vec::new();
            store
                .scan(tables[2], ScanRange::KeyGroups(&(2..=5)), &mut |k, v| {
                    forward.push((k.to_vec(), v.to_vec()));
                    forward.len() < stop
                })
                .unwrap();
            assert_eq!(
                forward,
                slice[..stop.min(slice.len())],
                "{label}, round {round}"
            );
            if round % 10 == 9 {
                assert_eq!(contents(store, ScanRange::All), *model, "{label}");
                for (t, name) in [(tables[0], "values"), (tables[2], "queue")] {
                    let mut backward = Vec::new();
                    store
                        .scan_rev(t, ScanRange::KeyGroups(&(2..=5)), &mut |k, v| {
                            backward.push(((name.to_string(), k.to_vec()), v.to_vec()));
                            true
                        })
                        .unwrap();
                    backward.reverse();
                    let expected: Vec<_> = in_groups(model, &(2..=5))
                        .into_iter()
                        .filter(|((table, _), _)| table == name)
                        .collect();
                    assert_eq!(backward, expected, "{label}, {name}");
                }
            }
            if let Some((at, path)) = checkpoint_at
                && round == at
            {
                checkpoint::publish(store, path, b"").unwrap();
                checkpointed = Some(model.clone());
            }
        }
        checkpointed
    };
    for buffer_bytes in [0, 1_000, 32 << 20] {
        let label = format!("{buffer_bytes} B");
        let dir = tempfile::tempdir().unwrap();
        let options = RocksOptions {
            point_buffer_bytes: buffer_bytes,
            ..RocksOptions::checked_in()
        };
        let mut store = RocksBackend::open(&dir.path().join("db"), &options).unwrap();
        let (mut model, mut rng) = (Model::new(), Rng(SEED ^ 11));
        let path = dir.path().join("ckpt");
        let at_checkpoint = run(
            &mut store,
            &mut model,
            &mut rng,
            60,
            Some((33, &path)),
            &label,
        )
        .expect("a checkpoint");
        // The checkpoint holds the writes that were still buffered when it was taken, and
        // the restored store reads and writes on from them.
        let mut restored = checkpoint::restore_rocks(
            &Checkpoint::open(&path).unwrap(),
            &dir.path().join("restored"),
            &options,
            Arc::new(SystemClock),
        )
        .unwrap();
        assert_eq!(
            contents(&restored, ScanRange::All),
            at_checkpoint,
            "{label}"
        );
        let mut model = at_checkpoint;
        run(
            &mut restored,
            &mut model,
            &mut rng,
            30,
            None,
            &format!("{label}, restored"),
        );
    }
}

/// Subtask `index` of `p` keeps only its own key groups of `model`.
fn subtask_store(model: &Model, range: &RangeInclusive<u16>, store: &mut dyn StateBackend) {
    let mut batch = WriteBatch::new();
    for ((table, k), v) in in_groups(model, range) {
        let t = store.open_table(&table).unwrap();
        batch.put(t, k, v);
    }
    store.write(&batch).unwrap();
}

fn range_of(max: u32, p: u32, index: u32) -> RangeInclusive<u16> {
    let r = Parallelism::try_new(max, p)
        .unwrap()
        .key_group_range(index)
        .unwrap();
    (*r.start() as u16)..=(*r.end() as u16)
}

#[test]
fn rescaling_two_subtasks_into_one_and_one_into_two_keeps_every_key_once() {
    let dir = tempfile::tempdir().unwrap();
    let options = RocksOptions::checked_in();
    let mut model = Model::new();
    churn(
        &mut MemoryBackend::new(),
        &mut model,
        &mut Rng(SEED ^ 2),
        30,
    );

    // Two subtasks (one memory, one RocksDB) at parallelism 2, checkpointed.
    let (left, right) = (range_of(128, 2, 0), range_of(128, 2, 1));
    let mut a = MemoryBackend::new();
    subtask_store(&model, &left, &mut a);
    let mut b = rocks(&dir.path().join("b"));
    subtask_store(&model, &right, &mut b);
    let ca = checkpoint::publish(&mut a, &dir.path().join("ckpt-a"), b"").unwrap();
    let cb = checkpoint::publish(&mut b, &dir.path().join("ckpt-b"), b"").unwrap();

    // 2 -> 1: everything, exactly once; the sources are only read.
    let listing = |p: &Path| -> Vec<(String, u64)> {
        let mut v: Vec<_> = std::fs::read_dir(p.join("data"))
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    e.metadata().unwrap().len(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let before = listing(cb.path());
    let mut merged = rocks(&dir.path().join("merged"));
    let stats = checkpoint::rebuild(
        &[ca.clone(), cb.clone()],
        &(0..=127),
        &mut merged,
        &options,
        &dir.path().join("scratch-1"),
    )
    .unwrap();
    assert_eq!(contents(&merged, ScanRange::All), model);
    assert_eq!(stats.entries as usize, model.len());
    assert_eq!(listing(cb.path()), before);
    Checkpoint::open(cb.path()).unwrap();

    // 1 -> 2 (and 1 -> 3): each new subtask gets exactly its key groups.
    let single = checkpoint::publish(&mut merged, &dir.path().join("ckpt-merged"), b"").unwrap();
    for p in [2, 3] {
        let mut union = Model::new();
        for index in 0..p {
            let range = range_of(128, p, index);
            let mut part = MemoryBackend::new();
            checkpoint::rebuild(
                std::slice::from_ref(&single),
                &range,
                &mut part,
                &options,
                &dir.path().join(format!("scratch-{p}-{index}")),
            )
            .unwrap();
            let got = contents(&part, ScanRange::All);
            assert_eq!(got, in_groups(&model, &range), "p {p} index {index}");
            let before = union.len();
            union.extend(got.clone());
            assert_eq!(
                union.len(),
                before + got.len(),
                "keys duplicated across subtasks"
            );
        }
        assert_eq!(union, model);
    }

    // 1 -> 3 again, clipping an adopted RocksDB checkpoint instead of scanning it.
    let mut union = Model::new();
    for index in 0..3 {
        let range = range_of(128, 3, index);
        let working = dir.path().join(format!("clipped-{index}"));
        let part = checkpoint::restore_rocks_clipped(
            &single,
            &range,
            &working,
            &options,
            Arc::new(SystemClock),
        )
        .unwrap();
        let got = contents(&part, ScanRange::All);
        assert_eq!(got, in_groups(&model, &range), "clipped index {index}");
        union.extend(got);
    }
    assert_eq!(union, model);
    Checkpoint::open(single.path()).unwrap();
}

#[test]
fn overlapping_sources_are_refused_instead_of_merged_silently() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = Model::new();
    let mut store = MemoryBackend::new();
    churn(&mut store, &mut model, &mut Rng(SEED ^ 3), 5);
    let c1 = checkpoint::publish(&mut store, &dir.path().join("c1"), b"").unwrap();
    let c2 = checkpoint::publish(&mut store, &dir.path().join("c2"), b"").unwrap();
    let err = checkpoint::rebuild(
        &[c1, c2],
        &(0..=127),
        &mut MemoryBackend::new(),
        &RocksOptions::checked_in(),
        &dir.path().join("s"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("disjoint key groups"), "{err}");
    let mut full = MemoryBackend::new();
    churn(&mut full, &mut Model::new(), &mut Rng(SEED), 1);
    let err = checkpoint::rebuild(
        &[],
        &(0..=127),
        &mut full,
        &RocksOptions::checked_in(),
        &dir.path().join("s2"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("empty target"), "{err}");
}

fn damaged(setup: impl Fn(&Path), expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = rocks(&dir.path().join("db"));
    churn(&mut store, &mut Model::new(), &mut Rng(SEED ^ 4), 10);
    let c = checkpoint::publish(&mut store, &dir.path().join("ckpt"), b"meta").unwrap();
    setup(c.path());
    let err = Checkpoint::open(c.path()).unwrap_err().to_string();
    assert!(err.contains(expected), "expected `{expected}` in: {err}");
}

fn first_sst(ckpt: &Path) -> std::path::PathBuf {
    std::fs::read_dir(ckpt.join("data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sst"))
        .expect("an SST file")
}

#[test]
fn truncated_corrupted_or_missing_checkpoints_are_named_not_restored() {
    damaged(
        |c| {
            let sst = first_sst(c);
            let len = std::fs::metadata(&sst).unwrap().len();
            std::fs::OpenOptions::new()
                .write(true)
                .open(&sst)
                .unwrap()
                .set_len(len / 2)
                .unwrap();
        },
        "is truncated or altered",
    );
    damaged(
        |c| {
            let sst = first_sst(c);
            let mut bytes = std::fs::read(&sst).unwrap();
            bytes[10] ^= 0x40;
            std::fs::write(&sst, bytes).unwrap();
        },
        "is corrupted: CRC32",
    );
    damaged(
        |c| std::fs::remove_file(first_sst(c)).unwrap(),
        "is missing",
    );
    damaged(
        |c| std::fs::remove_file(c.join(MANIFEST_FILE)).unwrap(),
        "MANIFEST.json is missing",
    );
    damaged(
        |c| std::fs::write(c.join(MANIFEST_FILE), b"{ not json").unwrap(),
        "MANIFEST.json is corrupted",
    );
    damaged(
        |c| std::fs::write(c.join("metadata.bin"), b"other").unwrap(),
        "metadata.bin",
    );
}

#[test]
fn a_published_checkpoint_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = MemoryBackend::new();
    checkpoint::publish(&mut store, &dir.path().join("c"), b"first").unwrap();
    let err = checkpoint::publish(&mut store, &dir.path().join("c"), b"second").unwrap_err();
    assert!(err.to_string().contains("never overwritten"), "{err}");
    assert_eq!(
        Checkpoint::open(&dir.path().join("c"))
            .unwrap()
            .metadata()
            .unwrap(),
        b"first"
    );
}

/// A backend whose checkpoint fails half-way through writing its files.
struct FailingCheckpoint(MemoryBackend);

impl StateBackend for FailingCheckpoint {
    fn kind(&self) -> streamfusion::state::BackendKind {
        self.0.kind()
    }
    fn memory_bytes(&self) -> u64 {
        self.0.memory_bytes()
    }
    fn open_table(&mut self, name: &str) -> streamfusion::Result<TableId> {
        self.0.open_table(name)
    }
    fn table_names(&self) -> Vec<String> {
        self.0.table_names()
    }
    fn multi_get(
        &self,
        table: TableId,
        keys: &[&[u8]],
    ) -> streamfusion::Result<Vec<Option<Vec<u8>>>> {
        self.0.multi_get(table, keys)
    }
    fn write(&mut self, batch: &WriteBatch) -> streamfusion::Result<()> {
        self.0.write(batch)
    }
    fn scan(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> streamfusion::Result<()> {
        self.0.scan(table, range, visit)
    }
    fn scan_rev(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> streamfusion::Result<()> {
        self.0.scan_rev(table, range, visit)
    }
    fn bulk_loader(
        &mut self,
        table: TableId,
    ) -> streamfusion::Result<Box<dyn streamfusion::state::BulkLoader + '_>> {
        self.0.bulk_loader(table)
    }
    fn write_checkpoint(&mut self, dir: &Path) -> streamfusion::Result<()> {
        self.0.write_checkpoint(dir)?;
        Err(streamfusion::Error::State("disk full (simulated)".into()))
    }
}

#[test]
fn a_failed_checkpoint_leaves_the_previous_one_and_no_debris() {
    let dir = tempfile::tempdir().unwrap();
    let mut inner = MemoryBackend::new();
    let mut model = Model::new();
    churn(&mut inner, &mut model, &mut Rng(SEED ^ 5), 5);
    checkpoint::publish(&mut inner, &dir.path().join("c1"), b"").unwrap();
    let mut failing = FailingCheckpoint(inner);
    churn(&mut failing, &mut Model::new(), &mut Rng(SEED ^ 6), 5);
    assert!(checkpoint::publish(&mut failing, &dir.path().join("c2"), b"").is_err());
    assert!(!dir.path().join("c2").exists());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("c1")]);
    let restored =
        checkpoint::restore_memory(&Checkpoint::open(&dir.path().join("c1")).unwrap()).unwrap();
    assert_eq!(contents(&restored, ScanRange::All), model);
}

const CHILD_ENV: &str = "SF_STATE_CRASH_CHILD_DIR";

/// In the child: checkpoint a growing RocksDB store over and over until killed. Checkpoint
/// `ckpt-i` holds exactly `i * 64` entries in table `values`.
#[test]
#[ignore = "helper process for killing_a_process_mid_checkpoint_leaves_the_previous_one_restorable"]
fn crash_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let dir = Path::new(&dir);
    let mut store = rocks(&dir.join("db"));
    let values = store.open_table("values").unwrap();
    for i in 1u64.. {
        let mut batch = WriteBatch::new();
        for j in 0..64u64 {
            batch.put(
                values,
                state_key(
                    ((i * 64 + j) % 128) as u16,
                    &(i * 64 + j).to_be_bytes(),
                    &[],
                    &[],
                ),
                vec![7u8; 300],
            );
        }
        store.write(&batch).unwrap();
        checkpoint::publish(
            &mut store,
            &dir.join(format!("ckpt-{i:06}")),
            &i.to_le_bytes(),
        )
        .unwrap();
    }
}

#[test]
fn killing_a_process_mid_checkpoint_leaves_the_previous_one_restorable() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "state::crash_child",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CHILD_ENV, dir.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let published = |d: &Path| -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("ckpt-")
            })
            .collect();
        v.sort();
        v
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while published(dir.path()).len() < 5 {
        assert!(
            std::time::Instant::now() < deadline,
            "the child published too few checkpoints"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // Every published checkpoint verifies; the newest restores with exactly its contents.
    let all = published(dir.path());
    for c in &all {
        Checkpoint::open(c).unwrap_or_else(|e| panic!("{e}"));
    }
    let newest = Checkpoint::open(all.last().unwrap()).unwrap();
    let i = u64::from_le_bytes(newest.metadata().unwrap().try_into().unwrap());
    let restored = checkpoint::restore_rocks(
        &newest,
        &dir.path().join("restored"),
        &RocksOptions::checked_in(),
        Arc::new(SystemClock),
    )
    .unwrap();
    assert_eq!(contents(&restored, ScanRange::All).len() as u64, i * 64);
    checkpoint::remove_abandoned(dir.path()).unwrap();
}

#[test]
fn expired_ttl_state_reads_as_absent_and_rocksdb_compaction_drops_it() {
    use std::sync::Arc;
    use std::time::Duration;
    use streamfusion::state::ttl::{ManualClock, StateTtl};

    let clock = Arc::new(ManualClock::new(10_000));
    let ttl = StateTtl::new(Duration::from_millis(100), clock.clone()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut db = RocksBackend::open_with_clock(
        &dir.path().join("db"),
        &RocksOptions::checked_in(),
        clock.clone(),
    )
    .unwrap();
    let mut mem = MemoryBackend::new();
    let stores: [&mut dyn StateBackend; 2] = [&mut db, &mut mem];
    for store in stores {
        let table = store.open_table("ttl:values").unwrap();
        let mut batch = WriteBatch::new();
        batch.put(table, state_key(1, b"old", &[], &[]), ttl.wrap(b"a"));
        store.write(&batch).unwrap();
        clock.set(10_060);
        let mut batch = WriteBatch::new();
        batch.put(table, state_key(1, b"new", &[], &[]), ttl.wrap(b"b"));
        store.write(&batch).unwrap();
        clock.set(10_100);
        let keys = [
            state_key(1, b"old", &[], &[]),
            state_key(1, b"new", &[], &[]),
        ];
        let got = store.multi_get(table, &[&keys[0], &keys[1]]).unwrap();
        let visible: Vec<Option<&[u8]>> = got
            .iter()
            .map(|v| ttl.unwrap(v.as_deref().unwrap()).unwrap())
            .collect();
        assert_eq!(visible, vec![None, Some(&b"b"[..])]);
        clock.set(10_000);
    }
    // Past both expiries, compaction removes the entries from disk.
    clock.set(10_200);
    let table = db.open_table("ttl:values").unwrap();
    db.compact(table).unwrap();
    assert!(contents(&db, ScanRange::All).is_empty());
}

#[test]
fn an_aligned_rocksdb_restore_expires_ttl_state_on_the_restoring_clock() {
    use std::time::Duration;
    use streamfusion::state::ttl::{ManualClock, StateTtl};

    // Written at a processing time long before the system clock's: live on the restoring
    // operator's clock, so compaction of the restored store must keep it (it used to expire
    // it on the system clock and drop it).
    let clock = Arc::new(ManualClock::new(1_000_000));
    let ttl = StateTtl::new(Duration::from_secs(3_600), clock.clone()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut db = RocksBackend::open_with_clock(
        &dir.path().join("db"),
        &RocksOptions::checked_in(),
        clock.clone(),
    )
    .unwrap();
    let table = db.open_table("ttl:values").unwrap();
    let mut batch = WriteBatch::new();
    batch.put(table, state_key(1, b"k", &[], &[]), ttl.wrap(b"v"));
    db.write(&batch).unwrap();
    let published = checkpoint::publish(&mut db, &dir.path().join("ckpt"), b"").unwrap();
    let c = Checkpoint::open(published.path()).unwrap();
    for clipped in [false, true] {
        let working = dir.path().join(format!("restored-{clipped}"));
        let mut restored = if clipped {
            checkpoint::restore_rocks_clipped(
                &c,
                &(0..=63),
                &working,
                &RocksOptions::checked_in(),
                clock.clone(),
            )
        } else {
            checkpoint::restore_rocks(&c, &working, &RocksOptions::checked_in(), clock.clone())
        }
        .unwrap();
        let table = restored.open_table("ttl:values").unwrap();
        restored.compact(table).unwrap();
        assert_eq!(
            contents(&restored, ScanRange::All).len(),
            1,
            "clipped: {clipped}"
        );
    }
}

#[test]
fn stores_reserve_against_the_task_budget_and_release_on_delete_and_close() {
    use streamfusion::state::budget::MemoryBudget;

    let budget = MemoryBudget::new(64 << 20);
    let mut store = MemoryBackend::with_budget(&budget, "group-agg").unwrap();
    let mut model = Model::new();
    churn(&mut store, &mut model, &mut Rng(SEED ^ 7), 10);
    assert_eq!(
        budget.report(),
        vec![("group-agg".to_string(), store.estimated_bytes())]
    );

    // A RocksDB store takes its cache and memtables from the same budget.
    let dir = tempfile::tempdir().unwrap();
    let db = RocksBackend::open_in_budget(
        &dir.path().join("db"),
        &RocksOptions::checked_in(),
        &budget,
        "rocksdb",
        32 << 20,
    )
    .unwrap();
    assert_eq!(db.budgeted_bytes(), Some(32 << 20));
    let err = RocksBackend::open_in_budget(
        &dir.path().join("db2"),
        &RocksOptions::checked_in(),
        &budget,
        "rocksdb-2",
        32 << 20,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("memory budget exceeded: rocksdb-2"),
        "{err}"
    );

    // A write beyond the budget fails and changes nothing.
    let table = store.open_table("values").unwrap();
    let before = contents(&store, ScanRange::All);
    let mut huge = WriteBatch::new();
    huge.put(table, state_key(0, b"big", &[], &[]), vec![0u8; 40 << 20]);
    assert!(matches!(
        store.write(&huge),
        Err(streamfusion::Error::BudgetExceeded { .. })
    ));
    assert_eq!(contents(&store, ScanRange::All), before);

    // Deleting releases; closing releases the rest.
    let mut delete_all = WriteBatch::new();
    for (table_name, key) in model.keys() {
        let t = store.open_table(table_name).unwrap();
        delete_all.delete(t, key.clone());
    }
    store.write(&delete_all).unwrap();
    assert_eq!(store.estimated_bytes(), 0);
    drop(db);
    drop(store);
    assert_eq!(budget.reserved(), 0);
}
