//! Regular streaming joins: Flink's `StreamExecJoin`, run in released Flink 2.3.0 by
//! `StreamingJoinOperator` (INNER, LEFT, RIGHT and FULL OUTER) and
//! `StreamingSemiAntiJoinOperator` (SEMI and ANTI), ported from their bytecode.
//!
//! Rows of either input are kept per join key ([`side`]: one value per key and input, in
//! the layout Flink's `JoinInputSideSpec` picks from the input's unique keys). A row is
//! joined with the other input's rows of its key that pass the non-equi condition (none
//! while the key has a NULL in a column Flink filters NULLs on, as its
//! `JoinConditionWithNullFilters` has it; the row is stored all the same).
//!
//! # Emission (`StreamingJoinOperator.processElement`)
//!
//! The other input's matching rows are walked once, each emitted as often as it has copies,
//! and an outer input's association counts are read as the walk reaches a row (so every copy
//! of a row sees the count it had before the walk) and written back as each copy is joined:
//!
//! - `+I`/`+U` on an outer input: no match emits `+I[row, NULL]` and stores the row with 0
//!   associations; otherwise, per match, `-D[NULL, other]` when the other input is outer and
//!   `other` had no association, then `+I[row, other]`; the row is stored with the number of
//!   matches.
//! - `+I`/`+U` on an inner input: the row is stored; per match, the same `-D` of the other's
//!   padding and `+I[row, other]` when the other input is outer, else the row's own kind.
//! - `-U`/`-D`: the row is retracted from state; no match emits `-D[row, NULL]` on an outer
//!   input; otherwise per match `-D[row, other]` (outer input) or the row's own kind, then
//!   `+I[NULL, other]` when the other input is outer and this was `other`'s last association.
//!
//! SEMI/ANTI (`StreamingSemiAntiJoinOperator`) emit left rows only: a left row is emitted
//! with its own kind when it has a match (SEMI) or none (ANTI), then stored with its number
//! of matches or retracted; a right row is stored or retracted, and each left row whose
//! association count it moves from 0 to 1 (or 1 to 0) is emitted: as `-D` (ANTI) or the
//! right row's kind (SEMI) when the count rises, as `+I` (ANTI) or the right row's kind
//! (SEMI) when it falls.
//!
//! Within a batch (which arrives on one input) the other input's rows do not change, only
//! their association counts, so the condition is evaluated once for every pair of an input
//! row and a stored row of its key, vectorized.
//!
//! # State
//!
//! `join.left` and `join.right`: one entry per record, `[key group][join key row][lookup]`
//! ([`side`]), as Flink's RocksDB map state keeps them (decision 0047). A batch reads the
//! other input's records of each key whole (one prefix scan) and only the entries its own
//! rows look up (one batched point read), so adding a row costs a point read and a write,
//! not its key's size. Whole sides stay cached between batches ([`PartitionCache`],
//! decision 0034) and their changed records are written when they leave the cache and
//! before every checkpoint; the changes of the others are written after each batch. State TTL
//! is Flink's (`OnCreateAndWrite`, `NeverReturnExpired`, per input): each record keeps the
//! processing time it was last written (added, counted, its association count updated), and
//! a record whose TTL ran out is gone the next time its key is read.
//!
//! # Mini-batch
//!
//! With [`JoinSpec::mini_batch_rows`] the join is Flink's `MiniBatchStreamingJoinOperator`
//! ([`bundle`]): both inputs' rows are buffered, folded, and joined a bundle at a time, with
//! the suppression of update pairs described there. SEMI and ANTI joins have no mini-batch
//! operator in Flink and take no bundle size.

mod bundle;
mod columnar;
mod emit;
pub mod interval;
mod java_map;
mod pairs;
pub mod retention;
pub mod side;
pub mod temporal;
pub mod temporal_proctime;
pub mod window;

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, UInt32Array};
use arrow::compute::take;
use arrow::datatypes::{Field, Schema, SchemaRef};
use serde::{Deserialize, Serialize};

use crate::aggregate::group::{access_order, check_columns, concat};
use crate::binary_row::{BinaryRows, RowReader, RowWriter};
use crate::calc::{CalcProgram, CompiledCalc, compile};
use crate::changelog::{ChangelogBatch, RowKind};
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::ops::keyed::{Keyed, KeyedOperator};
use crate::ops::partition_cache::{CAPACITY_BYTES, PartitionCache};
use crate::ops::{Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::state::rows::Groups;
use crate::state::{ScanRange, TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;
use bundle::{Folded, JoinBundle};
use columnar::Columnar;
use emit::JoinEmissions;
use side::{Layout, Side};

/// The version of the join state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 2;
const TABLES: [&str; 2] = ["join.left", "join.right"];
/// The most (input row, stored row) pairs one evaluation of the condition takes.
const MAX_PAIRS: usize = 1 << 16;

/// The join's type, as Flink's `FlinkJoinType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JoinType {
    Inner,
    Left,
    Right,
    Full,
    Semi,
    Anti,
}

impl JoinType {
    /// Whether input `port`'s unmatched rows are emitted padded (SEMI/ANTI keep association
    /// counts on the left as an outer input does).
    fn outer(self, port: Port) -> bool {
        match self {
            JoinType::Inner => false,
            JoinType::Left => port == 0,
            JoinType::Right => port == 1,
            JoinType::Full => true,
            JoinType::Semi | JoinType::Anti => port == 0,
        }
    }

    /// Whether the output is the left rows alone (SEMI, ANTI).
    pub fn semi_anti(self) -> bool {
        matches!(self, JoinType::Semi | JoinType::Anti)
    }
}

/// How an input keeps its rows: Flink's `JoinInputSideSpec`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum InputState {
    /// The join key contains a unique key of the input: one row per join key.
    JoinKey,
    /// A unique key (these columns) the join key does not contain: rows by unique key.
    UniqueKey { columns: Vec<usize> },
    /// No unique key: rows counted.
    NoUniqueKey,
}

impl InputState {
    fn layout(&self) -> Layout {
        match self {
            InputState::JoinKey => Layout::JoinKey,
            InputState::UniqueKey { .. } => Layout::UniqueKey,
            InputState::NoUniqueKey => Layout::NoUniqueKey,
        }
    }
}

