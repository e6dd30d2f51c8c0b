//! The `keys_and_checkpoints` suite: key materialization (Flink key hashing and key groups,
//! arrow-row state keys) and keyed-state checkpoints with aligned and rebuilt restore.
//!
//! Measured boundaries:
//! - `keys/flink_hash/...`: writing the key columns as `BinaryRowData` rows, hashing them
//!   and assigning key groups (max parallelism 128), output vector allocation included;
//! - `keys/state_encode/...` and `keys/state_decode/...`: arrow-row encode of key columns,
//!   and decode of encoded rows back to columns;
//! - `checkpoint/{memory,rocksdb}/keys=N`: publishing a checkpoint of a store holding N keys
//!   (backend snapshot, checksums, syncs, rename); the store is filled outside timing;
//! - `restore/{memory,rocksdb}/{aligned,rebuilt}/keys=N`: restoring from a published
//!   checkpoint (aligned: adopt the files and open; rebuilt: scan the subtask's key groups
//!   into a fresh store) into a working directory prepared outside timing; for RocksDB also
//!   `rebuilt_half` and `clipped_half`, the two ways one subtask of a 1 -> 2 rescale restores
//!   key groups 0..=63 (scan into a fresh store, or adopt and delete the other half). Closing the
//!   restored store and removing directories stay outside timing. Each check compares the
//!   complete restored contents with the source's, then keeps writing to the restored store.
//!
//! Key domains of checkpointed stores: 1, 64, 16, 1,024 and 16,384 distinct keys of ~280
//! bytes (264-byte UTF-8 keys encoded with arrow-row), spread over 128 key groups.
//!
//! Fixtures (built outside timing): BIGINT keys, composite (BIGINT, VARCHAR) keys with
//! 8- or 264-byte UTF-8 (Unicode and NUL), and nested ROW keys
//! `ROW<id BIGINT, name STRING, inner ROW<code INT, flag BOOLEAN>>` (`.../row/...`; NULL
//! rows and NULL fields at every level when nullable) at 16/1,024/16,384 rows, nullable or
//! not, sliced to a nonzero offset. Oracles are independent: a row-at-a-time model of the key
//! layout (nested rows copied into the variable part) with a textbook Murmur3 for hashes, and
//! for state keys the round trip plus an order check against a direct comparison of the
//! values.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::ops::RangeInclusive;
use std::sync::Arc;

use arrow::array::{Array, ArrayData, ArrayRef, AsArray, Int64Array, StringArray, StructArray};
use arrow::datatypes::{Int32Type, Int64Type};
use arrow::row::Rows;
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern, ROW_COUNTS, SLICE_OFFSET};
use bench_support::oracles::flink_key_group;
use bench_support::{Suite, Verdict, expect_eq};
use std::collections::BTreeMap;
use streamfusion::keys::KeyHasher;
use streamfusion::keys::state_key::StateKeyCodec;
use streamfusion::state::checkpoint::{self, Checkpoint};
use streamfusion::state::layout::state_key;
use streamfusion::state::memory::MemoryBackend;
use streamfusion::state::rocks::{RocksBackend, RocksOptions};
use streamfusion::state::ttl::SystemClock;
use streamfusion::state::{ScanRange, StateBackend, TableId, WriteBatch};
use streamfusion::types::{LogicalType, row_arrow_fields};

bench_support::counting_allocator!();

const MAX_PARALLELISM: u32 = 128;
const WIDTHS: [usize; 2] = [8, 264];

/// Keys held by checkpointed stores: the key domains of every batch size (one key, 64, one
/// per row), each once.
fn key_domains() -> Vec<usize> {
    let mut domains: Vec<usize> = ROW_COUNTS
        .into_iter()
        .flat_map(fixtures::key_domains)
        .collect();
    domains.sort_unstable();
    domains.dedup();
    domains
}

fn main() {
    let mut suite = Suite::new("keys_and_checkpoints");
    flink_hash(&mut suite);
    state_keys(&mut suite);
    checkpoints(&mut suite);
    suite.finish();
}

/// Key columns as a fixture.
struct Keys(Vec<ArrayRef>);

impl ArrowBuffers for Keys {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.0.collect_arrays(out);
    }
}

/// A vector of key groups is not Arrow output.
struct Groups(Vec<u32>);

