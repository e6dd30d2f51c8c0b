//! Event-time sort: Flink's `StreamExecTemporalSort` over a rowtime attribute (`ORDER BY
//! rowtime [, more fields]` on a stream), as released Flink 2.3.0's `RowTimeSortOperator`
//! runs it.
//!
//! A row is kept unless its time is at or before the last time that was emitted
//! (`lastTriggeringTsState`, none at first, so any time is kept until something is
//! emitted); the watermark is not compared. Kept rows wait in state under their time
//! (`dataState`, each time's rows in arrival order). When the watermark passes a time, its
//! rows are sorted by the other ORDER BY fields (a stable sort: Java's `List.sort`, so ties
//! keep their arrival order) and emitted as `+I`, and that time becomes the last emitted one;
//! times are emitted in ascending order. Flink keys the operator by an empty key (one task),
//! so a subtask's rows are one sequence. Input must be insert-only.
//!
//! The other sort fields compare as Flink's generated comparator does: arrow-row bytes with
//! the field's direction and NULL placement. A FLOAT/DOUBLE one is refused at plan time: the
//! comparator's NaN ties with every value, which is no order, so where TimSort puts such a
//! row is an accident of the algorithm (as for Top-N, decision 0028).
//!
//! # State
//!
//! `[key group][key row][time]` (the time sign-flipped big-endian, so a key's times are in
//! order) -> the time's rows as length-prefixed BinaryRowData; `[key group][key row]` -> the
//! last emitted time. A watermark scans the rows table from its start to the first time after
//! it: no timers are needed, as everything before the watermark is due. Both tables are
//! checkpointed and rescaled with their key groups.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::{Field, Schema, SchemaRef, TimestampMillisecondType};
use arrow::row::{RowConverter, SortField};
use serde::{Deserialize, Serialize};

use crate::aggregate::group::{access_order, check_columns};
use crate::binary_row::{RowReader, RowWriter};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::ops::keyed::{Keyed, KeyedOperator};
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::rank::SortKey;
use crate::state::checkpoint::Checkpoint;
use crate::state::{ScanRange, TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;

/// The version of the event-time sort's state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 1;
const ROWS_TABLE: &str = "sort.rows";
const LAST_TABLE: &str = "sort.last";
const TIME_BYTES: usize = 8;

/// An event-time sort, as JSON: `{"input_names": ["k", "ts"], "input_types": ["INT",
/// "TIMESTAMP(3)"], "time_column": 1, "sort": [{"column": 0, "ascending": false,
/// "nulls_last": true}], "max_parallelism": 128}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemporalSortSpec {
    /// Input (and output) column names.
    pub input_names: Vec<String>,
    /// Input (and output) column types.
    pub input_types: Vec<LogicalType>,
    /// The rowtime column, the first ORDER BY field (ascending): TIMESTAMP(3) or
    /// TIMESTAMP_LTZ(3).
    pub time_column: usize,
    /// The ORDER BY fields after the rowtime.
    pub sort: Vec<SortKey>,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
}

impl TemporalSortSpec {
    /// What of the plan decides the state: the types and the time column (names and the
    /// secondary order, applied when rows are emitted, are left out).
    pub fn semantics(&self) -> serde_json::Value {
        serde_json::json!({
            "input_types": self.input_types.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "time_column": self.time_column,
        })
    }
}

/// The event-time sort over one task's keyed state.
pub struct TemporalSort {
    spec: TemporalSortSpec,
    hasher: KeyHasher,
    writer: RowWriter,
    reader: RowReader,
    /// The secondary sort fields' order bytes; `None` without any.
    sort_keys: Option<RowConverter>,
    schema: SchemaRef,
    identity: PlanIdentity,
    keyed: Keyed,
    rows: TableId,
    last: TableId,
    late_rows: u64,
}

impl std::fmt::Debug for TemporalSort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TemporalSort")
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

fn time_bytes(time: i64) -> [u8; TIME_BYTES] {
    ((time as u64) ^ (1 << 63)).to_be_bytes()
}

fn time_of(bytes: &[u8]) -> i64 {
    (u64::from_be_bytes(bytes.try_into().expect("8 bytes")) ^ (1 << 63)) as i64
}

/// Splits a time's stored rows (`[u32 length][row]...`) into `out`.
fn split_rows<'a>(mut value: &'a [u8], out: &mut Vec<&'a [u8]>) -> Result<()> {
    while !value.is_empty() {
        let corrupt = || Error::State("a corrupt list of sorted rows".into());
        let (len, rest) = value.split_first_chunk::<4>().ok_or_else(corrupt)?;
        let len = u32::from_le_bytes(*len) as usize;
        if rest.len() < len {
            return Err(corrupt());
        }
        out.push(&rest[..len]);
        value = &rest[len..];
    }
    Ok(())
}