/// One input of a join.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinInput {
    /// Column names (the output's, for this input's part of it).
    pub names: Vec<String>,
    /// Column types.
    pub types: Vec<LogicalType>,
    /// The equi-join key columns, pairwise with the other input's.
    pub keys: Vec<usize>,
    /// How its rows are kept.
    pub state: InputState,
    /// Its state's TTL (`leftStateRetentionTime`/`rightStateRetentionTime`); `None` or zero
    /// is off.
    #[serde(rename = "state_ttl_ms", with = "crate::ops::plan::millis", default)]
    pub state_ttl: Option<Duration>,
}

/// A regular join's plan, as JSON: `{"join_type": "left", "left": {"names": ["k", "v"],
/// "types": ["BIGINT", "INT"], "keys": [0], "state": {"kind": "no_unique_key"},
/// "state_ttl_ms": null}, "right": {...}, "filter_nulls": [true], "condition": null,
/// "max_parallelism": 128}`. The output is the left row then the right row (the left row
/// alone for SEMI/ANTI).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinSpec {
    pub join_type: JoinType,
    pub left: JoinInput,
    pub right: JoinInput,
    /// Per key column: whether a NULL there stops the key from matching (`false` for
    /// `IS NOT DISTINCT FROM` keys).
    pub filter_nulls: Vec<bool>,
    /// The non-equi condition: a program over the joined row (left columns, then right)
    /// projecting one BOOLEAN; a row pair matches when it is TRUE.
    pub condition: Option<CalcProgram>,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
    /// Mini-batch: the bundle size (`table.exec.mini-batch.size`), rows of both inputs;
    /// `None` joins every row as it arrives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mini_batch_rows: Option<usize>,
}

impl JoinSpec {
    /// What of the plan decides the state: the join type, both inputs' types, keys and
    /// layouts. Names, the condition and NULL filtering only decide what matches.
    pub fn semantics(&self) -> serde_json::Value {
        let input = |i: &JoinInput| {
            serde_json::json!({
                "types": i.types.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "keys": i.keys,
                "state": i.state,
            })
        };
        serde_json::json!({
            "join_type": self.join_type,
            "left": input(&self.left),
            "right": input(&self.right),
        })
    }

    fn input(&self, port: Port) -> &JoinInput {
        if port == 0 { &self.left } else { &self.right }
    }

    /// The output's column types: the left input's, then the right's (not for SEMI/ANTI).
    pub fn output_types(&self) -> Vec<LogicalType> {
        let mut types = self.left.types.clone();
        if !self.join_type.semi_anti() {
            types.extend(self.right.types.iter().cloned());
        }
        types
    }

    /// The output's column names, as [`JoinSpec::output_types`].
    pub fn output_names(&self) -> Vec<String> {
        let mut names = self.left.names.clone();
        if !self.join_type.semi_anti() {
            names.extend(self.right.names.iter().cloned());
        }
        names
    }
}

/// What a batch's rows bring besides their columns.
struct Prepared {
    rows: BinaryRows,
    uniques: Option<BinaryRows>,
    /// Whether the row's key has a NULL where NULLs are filtered: it matches nothing.
    null_keys: Vec<bool>,
}

/// Which stored rows of the other input each input row of a segment's condition accepts:
/// the segment's `i`-th row and stored row `e` of its key match when
/// `accepted[starts[i] + e]`.
struct Accepted {
    starts: Vec<usize>,
    accepted: Vec<bool>,
}

/// Per input (left, right): a value of each.
type Both<T> = [T; 2];

/// The regular join over one task's keyed state.
pub struct Join {
    spec: JoinSpec,
    identity: PlanIdentity,
    keyed: Keyed,
    hasher: KeyHasher,
    writers: Both<RowWriter>,
    /// Each input's unique key columns and their row writer (layout `UniqueKey`).
    unique_keys: Both<Option<(Vec<usize>, RowWriter)>>,
    readers: Both<RowReader>,
    layouts: Both<Layout>,
    tables: Both<TableId>,
    caches: Both<PartitionCache<Side>>,
    /// Each input's state TTL in milliseconds, if on.
    ttls: Both<Option<i64>>,
    /// The non-equi condition, and the schema of the (left, right) pairs it evaluates.
    condition: Option<Condition>,
    schema: SchemaRef,
    output_types: Vec<LogicalType>,
    /// The rows of the mini-batch bundle being buffered (mini-batch plans).
    bundle: Option<JoinBundle>,
    /// Both inputs' rows as Arrow batches, while an inner join on the memory backend has
    /// seen only `+I` rows ([`columnar`]); `None` once the row-state join took over.
    columnar: Option<Columnar>,
    /// Set when a batch failed after taking sides out of the caches (or a bundle failed
    /// after it was taken): the state is then inconsistent, and the operator refuses
    /// everything.
    failed: Option<String>,
}

