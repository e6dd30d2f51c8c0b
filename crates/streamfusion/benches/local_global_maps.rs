//! The `local_global_maps` suite: two-phase GROUP BY whose partials carry value maps,
//! retracting `MAX(v)`, `MIN(v)` and `COUNT(DISTINCT v)`, `SUM(DISTINCT v)` beside `COUNT(*)`,
//! through `TwoPhaseAdapter` (thin calls into the production operators).
//!
//! Measured boundaries:
//! - `local/...`: the local phase's update of one bundle (a single physical batch), then its
//!   flush: one partial row per key with its `max`/`min`, `mapSize` and value -> count maps
//!   (typed Arrow maps). A fresh operator per iteration, created outside timing.
//! - `global/...`: the global phase's merge of that bundle's partials into empty memory
//!   state, then its flush: partials merged into heap buffers, then into fresh accumulators,
//!   maps outgrowing an accumulator written to the sorted-map table.
//!
//! Fixtures: 16/1,024/16,384 rows of BIGINT values (NULL every 7th) under STRING keys, either
//! `hot` (16 keys, so a key's maps hold up to 1,024 distinct values) or `unique` (one key per
//! row); every third row is retracted again at the end of the bundle (`-U`), so counts
//! cancel. Checked before timing against an independent multiset oracle: each partial's
//! fields (counts, positive entries, extrema, the distinct map, the row count) and the global
//! changelog (one `+I` per key that still has rows, with every result, complete schema).

mod group_fixtures;

use std::collections::BTreeMap;

use arrow::array::{Array, ArrayData, AsArray, RecordBatch};
use arrow::datatypes::{DataType, Int64Type};
use bench_support::buffers::ArrowBuffers;
use bench_support::group_model::{INSERT, UPDATE_BEFORE};
use bench_support::{Suite, Verdict, expect_eq};
use group_fixtures::{Change, V, check_changes, input, spec};
use streamfusion::aggregate::{AggCall, AggFunction, GlobalGroupAggregate, LocalGroupAggregate};
use streamfusion::bench::TwoPhaseAdapter;
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const ROWS: [usize; 3] = [16, 1_024, 16_384];
const HOT_KEYS: usize = 16;
const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);

fn main() {
    let mut suite = Suite::new("local_global_maps");
    for keys in [Keys::Hot, Keys::Unique] {
        for rows in ROWS {
            let fixture = Bundle::new(keys, rows);
            let id = format!("{}/rows={rows}", keys.name());
            local_case(&mut suite, &format!("local/{id}"), fixture.clone());
            global_case(&mut suite, &format!("global/{id}"), fixture);
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy)]
enum Keys {
    Hot,
    Unique,
}

impl Keys {
    fn name(self) -> &'static str {
        match self {
            Keys::Hot => "hot",
            Keys::Unique => "unique",
        }
    }
}

/// One bundle: `(kind, key, value)` rows.
#[derive(Debug, Clone)]
struct Bundle {
    rows: Vec<(i8, String, Option<i64>)>,
}

impl Bundle {
    fn new(keys: Keys, rows: usize) -> Self {
        let key = |r: usize| match keys {
            Keys::Hot => format!("hot-{:02}", r % HOT_KEYS),
            Keys::Unique => format!("key-{r:06}"),
        };
        // Values repeat within a key (a hot key sees about rows / 32 distinct ones).
        let value =
            |r: usize| (!r.is_multiple_of(7)).then(|| ((r * 7_919) % (rows / 2).max(1)) as i64);
        let mut out: Vec<(i8, String, Option<i64>)> =
            (0..rows).map(|r| (INSERT, key(r), value(r))).collect();
        out.extend(
            (0..rows)
                .filter(|r| r % 3 == 1)
                .map(|r| (UPDATE_BEFORE, key(r), value(r))),
        );
        Self { rows: out }
    }

    fn batch(&self) -> ChangelogBatch {
        let kinds: Vec<i8> = self.rows.iter().map(|r| r.0).collect();
        let keys: Vec<V> = self.rows.iter().map(|r| V::Str(r.1.clone())).collect();
        let values: Vec<V> = self
            .rows
            .iter()
            .map(|r| r.2.map_or(V::Null, V::Int))
            .collect();
        input(&kinds, &STRING, &keys, &[(&LogicalType::BigInt, values)])
    }