impl TemporalSort {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &TemporalSortSpec) -> PlanIdentity {
        PlanIdentity::new(OperatorKind::TemporalSort, STATE_VERSION, &spec.semantics())
    }

    /// An operator for `spec` over `keyed` (fresh or restored). A plan Flink would refuse (a
    /// column out of range, a time column that is not a TIMESTAMP(p <= 3)) or one whose
    /// order the native side cannot reproduce (a FLOAT/DOUBLE sort field) is an error.
    pub fn open(spec: TemporalSortSpec, mut keyed: Keyed) -> Result<Self> {
        let columns = spec.input_types.len();
        if spec.input_names.len() != columns {
            return Err(Error::Plan(format!(
                "{} input names for {columns} input types",
                spec.input_names.len()
            )));
        }
        match spec.input_types.get(spec.time_column) {
            Some(LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p)) if *p <= 3 => {}
            other => {
                return Err(Error::Plan(format!(
                    "the sort's time column {} is {}, not a TIMESTAMP(p <= 3) row time",
                    spec.time_column,
                    other.map_or("out of range".to_string(), ToString::to_string)
                )));
            }
        }
        let mut fields = Vec::with_capacity(spec.sort.len());
        for key in &spec.sort {
            let ty = spec.input_types.get(key.column).ok_or_else(|| {
                Error::Plan(format!(
                    "sort column {} is out of range for {columns} input columns",
                    key.column
                ))
            })?;
            if matches!(ty, LogicalType::Float | LogicalType::Double) {
                return Err(Error::Plan(format!(
                    "sort column {} is {ty}: Flink's comparator ties a NaN with every value, \
                     so its order is not reproducible",
                    key.column
                )));
            }
            fields.push(SortField::new_with_options(
                ty.to_arrow(),
                arrow::compute::SortOptions {
                    descending: !key.ascending,
                    nulls_first: !key.nulls_last,
                },
            ));
        }
        if keyed.max_parallelism() != spec.max_parallelism {
            return Err(Error::OutOfRange(format!(
                "the plan's max parallelism is {} but its state has {} key groups",
                spec.max_parallelism,
                keyed.max_parallelism()
            )));
        }
        let store = keyed.store_mut();
        let rows = store.open_table_with(ROWS_TABLE, TableAccess::Ordered)?;
        let last = store.open_table_with(LAST_TABLE, TableAccess::Point)?;
        let schema_fields: Vec<Field> = spec
            .input_names
            .iter()
            .zip(&spec.input_types)
            .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
            .collect();
        Ok(Self {
            identity: Self::identity_of(&spec),
            hasher: KeyHasher::new(Vec::new()),
            writer: RowWriter::new(spec.input_types.clone()),
            reader: RowReader::new(spec.input_types.clone()),
            sort_keys: (!fields.is_empty())
                .then(|| RowConverter::new(fields))
                .transpose()?,
            schema: Arc::new(Schema::new(schema_fields)),
            keyed,
            rows,
            last,
            late_rows: 0,
            spec,
        })
    }

    /// Rows dropped as late since the operator was opened.
    pub fn late_rows_dropped(&self) -> u64 {
        self.late_rows
    }

    /// Stores every kept row under its key and time.
    fn ingest(&mut self, input: &ChangelogBatch) -> Result<()> {
        check_columns("sort input batch", &self.spec.input_types, input.batch())?;
        ops::expect_insert_only(input, "an event-time sort")?;
        let batch = input.batch();
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let times = batch
            .column(self.spec.time_column)
            .as_primitive::<TimestampMillisecondType>();
        if let Some(row) = (0..batch.num_rows()).find(|&r| times.is_null(r)) {
            return Err(Error::InvalidShape(format!(
                "row {row}: the row time ({}) of an event-time sort is NULL",
                self.spec.input_names[self.spec.time_column]
            )));
        }
        let (groups, row_group) = self.keyed.groups(&self.hasher, batch, &[])?;
        let order = access_order(self.keyed.store(), &[self.last], &groups);
        let last = self.keyed.read_groups(self.last, &groups, &order, None)?;
        let last: Vec<Option<i64>> = last.into_iter().map(|v| v.map(|v| time_of(&v))).collect();
        let encoded = self.writer.write(batch.columns())?;
        // Each (key, time)'s new rows, in arrival order.
        let mut added: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        for (row, &slot) in row_group.iter().enumerate() {
            let time = times.value(row);
            if last[slot as usize].is_some_and(|l| time <= l) {
                self.late_rows += 1;
                continue;
            }
            let mut key = groups.key(slot as usize).to_vec();
            key.extend_from_slice(&time_bytes(time));
            let bytes = encoded.row(row);
            let list = added.entry(key).or_default();
            list.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            list.extend_from_slice(bytes);
        }
        if added.is_empty() {
            return Ok(());
        }
        let keys: Vec<&[u8]> = added.keys().map(Vec::as_slice).collect();
        let stored = self.keyed.store().multi_get(self.rows, &keys)?;
        let mut write = WriteBatch::with_capacity(added.len());
        for ((key, new), old) in added.iter().zip(stored) {
            match old {
                Some(mut old) => {
                    old.extend_from_slice(new);
                    write.put(self.rows, key, old);
                }
                None => write.put(self.rows, key, new),
            }
        }
        self.keyed.store_mut().write(&write)
    }

    /// Emits every stored time at or before the watermark, in time order, each time's rows
    /// sorted by the other ORDER BY fields.
    fn fire(&mut self, watermark: i64) -> Result<ChangelogBatch> {
        let mut due: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        self.keyed
            .store()
            .scan(self.rows, ScanRange::All, &mut |key, value| {
                let time = time_of(&key[key.len() - TIME_BYTES..]);
                if time > watermark {
                    // Keys are `[key group][empty key row][time]`: one sequence by time.
                    return false;
                }
                due.push((key.to_vec(), value.to_vec()));
                true
            })?;
        let mut data = Vec::new();
        let mut offsets = vec![0];
        let mut write = WriteBatch::with_capacity(2 * due.len());
        let mut last: BTreeMap<Vec<u8>, i64> = BTreeMap::new();
        for (key, value) in &due {
            let mut rows = Vec::new();
            split_rows(value, &mut rows)?;
            for i in self.sorted(&rows)? {
                data.extend_from_slice(rows[i]);
                offsets.push(data.len());
            }
            write.delete(self.rows, key);
            let (state_key, time) = key.split_at(key.len() - TIME_BYTES);
            last.insert(state_key.to_vec(), time_of(time));
        }
        for (state_key, time) in &last {
            write.put(self.last, state_key, time_bytes(*time));
        }
        self.keyed.store_mut().write(&write)?;
        let rows = self.reader.read(&data, &offsets)?;
        let batch = RecordBatch::try_new(self.schema.clone(), rows.batch().columns().to_vec())?;
        Ok(ChangelogBatch::insert_only(batch))
    }

    /// The order in which a time's `rows` are emitted: by the secondary sort fields, ties
    /// in arrival order.
    fn sorted(&self, rows: &[&[u8]]) -> Result<Vec<usize>> {
        let mut order: Vec<usize> = (0..rows.len()).collect();
        let Some(converter) = &self.sort_keys else {
            return Ok(order);
        };
        if rows.len() < 2 {
            return Ok(order);
        }
        let mut data = Vec::new();
        let mut offsets = vec![0];
        for row in rows {
            data.extend_from_slice(row);
            offsets.push(data.len());
        }
        let decoded = self.reader.read(&data, &offsets)?;
        let columns: Vec<ArrayRef> = self
            .spec
            .sort
            .iter()
            .map(|k| decoded.batch().column(k.column).clone())
            .collect();
        let keys = converter.convert_columns(&columns)?;
        order.sort_by(|&a, &b| keys.row(a).cmp(&keys.row(b)));
        Ok(order)
    }
}