impl std::fmt::Debug for Join {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Join")
            .field("join_type", &self.spec.join_type)
            .field("layouts", &self.layouts)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

impl Join {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &JoinSpec) -> PlanIdentity {
        PlanIdentity::new(OperatorKind::Join, STATE_VERSION, &spec.semantics())
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored). A plan it
    /// cannot run as Flink would (keys of different types, a condition that is not a
    /// BOOLEAN) is an error.
    pub fn open(spec: JoinSpec, mut keyed: Keyed) -> Result<Self> {
        let condition = check_spec(&spec)?;
        let bundle = match spec.mini_batch_rows {
            Some(_) if spec.join_type.semi_anti() => {
                return Err(Error::Plan(format!(
                    "a {:?} join has no mini-batch operator in Flink: it takes no bundle size",
                    spec.join_type
                )));
            }
            Some(rows) => Some(JoinBundle::new(rows)?),
            None => None,
        };
        if keyed.max_parallelism() != spec.max_parallelism {
            return Err(Error::OutOfRange(format!(
                "the plan's max parallelism is {} but its state has {} key groups",
                spec.max_parallelism,
                keyed.max_parallelism()
            )));
        }
        let tables = [
            keyed
                .store_mut()
                .open_table_with(TABLES[0], TableAccess::Ordered)?,
            keyed
                .store_mut()
                .open_table_with(TABLES[1], TableAccess::Ordered)?,
        ];
        let key_types: Vec<LogicalType> = spec
            .left
            .keys
            .iter()
            .map(|&k| spec.left.types[k].clone())
            .collect();
        let unique_key = |input: &JoinInput| match &input.state {
            InputState::UniqueKey { columns } => Some((
                columns.clone(),
                RowWriter::new(columns.iter().map(|&c| input.types[c].clone()).collect()),
            )),
            _ => None,
        };
        let fields: Vec<Field> = spec
            .output_names()
            .iter()
            .zip(spec.output_types())
            .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
            .collect();
        let columnar = columnar::applies(&spec, keyed.backend()).then(|| {
            Columnar::new(
                key_types.clone(),
                [&spec.left, &spec.right].map(|i| RowReader::new(i.types.clone()).schema().clone()),
            )
        });
        let mut join = Self {
            identity: Self::identity_of(&spec),
            hasher: KeyHasher::new(key_types),
            writers: [
                RowWriter::new(spec.left.types.clone()),
                RowWriter::new(spec.right.types.clone()),
            ],
            unique_keys: [unique_key(&spec.left), unique_key(&spec.right)],
            readers: [
                RowReader::new(spec.left.types.clone()),
                RowReader::new(spec.right.types.clone()),
            ],
            layouts: [spec.left.state.layout(), spec.right.state.layout()],
            tables,
            caches: [
                PartitionCache::new(CAPACITY_BYTES),
                PartitionCache::new(CAPACITY_BYTES),
            ],
            ttls: [ttl_ms(&spec.left), ttl_ms(&spec.right)],
            condition,
            schema: Arc::new(Schema::new(fields)),
            output_types: spec.output_types(),
            bundle,
            columnar,
            failed: None,
            keyed,
            spec,
        };
        if let Some(columnar) = &mut join.columnar {
            columnar.load(
                &join.keyed,
                &join.tables,
                &join.readers,
                [&join.spec.left.keys, &join.spec.right.keys],
            )?;
            let bytes = columnar.bytes();
            columnar.reserve(&mut join.keyed, bytes)?;
        }
        Ok(join)
    }

    /// Joins an insert-only batch in the columnar state, if the join keeps one; hands over
    /// to the row-state join (writing the kept rows the store lacks) at the first batch
    /// that is not insert-only. `None` when the row-state join is to take the batch.
    fn join_columnar(
        &mut self,
        port: Port,
        input: &ChangelogBatch,
    ) -> Result<Option<ChangelogBatch>> {
        if self.columnar.is_none() {
            return Ok(None);
        }
        self.check_input(port, input)?;
        let Some(columnar) = &mut self.columnar else {
            return Ok(None);
        };
        let keys = [&self.spec.left.keys[..], &self.spec.right.keys[..]];
        if input.is_insert_only() {
            let plan = columnar::Plan {
                keys,
                filter_nulls: &self.spec.filter_nulls,
                writers: &self.writers,
                condition: self.condition.as_ref(),
                schema: &self.schema,
            };
            // Reserved first, as if every row were a new key: a refused budget changes
            // nothing. Afterwards the reservation is what the rows hold.
            let held = columnar.bytes();
            columnar.reserve(
                &mut self.keyed,
                held + columnar.estimate(port, input.batch()),
            )?;
            let joined = columnar.join(port, input, &plan);
            let held = columnar.bytes();
            let reserved = columnar.reserve(&mut self.keyed, held);
            let joined = joined?;
            if let Err(e) = reserved {
                // The rows are kept, past what the budget holds for them.
                self.failed = Some(e.to_string());
                return Err(e);
            }
            return Ok(Some(joined));
        }
        self.write_columnar()?;
        if let Some(mut columnar) = self.columnar.take() {
            columnar.reserve(&mut self.keyed, 0)?;
        }
        Ok(None)
    }

    /// Writes the columnar state's rows the store lacks.
    fn write_columnar(&mut self) -> Result<()> {
        let Some(columnar) = &mut self.columnar else {
            return Ok(());
        };
        let store = columnar::Store {
            keyed: &mut self.keyed,
            hasher: &self.hasher,
            tables: &self.tables,
        };
        columnar.write(
            store,
            &self.writers,
            [&self.spec.left.keys, &self.spec.right.keys],
        )
    }

    /// The plan.
    pub fn spec(&self) -> &JoinSpec {
        &self.spec
    }

    /// The keyed driver (store, key groups, watermark).
    pub fn keyed(&self) -> &Keyed {
        &self.keyed
    }

    fn check_usable(&self) -> Result<()> {
        match &self.failed {
            None => Ok(()),
            Some(why) => Err(Error::State(format!(
                "the join failed in an earlier batch and holds no consistent state: {why}"
            ))),
        }
    }

    /// Checks a batch arriving on `port` before anything is done with it.
    fn check_input(&self, port: Port, input: &ChangelogBatch) -> Result<()> {
        self.check_usable()?;
        if port > 1 {
            return Err(Error::OutOfRange(format!(
                "a join has inputs 0 and 1; a batch arrived on input {port}"
            )));
        }
        let context = if port == 0 {
            "join left input batch"
        } else {
            "join right input batch"
        };
        check_columns(context, &self.spec.input(port).types, input.batch())
    }

    /// Buffers a batch arriving on `port` in the mini-batch bundle, applying the bundle each
    /// time it fills (a batch may fill it several times, exactly at its size, as Flink's
    /// count trigger fires on the row that fills it).
    fn buffer(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        self.check_input(port, input)?;
        let mut at = 0;
        while at < input.num_rows() {
            let bundle = self.bundle.as_mut().expect("a mini-batch join");
            let rows = bundle.room().min(input.num_rows() - at);
            let full = bundle.add(port, input.slice(at, rows));
            at += rows;
            if full {
                self.finish_bundle(out)?;
            }
        }
        Ok(())
    }