impl ArrowBuffers for Groups {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

/// Encoded rows are bytes, not Arrow buffers.
struct Encoded(Rows);

impl ArrowBuffers for Encoded {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

fn nulls(nullable: bool) -> NullPattern {
    if nullable {
        NullPattern::EveryNth(13)
    } else {
        NullPattern::None
    }
}

fn bigint_keys(rows: usize, nullable: bool) -> Keys {
    let ids = fixtures::int64(rows + SLICE_OFFSET, nulls(nullable)).slice(SLICE_OFFSET, rows);
    Keys(vec![Arc::new(ids)])
}

fn composite_keys(rows: usize, width: usize, nullable: bool) -> Keys {
    let ids = fixtures::int64(rows + SLICE_OFFSET, NullPattern::None).slice(SLICE_OFFSET, rows);
    let names =
        fixtures::utf8(rows + SLICE_OFFSET, width, nulls(nullable)).slice(SLICE_OFFSET, rows);
    Keys(vec![Arc::new(ids), Arc::new(names)])
}

/// The nested ROW key type of the `row` cases.
const ROW_KEY: &str = "ROW<id BIGINT, name STRING, inner ROW<code INT, flag BOOLEAN>>";

fn row_key_type() -> LogicalType {
    ROW_KEY.parse().expect("ROW key type")
}

/// One `ROW_KEY` column; when nullable, NULLs at staggered rows in every field and level.
fn row_keys(rows: usize, nullable: bool) -> Keys {
    let len = rows + SLICE_OFFSET;
    let every = |n: usize| {
        if nullable {
            NullPattern::EveryNth(n)
        } else {
            NullPattern::None
        }
    };
    let LogicalType::Row(fields) = row_key_type() else {
        unreachable!("ROW_KEY is a ROW")
    };
    let LogicalType::Row(inner_fields) = &fields[2].ty else {
        unreachable!("ROW_KEY's third field is a ROW")
    };
    let inner = StructArray::try_new(
        row_arrow_fields(inner_fields),
        vec![
            Arc::new(fixtures::int32(len, every(11))),
            Arc::new(fixtures::booleans(len, every(7))),
        ],
        every(5).null_buffer(len),
    )
    .expect("inner rows");
    let outer = StructArray::try_new(
        row_arrow_fields(&fields),
        vec![
            Arc::new(fixtures::int64(len, every(17))),
            Arc::new(fixtures::utf8(len, 8, every(3))),
            Arc::new(inner),
        ],
        nulls(nullable).null_buffer(len),
    )
    .expect("rows");
    Keys(vec![Arc::new(outer.slice(SLICE_OFFSET, rows))])
}

// ---- The oracle: Flink's key row, one row at a time, from the documented layout.

/// One key row: header word, then an 8-byte slot per field, then long strings.
fn model_row(ids: &Int64Array, names: Option<&StringArray>, r: usize) -> Vec<u8> {
    let arity = 1 + usize::from(names.is_some());
    let mut row = vec![0u8; 8 + 8 * arity];
    if ids.is_null(r) {
        row[1] |= 1;
    } else {
        row[8..16].copy_from_slice(&ids.value(r).to_le_bytes());
    }
    if let Some(names) = names {
        if names.is_null(r) {
            row[1] |= 2;
        } else {
            let s = names.value(r).as_bytes();
            if s.len() <= 7 {
                row[16..16 + s.len()].copy_from_slice(s);
                row[23] = 0x80 | s.len() as u8;
            } else {
                let offset = row.len() as u64;
                row[16..24].copy_from_slice(&((offset << 32) | s.len() as u64).to_le_bytes());
                row.extend_from_slice(s);
                row.resize(row.len().next_multiple_of(8), 0);
            }
        }
    }
    row
}

/// A field value of the generic model row.
enum Model<'a> {
    Null,
    Long(i64),
    Int(i32),
    Bool(bool),
    Str(&'a [u8]),
    Row(Vec<Model<'a>>),
}

/// A `BinaryRowData` row (header `+I`) from the documented layout, field by field; a nested
/// row is modelled recursively and appended to the variable part like a long string.
fn model_binary_row(fields: &[Model<'_>]) -> Vec<u8> {
    let bits = (fields.len() + 63 + 8) / 64 * 8;
    let mut row = vec![0u8; bits + 8 * fields.len()];
    let append = |row: &mut Vec<u8>, bytes: &[u8]| {
        let offset = row.len() as u64;
        row.extend_from_slice(bytes);
        row.resize(row.len().next_multiple_of(8), 0);
        (offset << 32) | bytes.len() as u64
    };
    for (i, field) in fields.iter().enumerate() {
        let word = match field {
            Model::Null => {
                row[(i + 8) / 8] |= 1 << ((i + 8) % 8);
                0
            }
            Model::Long(v) => *v as u64,
            Model::Int(v) => u64::from(*v as u32),
            Model::Bool(v) => u64::from(*v),
            Model::Str(s) if s.len() <= 7 => {
                let mut w = [0u8; 8];
                w[..s.len()].copy_from_slice(s);
                w[7] = 0x80 | s.len() as u8;
                u64::from_le_bytes(w)
            }
            Model::Str(s) => append(&mut row, s),
            Model::Row(nested) => append(&mut row, &model_binary_row(nested)),
        };
        row[bits + 8 * i..bits + 8 * (i + 1)].copy_from_slice(&word.to_le_bytes());
    }
    row
}

/// The `ROW_KEY` value of row `r`, NULLs as `None` (the order arrow-row keeps: NULLs first).
type RowKey<'a> = Option<(
    Option<i64>,
    Option<&'a str>,
    Option<(Option<i32>, Option<bool>)>,
)>;

fn row_key(keys: &Keys, r: usize) -> RowKey<'_> {
    let outer = keys.0[0].as_struct();
    if outer.is_null(r) {
        return None;
    }
    let ids = outer.column(0).as_primitive::<Int64Type>();
    let names = outer.column(1).as_string::<i32>();
    let inner = outer.column(2).as_struct();
    let codes = inner.column(0).as_primitive::<Int32Type>();
    let flags = inner.column(1).as_boolean();
    Some((
        (!ids.is_null(r)).then(|| ids.value(r)),
        (!names.is_null(r)).then(|| names.value(r)),
        (!inner.is_null(r)).then(|| {
            (
                (!codes.is_null(r)).then(|| codes.value(r)),
                (!flags.is_null(r)).then(|| flags.value(r)),
            )
        }),
    ))
}

/// Row `r`'s key row: one ROW field holding the nested row, itself holding a nested row.
fn model_row_key(keys: &Keys, r: usize) -> Vec<u8> {
    let field = match row_key(keys, r) {
        None => Model::Null,
        Some((id, name, inner)) => Model::Row(vec![
            id.map_or(Model::Null, Model::Long),
            name.map_or(Model::Null, |s| Model::Str(s.as_bytes())),
            inner.map_or(Model::Null, |(code, flag)| {
                Model::Row(vec![
                    code.map_or(Model::Null, Model::Int),
                    flag.map_or(Model::Null, Model::Bool),
                ])
            }),
        ]),
    };
    model_binary_row(&[field])
}

fn check_row_groups(keys: &Keys, groups: &Groups) -> Verdict {
    let rows = keys.0[0].len();
    if groups.0.len() != rows {
        return Err(format!("{} key groups for {rows} rows", groups.0.len()));
    }
    for r in 0..rows {
        let expected = flink_key_group(&model_row_key(keys, r), MAX_PARALLELISM);
        if groups.0[r] != expected {
            return Err(format!(
                "row {r}: key group {} but the model says {expected}",
                groups.0[r]
            ));
        }
    }
    Ok(())
}

fn check_groups(keys: &Keys, groups: &Groups) -> Verdict {
    let ids = keys.0[0].as_primitive::<Int64Type>();
    let names = keys.0.get(1).map(|c| c.as_string::<i32>());
    if groups.0.len() != ids.len() {
        return Err(format!(
            "{} key groups for {} rows",
            groups.0.len(),
            ids.len()
        ));
    }
    for r in 0..ids.len() {
        let expected = flink_key_group(&model_row(ids, names, r), MAX_PARALLELISM);
        if groups.0[r] != expected {
            return Err(format!(
                "row {r}: key group {} but the model says {expected}",
                groups.0[r]
            ));
        }
    }
    Ok(())
}

fn flink_hash(suite: &mut Suite) {
    let string = LogicalType::VarChar(i32::MAX as u32);
    for rows in ROW_COUNTS {
        for nullable in [false, true] {
            hash_case(
                suite,
                &format!("keys/flink_hash/bigint/rows={rows}/nulls={nullable}"),
                vec![LogicalType::BigInt],
                || bigint_keys(rows, nullable),
                check_groups,
            );
            for width in WIDTHS {
                hash_case(
                    suite,
                    &format!(
                        "keys/flink_hash/bigint_string/rows={rows}/width={width}/nulls={nullable}"
                    ),
                    vec![LogicalType::BigInt, string.clone()],
                    || composite_keys(rows, width, nullable),
                    check_groups,
                );
            }
            hash_case(
                suite,
                &format!("keys/flink_hash/row/rows={rows}/nulls={nullable}"),
                vec![row_key_type()],
                || row_keys(rows, nullable),
                check_row_groups,
            );
        }
    }
}

/// Times key rows + hashes + key groups of `types` over the keys `setup` builds.
fn hash_case(
    suite: &mut Suite,
    id: &str,
    types: Vec<LogicalType>,
    setup: impl FnOnce() -> Keys,
    check: fn(&Keys, &Groups) -> Verdict,
) {
    let hasher = KeyHasher::new(types);
    suite.stateless(
        id,
        setup,
        |keys| {
            Groups(
                hasher
                    .key_groups(&keys.0, MAX_PARALLELISM)
                    .expect("key groups"),
            )
        },
        check,
    );
}

/// The order a state key must keep: id, then name, NULLs first.
fn compare_keys(keys: &Keys, a: usize, b: usize) -> Ordering {
    let ids = keys.0[0].as_primitive::<Int64Type>();
    let names = keys.0[1].as_string::<i32>();
    let id = |r: usize| (!ids.is_null(r)).then(|| ids.value(r));
    let name = |r: usize| (!names.is_null(r)).then(|| names.value(r));
    id(a).cmp(&id(b)).then_with(|| name(a).cmp(&name(b)))
}

/// The order a ROW state key must keep: the ROW's fields in order, NULLs first at every level.
fn compare_row_keys(keys: &Keys, a: usize, b: usize) -> Ordering {
    row_key(keys, a).cmp(&row_key(keys, b))
}

fn check_order(keys: &Keys, rows: &Rows, compare: fn(&Keys, usize, usize) -> Ordering) -> Verdict {
    for r in 1..rows.num_rows() {
        let (got, want) = (rows.row(r - 1).cmp(&rows.row(r)), compare(keys, r - 1, r));
        if got != want {
            return Err(format!(
                "rows {} and {r}: encoded order {got:?}, value order {want:?}",
                r - 1
            ));
        }
    }
    Ok(())
}

fn check_decoded(keys: &Keys, decoded: &[ArrayRef]) -> Verdict {
    for (i, (d, k)) in decoded.iter().zip(&keys.0).enumerate() {
        if d.to_data() != k.to_data() {
            return Err(format!("column {i} does not decode back to the input"));
        }
    }
    Ok(())
}

fn state_keys(suite: &mut Suite) {
    let types = vec![LogicalType::BigInt, LogicalType::VarChar(i32::MAX as u32)];
    for rows in ROW_COUNTS {
        for width in WIDTHS {
            for nullable in [false, true] {
                let shape = format!("bigint_string/rows={rows}/width={width}/nulls={nullable}");
                let codec = StateKeyCodec::try_new(types.clone()).expect("codec");
                suite.stateless(
                    &format!("keys/state_encode/{shape}"),
                    || composite_keys(rows, width, nullable),
                    |keys| Encoded(codec.encode(&keys.0).expect("encode")),
                    |keys, encoded| {
                        check_order(keys, &encoded.0, compare_keys)?;
                        let decoded = codec.decode(encoded.0.iter()).map_err(|e| e.to_string())?;
                        check_decoded(keys, &decoded)
                    },
                );
                let codec = StateKeyCodec::try_new(types.clone()).expect("codec");
                suite.stateless(
                    &format!("keys/state_decode/{shape}"),
                    || {
                        let keys = composite_keys(rows, width, nullable);
                        let encoded = codec.encode(&keys.0).expect("encode");
                        (keys, Encoded(encoded))
                    },
                    |(_, encoded)| Keys(codec.decode(encoded.0.iter()).expect("decode")),
                    |(keys, _), decoded| check_decoded(keys, &decoded.0),
                );
            }
        }
        for nullable in [false, true] {
            state_case(
                suite,
                &format!("row/rows={rows}/nulls={nullable}"),
                vec![row_key_type()],
                move || row_keys(rows, nullable),
                compare_row_keys,
            );
        }
    }
}

/// `state_encode` and `state_decode` cases of `types` over the keys `setup` builds.
fn state_case(
    suite: &mut Suite,
    shape: &str,
    types: Vec<LogicalType>,
    setup: impl Fn() -> Keys,
    compare: fn(&Keys, usize, usize) -> Ordering,
) {
    let codec = StateKeyCodec::try_new(types.clone()).expect("codec");
    suite.stateless(
        &format!("keys/state_encode/{shape}"),
        &setup,
        |keys| Encoded(codec.encode(&keys.0).expect("encode")),
        |keys, encoded| {
            check_order(keys, &encoded.0, compare)?;
            let decoded = codec.decode(encoded.0.iter()).map_err(|e| e.to_string())?;
            check_decoded(keys, &decoded)
        },
    );
    let codec = StateKeyCodec::try_new(types).expect("codec");
    suite.stateless(
        &format!("keys/state_decode/{shape}"),
        || {
            let keys = setup();
            let encoded = codec.encode(&keys.0).expect("encode");
            (keys, Encoded(encoded))
        },
        |(_, encoded)| Keys(codec.decode(encoded.0.iter()).expect("decode")),
        |(keys, _), decoded| check_decoded(keys, &decoded.0),
    );
}

// ---- Checkpoints.

/// A store's complete contents: (table, key) -> value.
type Contents = BTreeMap<(String, Vec<u8>), Vec<u8>>;

fn contents(store: &dyn StateBackend) -> Contents {
    let mut out = Contents::new();
    for (i, name) in store.table_names().iter().enumerate() {
        store
            .scan(TableId::from_index(i), ScanRange::All, &mut |k, v| {
                out.insert((name.clone(), k.to_vec()), v.to_vec());
                true
            })
            .expect("scan");
    }
    out
}

/// Fills `store` with `keys` distinct keys (264-byte UTF-8, arrow-row encoded) across 128
/// key groups, one 16-byte value each.
fn fill(store: &mut dyn StateBackend, keys: usize) {
    let codec = StateKeyCodec::try_new(vec![LogicalType::VarChar(i32::MAX as u32)]).expect("codec");
    let names: ArrayRef = Arc::new(fixtures::utf8(keys, 264, NullPattern::None));
    let groups = KeyHasher::new(vec![LogicalType::VarChar(i32::MAX as u32)])
        .key_groups(std::slice::from_ref(&names), 128)
        .expect("key groups");
    let encoded = codec.encode(&[names]).expect("encode");
    let table = store.open_table("values").expect("table");
    let mut batch = WriteBatch::with_capacity(keys);
    for (row, kg) in groups.iter().enumerate() {
        let key = state_key(*kg as u16, encoded.row(row).as_ref(), &[], &[]);
        batch.put(table, key, (row as u128).to_le_bytes());
    }
    store.write(&batch).expect("write");
}

/// A store of either backend, with the directory that holds it. The cell lets an oracle
/// keep writing to a restored store it only borrows.
struct Store {
    backend: RefCell<Box<dyn StateBackend>>,
    _dir: tempfile::TempDir,
}

impl ArrowBuffers for Store {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

/// A published checkpoint and the contents it must restore.
struct Published {
    checkpoint: Checkpoint,
    expected: Contents,
    _dir: tempfile::TempDir,
}

impl ArrowBuffers for Published {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

fn new_store(rocks: bool) -> Store {
    let dir = tempfile::tempdir().expect("temp dir");
    let backend: Box<dyn StateBackend> = if rocks {
        Box::new(
            RocksBackend::open(&dir.path().join("db"), &RocksOptions::checked_in()).expect("open"),
        )
    } else {
        Box::new(MemoryBackend::new())
    };
    Store {
        backend: RefCell::new(backend),
        _dir: dir,
    }
}

fn published(rocks: bool, keys: usize) -> Published {
    let store = new_store(rocks);
    let mut backend = store.backend.borrow_mut();
    fill(backend.as_mut(), keys);
    let dir = tempfile::tempdir().expect("temp dir");
    let checkpoint =
        checkpoint::publish(backend.as_mut(), &dir.path().join("ckpt"), b"").expect("publish");
    Published {
        checkpoint,
        expected: contents(backend.as_ref()),
        _dir: dir,
    }
}

/// The restored store holds exactly the checkpoint's contents in `key_groups` and keeps
/// accepting writes.
fn check_restored(
    input: &Published,
    restored: &Store,
    key_groups: &RangeInclusive<u16>,
) -> Verdict {
    let mut backend = restored.backend.borrow_mut();
    let got = contents(backend.as_ref());
    let expected: Contents = input
        .expected
        .iter()
        .filter(|((_, k), _)| key_groups.contains(&u16::from_be_bytes([k[0], k[1]])))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if got != expected {
        return Err(format!(
            "restored {} entries, the checkpoint holds {} in key groups {key_groups:?}",
            got.len(),
            expected.len()
        ));
    }
    // Keep processing: overwrite one restored entry (if the range kept any), add a new one,
    // read both back.
    let table = backend.open_table("values").map_err(|e| e.to_string())?;
    let first = expected.first_key_value().map(|((_, k), _)| k.clone());
    let fresh = state_key(5, b"after-restore", &[], &[]);
    let mut batch = WriteBatch::new();
    let mut keys: Vec<&[u8]> = Vec::new();
    let mut want = Vec::new();
    if let Some(first) = &first {
        batch.put(table, first, b"updated");
        keys.push(first);
        want.push(Some(b"updated".to_vec()));
    }
    batch.put(table, &fresh, b"new");
    keys.push(&fresh);
    want.push(Some(b"new".to_vec()));
    backend.write(&batch).map_err(|e| e.to_string())?;
    let read = backend.multi_get(table, &keys).map_err(|e| e.to_string())?;
    expect_eq("values written after restore", &read, &want)
}

fn checkpoints(suite: &mut Suite) {
    for (rocks, backend) in [(false, "memory"), (true, "rocksdb")] {
        for keys in key_domains() {
            suite.stateful(
                &format!("checkpoint/{backend}/keys={keys}"),
                || (),
                |()| {
                    let store = new_store(rocks);
                    fill(store.backend.borrow_mut().as_mut(), keys);
                    (store, tempfile::tempdir().expect("temp dir"))
                },
                |(store, target), ()| Published {
                    checkpoint: checkpoint::publish(
                        store.backend.get_mut().as_mut(),
                        &target.path().join("ckpt"),
                        b"",
                    )
                    .expect("publish"),
                    expected: Contents::new(),
                    _dir: tempfile::tempdir().expect("temp dir"),
                },
                |(), out| {
                    let opened =
                        Checkpoint::open(out.checkpoint.path()).map_err(|e| e.to_string())?;
                    expect_eq("files", &opened.manifest().files.is_empty(), &false)
                },
            );
            // Half of the key groups is what each subtask restores when rescaling 1 -> 2.
            let modes: &[(&str, RangeInclusive<u16>)] = if rocks {
                &[
                    ("aligned", 0..=127),
                    ("rebuilt", 0..=127),
                    ("rebuilt_half", 0..=63),
                    ("clipped_half", 0..=63),
                ]
            } else {
                &[("aligned", 0..=127), ("rebuilt", 0..=127)]
            };
            for (mode, range) in modes.iter().cloned() {
                let checked = range.clone();
                suite.stateful(
                    &format!("restore/{backend}/{mode}/keys={keys}"),
                    || published(rocks, keys),
                    |_| tempfile::tempdir().expect("scratch"),
                    move |scratch, input| {
                        let options = RocksOptions::checked_in();
                        let working = scratch.path().join("restored");
                        let backend: Box<dyn StateBackend> = match (mode, rocks) {
                            ("aligned", false) => Box::new(
                                checkpoint::restore_memory(&input.checkpoint).expect("restore"),
                            ),
                            ("aligned", true) => Box::new(
                                checkpoint::restore_rocks(
                                    &input.checkpoint,
                                    &working,
                                    &options,
                                    Arc::new(SystemClock),
                                )
                                .expect("restore"),
                            ),
                            ("clipped_half", _) => Box::new(
                                checkpoint::restore_rocks_clipped(
                                    &input.checkpoint,
                                    &range,
                                    &working,
                                    &options,
                                    Arc::new(SystemClock),
                                )
                                .expect("restore"),
                            ),
                            (_, rocks) => {
                                let mut target: Box<dyn StateBackend> = if rocks {
                                    Box::new(RocksBackend::open(&working, &options).expect("open"))
                                } else {
                                    Box::new(MemoryBackend::new())
                                };
                                checkpoint::rebuild(
                                    std::slice::from_ref(&input.checkpoint),
                                    &range,
                                    target.as_mut(),
                                    &options,
                                    &scratch.path().join("scratch"),
                                )
                                .expect("rebuild");
                                target
                            }
                        };
                        Store {
                            backend: RefCell::new(backend),
                            _dir: tempfile::tempdir().expect("temp dir"),
                        }
                    },
                    move |input, restored| check_restored(input, restored, &checked),
                );
            }
        }
    }
}