impl Operator for TemporalSort {
    fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    fn input_types(&self, _port: Port) -> &[LogicalType] {
        &self.spec.input_types
    }

    fn output_types(&self) -> &[LogicalType] {
        &self.spec.input_types
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Rows wait in state for the watermark: nothing is emitted here.
    fn process(&mut self, port: Port, input: &ChangelogBatch, _out: &mut Output) -> Result<()> {
        ops::expect_one_input(self.identity.kind, port)?;
        self.ingest(input)
    }

    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        if self.keyed.advance_watermark(watermark) {
            out.emit(self.fire(watermark)?);
        }
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed.watermark()
    }

    /// Nothing is buffered outside state.
    fn flush(&mut self, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        self.keyed.checkpoint(target, &self.identity)
    }

    fn memory_bytes(&self) -> u64 {
        self.keyed.memory_bytes()
    }
}

impl KeyedOperator for TemporalSort {
    type Spec = TemporalSortSpec;
    const HOLDER: &'static str = "temporal-sort";

    fn identity_of(spec: &TemporalSortSpec) -> PlanIdentity {
        Self::identity_of(spec)
    }

    fn max_parallelism(spec: &TemporalSortSpec) -> u32 {
        spec.max_parallelism
    }

    fn open(spec: TemporalSortSpec, keyed: Keyed) -> Result<Self> {
        Self::open(spec, keyed)
    }
}