    /// Applies the buffered bundle (`MiniBatchStreamingJoinOperator.finishBundle`): each
    /// input's rows folded, the right input's joined first (the left's for a RIGHT join).
    /// Its rows are taken first, so a failure leaves the operator refusing everything.
    fn finish_bundle(&mut self, out: &mut Output) -> Result<()> {
        if self.bundle.as_ref().is_none_or(JoinBundle::is_empty) {
            return Ok(());
        }
        self.check_usable()?;
        let pending = self.bundle.as_mut().expect("a bundle").take();
        let first = if self.spec.join_type == JoinType::Right {
            0
        } else {
            1
        };
        for port in [first, 1 - first] {
            if pending[port].is_empty() {
                continue;
            }
            let applied = concat(&pending[port]).and_then(|batch| {
                let folded = self.fold(port, &batch)?;
                if folded.order.is_empty() {
                    return Ok(None);
                }
                let batch = folded.take(&batch)?;
                self.apply(port, &batch, Some(&folded.suppress)).map(Some)
            });
            match applied {
                Ok(Some(changes)) => out.emit(changes),
                Ok(None) => {}
                Err(e) => {
                    self.failed.get_or_insert_with(|| e.to_string());
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// One input's bundle folded as Flink's bundle for the input's layout folds it.
    fn fold(&self, port: Port, batch: &ChangelogBatch) -> Result<Folded> {
        let (groups, row_group) =
            self.keyed
                .groups(&self.hasher, batch.batch(), &self.spec.input(port).keys)?;
        let kinds: Vec<RowKind> = (0..batch.num_rows()).map(|r| batch.kind(r)).collect();
        let layout = self.layouts[port];
        // The rows and unique keys as the join itself encodes them (`+I` headers).
        let prepared = self.prepare(port, batch)?;
        Ok(bundle::fold(
            layout,
            &kinds,
            &row_group,
            groups.len(),
            |r| match layout {
                Layout::JoinKey => &[][..],
                Layout::UniqueKey => prepared.uniques.as_ref().map_or(&[][..], |u| u.row(r)),
                Layout::NoUniqueKey => prepared.rows.row(r),
            },
        ))
    }

    /// Joins one batch arriving on `port`, row by row in input order; returns its changelog.
    /// `suppress` marks the rows of a mini-batch bundle's update pairs ([`bundle`]).
    fn apply(
        &mut self,
        port: Port,
        input: &ChangelogBatch,
        suppress: Option<&[bool]>,
    ) -> Result<ChangelogBatch> {
        self.check_input(port, input)?;
        if input.num_rows() == 0 {
            return self.output(port, input, &JoinEmissions::default());
        }
        // What left the caches after the last batch is written first: a failure here
        // changes nothing.
        self.write_evicted()?;
        let (groups, row_group) =
            self.keyed
                .groups(&self.hasher, input.batch(), &self.spec.input(port).keys)?;
        let order = access_order(self.keyed.store(), &self.tables, &groups);
        // Everything that reads the input comes before the sides are taken.
        let prepared = self.prepare(port, input)?;
        // Processing time, read once: what state TTL stamps and expires by.
        let now = if self.ttls.iter().any(Option::is_some) {
            self.keyed.clock().now_millis()
        } else {
            0
        };
        let mut sides = self.read(port, &groups, &order, &prepared, &row_group)?;
        for (input, ttl) in self.ttls.iter().enumerate() {
            if let Some(ttl) = *ttl {
                for (side, _) in &mut sides[input] {
                    side.expire(self.layouts[input], ttl, now);
                }
            }
        }
        // The probe walks the other input's records in lookup order, the store's.
        for (side, _) in &mut sides[1 - port] {
            side.settle(self.layouts[1 - port]);
        }
        let mut out = JoinEmissions::default();
        let mut start = 0;
        while start < row_group.len() {
            let end = self.segment_end(port, &prepared, &row_group, &sides, start);
            let accepted =
                match self.accepted(port, input, &prepared, &row_group, &sides, start..end) {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        let written = self.put_back(&groups, sides);
                        if start > 0 || written.is_err() {
                            // Earlier rows changed the state without their changelog.
                            self.failed = Some(e.to_string());
                        }
                        return Err(e);
                    }
                };
            self.join_rows(
                port,
                now,
                input,
                &prepared,
                &row_group,
                start..end,
                accepted.as_ref(),
                suppress,
                &mut sides,
                &mut out,
            );
            start = end;
        }
        if let Err(e) = self.put_back(&groups, sides) {
            // The cached sides moved on; the store missed the others' changes.
            self.failed = Some(e.to_string());
            return Err(e);
        }
        let output = self.output(port, input, &out);
        if let Err(e) = &output {
            // The state moved on without its changelog.
            self.failed = Some(e.to_string());
        }
        output
    }

    fn prepare(&self, port: Port, input: &ChangelogBatch) -> Result<Prepared> {
        let spec = self.spec.input(port);
        let batch = input.batch();
        let uniques = match &self.unique_keys[port] {
            Some((columns, writer)) => {
                let columns: Vec<ArrayRef> =
                    columns.iter().map(|&c| batch.column(c).clone()).collect();
                Some(writer.write(&columns)?)
            }
            None => None,
        };
        Ok(Prepared {
            rows: self.writers[port].write(batch.columns())?,
            uniques,
            null_keys: null_keys(&spec.keys, &self.spec.filter_nulls, batch)
                .unwrap_or_else(|| vec![false; batch.num_rows()]),
        })
    }

    /// Both inputs' sides of every group, with whether each holds every record of its key:
    /// the other input's whole (cached or scanned), the batch's own input's cached or only
    /// the records its rows look up (point reads). On an error the caches are as they were.
    fn read(
        &mut self,
        port: Port,
        groups: &Groups,
        order: &[u32],
        prepared: &Prepared,
        row_group: &[u32],
    ) -> Result<Both<Vec<(Side, bool)>>> {
        let other = self.read_whole(1 - port, groups, order)?;
        match self.read_looked_up(port, groups, prepared, row_group) {
            Ok(mine) => Ok(if port == 0 {
                [mine, other]
            } else {
                [other, mine]
            }),
            Err(e) => {
                self.return_whole(1 - port, groups, other);
                Err(e)
            }
        }
    }

    /// Puts the whole sides taken by a batch that changed nothing back into `input`'s
    /// cache.
    fn return_whole(&mut self, input: usize, groups: &Groups, sides: Vec<(Side, bool)>) {
        let cache = &mut self.caches[input];
        for (g, (side, whole)) in sides.into_iter().enumerate() {
            if whole {
                let dirty = side.is_dirty();
                cache.put(groups.key(g), side, dirty);
            }
        }
    }

    /// Each group's side of `input`: the cached one, whole, or an empty one to fill.
    fn take_cached(&mut self, input: usize, groups: &Groups) -> Vec<(Side, bool)> {
        let cache = &mut self.caches[input];
        cache.start_batch();
        (0..groups.len())
            .map(|g| match cache.take(groups.key(g)) {
                Some((side, _)) => (side, true),
                None => (Side::default(), false),
            })
            .collect()
    }

    /// Every record of `input` under each group's key: taken from the cache with one
    /// lookup, or read by one walk over the missing keys' prefixes, in `order`.
    fn read_whole(
        &mut self,
        input: usize,
        groups: &Groups,
        order: &[u32],
    ) -> Result<Vec<(Side, bool)>> {
        let layout = self.layouts[input];
        let mut sides = self.take_cached(input, groups);
        let missing: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&g| !sides[g as usize].1)
            .collect();
        let ranges: Vec<ScanRange<'_>> = missing
            .iter()
            .map(|&g| ScanRange::Prefix(groups.key(g as usize)))
            .collect();
        let mut failed = None;
        let scanned =
            self.keyed
                .store()
                .scan_ranges(self.tables[input], &ranges, &mut |i, k, v| {
                    let prefix = groups.key(missing[i] as usize);
                    let side = &mut sides[missing[i] as usize].0;
                    match side.push_stored(layout, &k[prefix.len()..], v) {
                        Ok(()) => true,
                        Err(e) => {
                            failed = Some(e);
                            false
                        }
                    }
                });
        if let Some(e) = scanned.err().or(failed) {
            self.return_whole(input, groups, sides);
            return Err(e);
        }
        for &g in &missing {
            sides[g as usize].1 = true;
        }
        Ok(sides)
    }

    /// `input`'s sides for a batch of its own rows: each group's whole side where cached,
    /// else the records the batch's rows look up (one batched point read), which is all
    /// that adding and retracting them needs. Under layout `JoinKey` a key has one entry,
    /// so what a point read finds is the whole side.
    fn read_looked_up(
        &mut self,
        input: usize,
        groups: &Groups,
        prepared: &Prepared,
        row_group: &[u32],
    ) -> Result<Vec<(Side, bool)>> {
        let layout = self.layouts[input];
        let mut sides = self.take_cached(input, groups);
        // Each missing key's entries the rows look up: (group, entry key), deduplicated.
        let mut wanted: Vec<(u32, Vec<u8>)> = Vec::new();
        for (r, &g) in row_group.iter().enumerate() {
            if sides[g as usize].1 {
                continue;
            }
            let lookup = match layout {
                Layout::JoinKey => &[][..],
                Layout::UniqueKey => prepared.uniques.as_ref().map_or(&[][..], |u| u.row(r)),
                Layout::NoUniqueKey => prepared.rows.row(r),
            };
            let mut key = groups.key(g as usize).to_vec();
            key.extend_from_slice(lookup);
            wanted.push((g, key));
        }
        wanted.sort_unstable_by(|a, b| a.1.cmp(&b.1));
        wanted.dedup_by(|a, b| a.1 == b.1);
        let keys: Vec<&[u8]> = wanted.iter().map(|(_, k)| k.as_slice()).collect();
        let read = self
            .keyed
            .store()
            .multi_get_each(self.tables[input], &keys, &mut |i, value| {
                let Some(value) = value else { return Ok(()) };
                let (g, key) = &wanted[i];
                let prefix = groups.key(*g as usize).len();
                sides[*g as usize]
                    .0
                    .push_stored(layout, &key[prefix..], value)
            });
        if let Err(e) = read {
            self.return_whole(input, groups, sides);
            return Err(e);
        }
        if layout == Layout::JoinKey {
            for (_, whole) in &mut sides {
                *whole = true;
            }
        }
        Ok(sides)
    }

    /// Where the rows from `start` stop sharing one evaluation of the condition: the pairs
    /// of input rows and the other input's stored rows of their keys stay within
    /// [`MAX_PAIRS`] (a hot key's pairs are evaluated a segment at a time), and every
    /// segment holds at least one row. Without a condition, the whole batch.
    fn segment_end(
        &self,
        port: Port,
        prepared: &Prepared,
        row_group: &[u32],
        sides: &Both<Vec<(Side, bool)>>,
        start: usize,
    ) -> usize {
        if self.condition.is_none() {
            return row_group.len();
        }
        let mut pairs = 0;
        for (r, &g) in row_group.iter().enumerate().skip(start) {
            if !prepared.null_keys[r] {
                pairs += sides[1 - port][g as usize].0.records().len();
            }
            if pairs > MAX_PAIRS && r > start {
                return r;
            }
        }
        row_group.len()
    }

    /// The condition's verdict on every pair of an input row of `rows` and a stored row of
    /// the other input under its key; `None` without a condition (every pair matches).
    fn accepted(
        &self,
        port: Port,
        input: &ChangelogBatch,
        prepared: &Prepared,
        row_group: &[u32],
        sides: &Both<Vec<(Side, bool)>>,
        rows: Range<usize>,
    ) -> Result<Option<Accepted>> {
        let Some((condition, pair_schema)) = &self.condition else {
            return Ok(None);
        };
        let other = &sides[1 - port];
        // Each key's stored rows are decoded once, whatever the number of its input rows.
        let mut first_stored: Vec<Option<u32>> = vec![None; other.len()];
        let (mut data, mut offsets) = (Vec::new(), vec![0]);
        let mut starts = Vec::with_capacity(rows.len());
        let (mut input_rows, mut stored_rows): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        for r in rows {
            let g = row_group[r] as usize;
            starts.push(input_rows.len());
            if prepared.null_keys[r] {
                continue;
            }
            let records = other[g].0.records();
            let first = *first_stored[g].get_or_insert_with(|| {
                let first = offsets.len() as u32 - 1;
                for record in records {
                    data.extend_from_slice(&record.row);
                    offsets.push(data.len());
                }
                first
            });
            input_rows.extend(std::iter::repeat_n(r as u32, records.len()));
            stored_rows.extend(first..first + records.len() as u32);
        }
        if input_rows.is_empty() {
            return Ok(Some(Accepted {
                starts,
                accepted: Vec::new(),
            }));
        }
        let take_all = |columns: &[ArrayRef], indices: Vec<u32>| {
            let indices = UInt32Array::from(indices);
            columns
                .iter()
                .map(|c| take(c.as_ref(), &indices, None))
                .collect::<std::result::Result<Vec<_>, _>>()
        };
        let pairs = input_rows.len();
        let taken = take_all(input.batch().columns(), input_rows)?;
        let decoded = self.readers[1 - port].read(&data, &offsets)?;
        let stored = take_all(decoded.batch().columns(), stored_rows)?;
        let (left, right) = if port == 0 {
            (taken, stored)
        } else {
            (stored, taken)
        };
        let pairs = RecordBatch::try_new_with_options(
            pair_schema.clone(),
            left.into_iter().chain(right).collect(),
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(pairs)),
        )?;
        let verdict = condition.evaluate(&ChangelogBatch::insert_only(pairs))?;
        let verdict = verdict.batch().column(0).as_boolean();
        let accepted = (0..verdict.len())
            .map(|i| verdict.is_valid(i) && verdict.value(i))
            .collect();
        Ok(Some(Accepted { starts, accepted }))
    }

    /// Joins the input rows `rows` (`row_group`: each row's key's group) into `out`,
    /// changing `sides`. A `suppress`ed row neither flips the other input's padding nor,
    /// when a retraction, leaves state (`processElement`'s `isSuppress`).
    #[allow(clippy::too_many_arguments)]
    fn join_rows(
        &self,
        port: Port,
        now: i64,
        input: &ChangelogBatch,
        prepared: &Prepared,
        row_group: &[u32],
        rows: Range<usize>,
        accepted: Option<&Accepted>,
        suppress: Option<&[bool]>,
        sides: &mut Both<Vec<(Side, bool)>>,
        out: &mut JoinEmissions,
    ) {
        let join_type = self.spec.join_type;
        let (input_outer, other_outer) = (join_type.outer(port), join_type.outer(1 - port));
        let layout = self.layouts[port];
        let [left, right] = sides;
        let (mine, others) = if port == 0 {
            (left, right)
        } else {
            (right, left)
        };
        let mut matches: Vec<usize> = Vec::new();
        let first = rows.start;
        for r in rows {
            let g = row_group[r] as usize;
            let kind = input.kind(r);
            let row = prepared.rows.row(r);
            let unique = prepared.uniques.as_ref().map_or(&[][..], |u| u.row(r));
            let mine = &mut mine[g].0;
            let other = &mut others[g].0;
            let suppressed = suppress.is_some_and(|s| s[r]);
            matches.clear();
            if !prepared.null_keys[r] {
                let n = other.records().len();
                match accepted {
                    None => matches.extend(0..n),
                    Some(a) => {
                        let start = a.starts[r - first];
                        matches.extend((0..n).filter(|&e| a.accepted[start + e]));
                    }
                }
            }
            if join_type.semi_anti() {
                let anti = join_type == JoinType::Anti;
                if port == 0 {
                    let copies: u32 = matches.iter().map(|&e| other.records()[e].count).sum();
                    if (copies > 0) != anti {
                        out.push(kind, Some(r), None);
                    }
                    if kind.is_accumulate() {
                        mine.add(layout, row, unique, copies as i32, now);
                    } else {
                        mine.retract(layout, row, unique, now);
                    }
                    continue;
                }
                let accumulate = kind.is_accumulate();
                if accumulate {
                    mine.add(layout, row, unique, 0, now);
                } else {
                    mine.retract(layout, row, unique, now);
                }
                for &e in &matches {
                    let (count, before) = (other.records()[e].count, other.records()[e].assoc);
                    for _ in 0..count {
                        let (flips, kind, after) = if accumulate {
                            let kind = if anti { RowKind::Delete } else { kind };
                            (before == 0, kind, before + 1)
                        } else {
                            let kind = if anti { RowKind::Insert } else { kind };
                            (before == 1, kind, before - 1)
                        };
                        if flips {
                            out.push(kind, None, Some(&other.records()[e].row));
                        }
                        other.set_assoc(e, after, now);
                    }
                }
                continue;
            }
            if kind.is_accumulate() {
                if input_outer && matches.is_empty() {
                    out.push(RowKind::Insert, Some(r), None);
                    mine.add(layout, row, unique, 0, now);
                    continue;
                }
                if !input_outer {
                    mine.add(layout, row, unique, 0, now);
                }
                let mut copies = 0;
                for &e in &matches {
                    let (count, before) = (other.records()[e].count, other.records()[e].assoc);
                    for _ in 0..count {
                        copies += 1;
                        let joined_kind = if other_outer {
                            if before == 0 && !suppressed {
                                out.push(RowKind::Delete, None, Some(&other.records()[e].row));
                            }
                            other.set_assoc(e, before + 1, now);
                            RowKind::Insert
                        } else if input_outer {
                            RowKind::Insert
                        } else {
                            kind
                        };
                        out.push(joined_kind, Some(r), Some(&other.records()[e].row));
                    }
                }
                if input_outer {
                    mine.add(layout, row, unique, copies, now);
                }
            } else {
                if !suppressed {
                    mine.retract(layout, row, unique, now);
                }
                if matches.is_empty() {
                    if input_outer {
                        out.push(RowKind::Delete, Some(r), None);
                    }
                    continue;
                }
                let joined_kind = if input_outer { RowKind::Delete } else { kind };
                for &e in &matches {
                    let (count, before) = (other.records()[e].count, other.records()[e].assoc);
                    for _ in 0..count {
                        out.push(joined_kind, Some(r), Some(&other.records()[e].row));
                        if other_outer {
                            if before == 1 && !suppressed {
                                out.push(RowKind::Insert, None, Some(&other.records()[e].row));
                            }
                            other.set_assoc(e, before - 1, now);
                        }
                    }
                }
            }
        }
    }

    /// After a batch: the whole sides go back into their caches, and the changes of the
    /// others are written with one write batch.
    fn put_back(&mut self, groups: &Groups, sides: Both<Vec<(Side, bool)>>) -> Result<()> {
        let mut batch = WriteBatch::new();
        for (input, sides) in sides.into_iter().enumerate() {
            let (whole, looked_up): (Vec<_>, Vec<_>) = sides
                .into_iter()
                .enumerate()
                .partition(|(_, (_, whole))| *whole);
            for (g, (side, _)) in looked_up {
                self.write_side(&mut batch, input, groups.key(g), &side);
            }
            // An empty side stays cached too: it says the store holds nothing of its key.
            let cache = &mut self.caches[input];
            for (g, (side, _)) in whole {
                let dirty = side.is_dirty();
                cache.put(groups.key(g), side, dirty);
            }
        }
        if batch.is_empty() {
            return Ok(());
        }
        self.keyed.store_mut().write(&batch)
    }

    /// Puts the changes of `key`'s `side` of `input` into `batch`: an entry per changed
    /// record, a delete per removed one.
    fn write_side(&self, batch: &mut WriteBatch, input: usize, key: &[u8], side: &Side) {
        let table = self.tables[input];
        let mut entry = Vec::new();
        side.changes(self.layouts[input], |lookup, value| {
            entry.clear();
            entry.extend_from_slice(key);
            entry.extend_from_slice(lookup);
            match value {
                Some(value) => batch.put(table, &entry, value),
                None => batch.delete(table, &entry),
            }
        });
    }

    /// Writes the changed sides that leave the caches. On an error they stay cached, and
    /// nothing is written.
    fn write_evicted(&mut self) -> Result<()> {
        let evicted = [self.caches[0].evict(), self.caches[1].evict()];
        if evicted.iter().all(Vec::is_empty) {
            return Ok(());
        }
        let mut batch = WriteBatch::new();
        for (input, evicted) in evicted.iter().enumerate() {
            for (key, side) in evicted {
                self.write_side(&mut batch, input, key, side);
            }
        }
        let written = self.keyed.store_mut().write(&batch);
        if written.is_err() {
            for (input, evicted) in evicted.into_iter().enumerate() {
                for (key, side) in evicted {
                    self.caches[input].put(&key, side, true);
                }
            }
        }
        written
    }

    /// Writes every changed cached side, as a checkpoint must hold them.
    fn write_cached(&mut self) -> Result<()> {
        let mut batch = WriteBatch::new();
        for input in 0..2 {
            for (key, side) in self.caches[input].dirty() {
                self.write_side(&mut batch, input, key, side);
            }
        }
        if !batch.is_empty() {
            self.keyed.store_mut().write(&batch)?;
        }
        for cache in &mut self.caches {
            for side in cache.dirty_mut() {
                side.mark_written();
            }
            cache.mark_clean();
        }
        Ok(())
    }

    /// The changelog of `out`: left then right columns (the left alone for SEMI/ANTI).
    fn output(
        &self,
        port: Port,
        input: &ChangelogBatch,
        out: &JoinEmissions,
    ) -> Result<ChangelogBatch> {
        if out.len() == 0 {
            return Ok(ChangelogBatch::insert_only(RecordBatch::new_empty(
                self.schema.clone(),
            )));
        }
        let semi_anti = self.spec.join_type.semi_anti();
        let input_columns = || out.input_columns(input.batch());
        let stored_columns = || out.stored_columns(&self.readers[1 - port]);
        let columns: Vec<ArrayRef> = match (port, semi_anti) {
            (0, true) => input_columns()?,
            (_, true) => stored_columns()?,
            (0, false) => input_columns()?
                .into_iter()
                .chain(stored_columns()?)
                .collect(),
            (_, false) => stored_columns()?
                .into_iter()
                .chain(input_columns()?)
                .collect(),
        };
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        ChangelogBatch::try_new(batch, Some(out.kinds()))
    }
}

/// Whether each row's join key (columns `keys` of `batch`) has a NULL where NULLs are
/// filtered (`filter_nulls`): such a row matches nothing. `None` when no row's has.
fn null_keys(keys: &[usize], filter_nulls: &[bool], batch: &RecordBatch) -> Option<Vec<bool>> {
    let filtered: Vec<&ArrayRef> = keys
        .iter()
        .zip(filter_nulls)
        .filter(|(_, filter)| **filter)
        .map(|(&k, _)| batch.column(k))
        .filter(|c| c.null_count() > 0)
        .collect();
    (!filtered.is_empty()).then(|| {
        (0..batch.num_rows())
            .map(|r| filtered.iter().any(|c| c.is_null(r)))
            .collect()
    })
}

/// An input's state TTL in milliseconds; `None` when off.
fn ttl_ms(input: &JoinInput) -> Option<i64> {
    input
        .state_ttl
        .filter(|d| !d.is_zero())
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Checks the plan; returns its compiled condition.
fn check_spec(spec: &JoinSpec) -> Result<Option<Condition>> {
    let columns = |side: &str, input: &'_ JoinInput| -> Result<Vec<usize>> {
        match &input.state {
            InputState::UniqueKey { columns } if columns.is_empty() => Err(Error::Plan(format!(
                "the {side} input's unique key has no columns"
            ))),
            InputState::UniqueKey { columns } => Ok(columns.clone()),
            _ => Ok(Vec::new()),
        }
    };
    let (left, right) = (&spec.left, &spec.right);
    let (left_unique, right_unique) = (columns("left", left)?, columns("right", right)?);
    check_join(
        JoinColumns {
            names: &left.names,
            types: &left.types,
            keys: &left.keys,
            more: &left_unique,
        },
        JoinColumns {
            names: &right.names,
            types: &right.types,
            keys: &right.keys,
            more: &right_unique,
        },
        &spec.filter_nulls,
        spec.condition.as_ref(),
    )
}

/// A join condition compiled over the joined row, and the schema of the (left, right) pairs
/// it evaluates.
/// One input of a join in event time (interval and temporal joins).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimedJoinInput {
    /// Column names (the output's, for this input's part).
    pub names: Vec<String>,
    /// Column types.
    pub types: Vec<LogicalType>,
    /// The join key columns, pairwise with the other input's.
    pub keys: Vec<usize>,
    /// The column of the row time attribute (TIMESTAMP(3) or TIMESTAMP_LTZ(3)).
    pub time_column: usize,
}