    /// The oracle: per key in order of first appearance, its rows (+1/-1) and each value's
    /// net count (zero counts dropped). The bundle is consistent (a retraction takes back an
    /// earlier row), so no count is negative.
    fn groups(&self) -> Vec<Group> {
        let mut order: Vec<String> = Vec::new();
        let mut groups: BTreeMap<String, Group> = BTreeMap::new();
        for (kind, key, value) in &self.rows {
            let step = if *kind == INSERT { 1 } else { -1 };
            let group = groups.entry(key.clone()).or_insert_with(|| {
                order.push(key.clone());
                Group {
                    key: key.clone(),
                    rows: 0,
                    counts: BTreeMap::new(),
                    any_value: false,
                }
            });
            group.rows += step;
            if let Some(v) = value {
                *group.counts.entry(*v).or_insert(0) += step;
                group.any_value = true;
            }
        }
        order
            .into_iter()
            .map(|key| {
                let mut group = groups.remove(&key).expect("grouped");
                group.counts.retain(|_, c| *c != 0);
                group
            })
            .collect()
    }
}

/// One key of a bundle, as the oracle sees it.
struct Group {
    key: String,
    /// Rows accumulated minus rows retracted.
    rows: i64,
    /// Each value's net count, zero counts dropped.
    counts: BTreeMap<i64, i64>,
    /// Whether a non-NULL value arrived (SUM's sum is NULL until one does).
    any_value: bool,
}

impl Group {
    /// Distinct values left, and their sum (wrapping, as Java's `long`).
    fn distinct(&self) -> (i64, i64) {
        let sum = self.counts.keys().fold(0i64, |a, v| a.wrapping_add(*v));
        (self.counts.len() as i64, sum)
    }
}

fn adapter() -> TwoPhaseAdapter {
    let calls = vec![
        AggCall::new(AggFunction::CountStar, None, "cnt"),
        AggCall::new(AggFunction::Max, Some(1), "mx"),
        AggCall::new(AggFunction::Min, Some(1), "mn"),
        AggCall::new(AggFunction::Count, Some(1), "cd").distinct(),
        AggCall::new(AggFunction::Sum, Some(1), "sd").distinct(),
    ];
    TwoPhaseAdapter {
        spec: spec(&STRING, &[LogicalType::BigInt], calls, true, true),
    }
}

/// The partial field names, in order.
const PARTIAL_FIELDS: [&str; 13] = [
    "k",
    "cnt$count",
    "mx$max",
    "mx$mapSize",
    "mx$map",
    "mn$min",
    "mn$mapSize",
    "mn$map",
    "cd$count",
    "cd$distinct",
    "sd$sum",
    "sd$count",
    "sd$distinct",
];

/// A BIGINT -> BIGINT map column's entries at `row`.
fn map_at(batch: &RecordBatch, column: usize, row: usize) -> Result<BTreeMap<i64, i64>, String> {
    let list = batch
        .column(column)
        .as_list_opt::<i32>()
        .ok_or_else(|| format!("partial column {column} is not a list of entries"))?;
    let entries = list.value(row);
    let entries = entries.as_struct();
    let keys = entries.column(0).as_primitive::<Int64Type>();
    let counts = entries.column(1).as_primitive::<Int64Type>();
    Ok((0..entries.len())
        .map(|i| (keys.value(i), counts.value(i)))
        .collect())
}