impl TimedJoinInput {
    /// Its columns as every join checks them (the time column is checked apart).
    fn columns(&self) -> JoinColumns<'_> {
        JoinColumns {
            names: &self.names,
            types: &self.types,
            keys: &self.keys,
            more: &[],
        }
    }
}

type Condition = (CompiledCalc, SchemaRef);

/// One input's columns as every join checks them: names, types, the join key columns, and
/// further columns the plan reads (which must exist too).
struct JoinColumns<'a> {
    names: &'a [String],
    types: &'a [LogicalType],
    keys: &'a [usize],
    more: &'a [usize],
}

/// What every join requires of its plan (as many key columns on both sides, of equal types,
/// with a NULL filter each; columns in range), and its condition, compiled.
fn check_join(
    left: JoinColumns,
    right: JoinColumns,
    filter_nulls: &[bool],
    condition: Option<&CalcProgram>,
) -> Result<Option<Condition>> {
    let plan = |why: String| Err(Error::Plan(why));
    if left.keys.len() != right.keys.len() || filter_nulls.len() != left.keys.len() {
        return plan(format!(
            "a join of {} left and {} right key columns with {} NULL filters",
            left.keys.len(),
            right.keys.len(),
            filter_nulls.len()
        ));
    }
    for (side, input) in [("left", &left), ("right", &right)] {
        if input.names.len() != input.types.len() {
            return plan(format!(
                "the {side} input has {} names for {} types",
                input.names.len(),
                input.types.len()
            ));
        }
        if let Some(c) = input
            .keys
            .iter()
            .chain(input.more)
            .find(|&&c| c >= input.types.len())
        {
            return plan(format!(
                "the {side} input has {} columns, not column {c}",
                input.types.len()
            ));
        }
    }
    for (&l, &r) in left.keys.iter().zip(right.keys) {
        let (lt, rt) = (&left.types[l], &right.types[r]);
        if lt != rt {
            return plan(format!(
                "join key columns {l} ({lt}) and {r} ({rt}) differ in type"
            ));
        }
    }
    let Some(program) = condition else {
        return Ok(None);
    };
    let types: Vec<LogicalType> = left.types.iter().chain(right.types).cloned().collect();
    let compiled = compile_condition(program, &types)?;
    let fields: Vec<Field> = types
        .iter()
        .enumerate()
        .map(|(i, ty)| Field::new(format!("f{i}"), ty.to_arrow(), true))
        .collect();
    Ok(Some((compiled, Arc::new(Schema::new(fields)))))
}

/// `program` compiled over the joined row's `types` (left columns, then right): one BOOLEAN
/// projection and no filter, as a join condition is.
fn compile_condition(program: &CalcProgram, types: &[LogicalType]) -> Result<CompiledCalc> {
    let plan = |why: String| Err(Error::Plan(why));
    if program.projection.len() != 1 || program.filter.is_some() {
        return plan(format!(
            "a join condition projects one BOOLEAN and filters nothing, not {} projections{}",
            program.projection.len(),
            if program.filter.is_some() {
                " and a filter"
            } else {
                ""
            }
        ));
    }
    let compiled = compile(program, types)?;
    if compiled.output_types()[0] != LogicalType::Boolean {
        return plan(format!(
            "a join condition is a BOOLEAN, not {}",
            compiled.output_types()[0]
        ));
    }
    Ok(compiled)
}

impl Operator for Join {
    fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    fn inputs(&self) -> usize {
        2
    }

    fn input_types(&self, port: Port) -> &[LogicalType] {
        &self.spec.input(port.min(1)).types
    }

    fn output_types(&self) -> &[LogicalType] {
        &self.output_types
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        if self.bundle.is_some() {
            return self.buffer(port, input, out);
        }
        if let Some(joined) = self.join_columnar(port, input)? {
            out.emit(joined);
            return Ok(());
        }
        out.emit(self.apply(port, input, None)?);
        Ok(())
    }