/// Every partial row is its key's oracle: counts, maps of net counts, positive entries,
/// extrema; and the whole schema.
fn check_partials(out: &[RecordBatch], bundle: &Bundle) -> Verdict {
    let groups = bundle.groups();
    let mut row = 0;
    for batch in out {
        let schema = batch.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        expect_eq("partial fields", &names.as_slice(), &&PARTIAL_FIELDS[..])?;
        let int = |c: usize, i: usize| {
            let a = batch.column(c).as_primitive::<Int64Type>();
            a.is_valid(i).then(|| a.value(i))
        };
        for i in 0..batch.num_rows() {
            let group = groups
                .get(row)
                .ok_or_else(|| format!("partial row {row} beyond the bundle's keys"))?;
            let (key, counts) = (&group.key, &group.counts);
            let what = |field: &str| format!("partial row {row} ({key}) {field}");
            expect_eq(
                &what("key"),
                &batch.column(0).as_string::<i32>().value(i),
                &key.as_str(),
            )?;
            let (positive, distinct_sum) = group.distinct();
            expect_eq(&what("count"), &int(1, i), &Some(group.rows))?;
            expect_eq(
                &what("max"),
                &int(2, i),
                &counts.keys().next_back().copied(),
            )?;
            expect_eq(&what("max mapSize"), &int(3, i), &Some(positive))?;
            expect_eq(&what("max map"), &map_at(batch, 4, i)?, counts)?;
            expect_eq(&what("min"), &int(5, i), &counts.keys().next().copied())?;
            expect_eq(&what("min mapSize"), &int(6, i), &Some(positive))?;
            expect_eq(&what("min map"), &map_at(batch, 7, i)?, counts)?;
            expect_eq(&what("distinct count"), &int(8, i), &Some(positive))?;
            expect_eq(&what("distinct map"), &map_at(batch, 9, i)?, counts)?;
            // The inner SUM's raw sum: NULL until a value arrived, 0 once all are retracted.
            let sum = group.any_value.then_some(distinct_sum);
            expect_eq(&what("distinct sum"), &int(10, i), &sum)?;
            expect_eq(&what("distinct sum count"), &int(11, i), &Some(positive))?;
            expect_eq(&what("distinct sum map"), &map_at(batch, 12, i)?, counts)?;
            row += 1;
        }
    }
    expect_eq("partial rows", &row, &groups.len())
}

struct LocalFixture {
    adapter: TwoPhaseAdapter,
    bundle: Bundle,
    inputs: Vec<ChangelogBatch>,
}

impl ArrowBuffers for LocalFixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.inputs.collect_arrays(out);
    }
}

fn local_case(suite: &mut Suite, id: &str, bundle: Bundle) {
    suite.stateful(
        id,
        || LocalFixture {
            adapter: adapter(),
            inputs: vec![bundle.batch()],
            bundle,
        },
        |f| f.adapter.local().expect("local operator"),
        |local: &mut LocalGroupAggregate, f| {
            f.adapter
                .local_update(local, &f.inputs)
                .expect("local update")
        },
        |f, out| check_partials(out, &f.bundle),
    );
}

struct GlobalFixture {
    adapter: TwoPhaseAdapter,
    partials: Vec<RecordBatch>,
    expected: Vec<Change>,
}

impl ArrowBuffers for GlobalFixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.partials.collect_arrays(out);
    }
}

/// One `+I` per key with rows left, in order of first appearance: COUNT(*), MAX, MIN,
/// COUNT(DISTINCT), SUM(DISTINCT) of its live values.
fn expected_changes(bundle: &Bundle) -> Vec<Change> {
    bundle
        .groups()
        .into_iter()
        .filter(|g| g.rows != 0)
        .map(|g| {
            let int = |v: Option<i64>| v.map_or(V::Null, V::Int);
            let (distinct, sum) = g.distinct();
            (
                INSERT,
                V::Str(g.key.clone()),
                vec![
                    V::Int(g.rows),
                    int(g.counts.keys().next_back().copied()),
                    int(g.counts.keys().next().copied()),
                    V::Int(distinct),
                    int((distinct > 0).then_some(sum)),
                ],
            )
        })
        .collect()
}

fn global_case(suite: &mut Suite, id: &str, bundle: Bundle) {
    suite.stateful(
        id,
        || {
            let adapter = adapter();
            let mut local = adapter.local().expect("local operator");
            let partials = adapter
                .local_update(&mut local, &[bundle.batch()])
                .expect("local update");
            GlobalFixture {
                adapter,
                partials,
                expected: expected_changes(&bundle),
            }
        },
        |f| f.adapter.global().expect("global operator"),
        |global: &mut GlobalGroupAggregate, f| {
            f.adapter
                .global_update(global, &f.partials)
                .expect("global update")
        },
        |f, out| {
            check_changes(
                out,
                &["k", "cnt", "mx", "mn", "cd", "sd"],
                &[
                    DataType::Utf8,
                    DataType::Int64,
                    DataType::Int64,
                    DataType::Int64,
                    DataType::Int64,
                    DataType::Int64,
                ],
                &f.expected,
            )
        },
    );
}