    /// A mini-batch join applies its bundle on every watermark, as Flink's does on each
    /// input's (even one that does not move the combined watermark).
    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        self.finish_bundle(out)?;
        self.keyed.advance_watermark(watermark);
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed.watermark()
    }

    fn flush(&mut self, out: &mut Output) -> Result<()> {
        self.finish_bundle(out)
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        self.check_usable()?;
        if self.bundle.as_ref().is_some_and(|b| !b.is_empty()) {
            return Err(Error::State(
                "the join's mini-batch bundle holds rows: flush before checkpointing".into(),
            ));
        }
        self.write_cached()?;
        self.write_columnar()?;
        self.keyed.checkpoint(target, &self.identity)
    }

    fn memory_bytes(&self) -> u64 {
        let cached: usize = self.caches.iter().map(PartitionCache::bytes).sum();
        let bundled = self.bundle.as_ref().map_or(0, JoinBundle::bytes);
        let kept = self.columnar.as_ref().map_or(0, Columnar::bytes);
        self.keyed.memory_bytes() + (cached + bundled + kept) as u64
    }
}

impl KeyedOperator for Join {
    type Spec = JoinSpec;
    const HOLDER: &'static str = "join";

    fn identity_of(spec: &JoinSpec) -> PlanIdentity {
        Self::identity_of(spec)
    }

    fn max_parallelism(spec: &JoinSpec) -> u32 {
        spec.max_parallelism
    }

    fn open(spec: JoinSpec, keyed: Keyed) -> Result<Self> {
        Self::open(spec, keyed)
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
