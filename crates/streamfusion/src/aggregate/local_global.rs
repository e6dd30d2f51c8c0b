//! Two-phase GROUP BY: Flink's `MiniBatchLocalGroupAggFunction` and
//! `MiniBatchGlobalGroupAggFunction` (`table.optimizer.agg-phase-strategy` TWO_PHASE or
//! AUTO, with mini-batch on).
//!
//! The local operator keeps no state: for a bundle of input it accumulates each key's rows
//! (accumulate for `+I`/`+U`, retract for `-U`/`-D`, leading retractions included) into a
//! fresh accumulator and emits one partial row per key, keys in order of first appearance.
//! The global operator merges a bundle's partials per key into a fresh buffer, then merges
//! the buffer into the stored accumulator and emits with `GroupAggFunction`'s rules (`+I`
//! first, `-U`/`+U`, unchanged results suppressed without TTL, `-D` when the record count
//! reaches zero); state is read and written a bundle at a time with [`super::group`]'s
//! machinery, under its own table.
//!
//! # Partial schema
//!
//! The grouping columns (input names and types), then each call's accumulator fields as
//! typed Arrow columns named `<call name>$<field>`, then, when the input retracts and the
//! query has no `COUNT(*)`, the planner's hidden record counter `$count1` (BIGINT). Every
//! field is nullable.
//!
//! | call | fields (Flink's `aggBufferAttributes`) |
//! |---|---|
//! | `COUNT(*)`, `COUNT(x)` | `count` BIGINT |
//! | `SUM(x)`, insert-only input | `sum` (the result type: x's, or `DECIMAL(38, s)`) |
//! | `SUM(x)`, retracting input | `sum`, `count` BIGINT (`SumWithRetractAggFunction`) |
//! | `$SUM0(x)` | `sum` (the result type) |
//! | `AVG(x)` | `sum` (BIGINT for integers, DOUBLE for FLOAT/DOUBLE, `DECIMAL(38, s)`), `count` BIGINT |
//! | `MIN(x)`, `MAX(x)`, insert-only input | `value` (x's type) |
//! | `MIN(x)`, `MAX(x)`, retracting input | `min`/`max` (x's type), `mapSize` BIGINT, `map`: MAP<x, BIGINT> (`Min/MaxWithRetractAccumulator`) |
//! | `SINGLE_VALUE(x)` | `value` (x's type), `count` INT |
//! | `$WELFORD_M2(x)` | `n` BIGINT, `mean` DOUBLE, `m2` DOUBLE (Flink: one STRUCTURED field, so the planner extension refuses the split) |
//! | `LISTAGG(x [, sep])`, retracting input | `list`, `retractList`: ARRAY of STRING (`ListAgg[Ws]WithRetractAggFunction`) |
//! | `JSON_OBJECTAGG(KEY k VALUE v ..)` | `map`: MAP<STRING, STRING>, key -> JSON text (NULL for NULL ON NULL's `null`) |
//! | `f(DISTINCT x)` | `f`'s fields, then `distinct`: MAP<x, BIGINT>, value -> count |
//!
//! Maps are carried as typed Arrow maps where Flink carries its accumulators' `MapView`s
//! (the distinct view as a RAW field); counts are never zero, and may be negative (a local
//! retraction of a value the bundle did not accumulate). The local phase keeps them in its
//! accumulators, as Flink's local function keeps heap views; the global phase merges a
//! bundle's partials into such heap buffers, then merges each buffer into the stored
//! accumulator, whose map lives inline or in the global operator's sorted-map table exactly
//! as in the one-phase operator.
//!
//! # What is not split
//!
//! The planner splits an aggregate only when every call can `merge`
//! (`AggregateUtil.doAllSupportPartialMerge`). FIRST_VALUE/LAST_VALUE (with or without
//! retraction), LISTAGG without retraction and JSON_ARRAYAGG have no `merge`, so Flink keeps
//! such a query one-phase: they are refused here.
//!
//! Retracting MIN/MAX merge as `Max[Min]WithRetractAggFunction.merge`: the partial's
//! extremum is taken when the stored map has no positive entry or it lies beyond the stored
//! one; counts add; `mapSize` counts the entries turning positive or ceasing to be; when the
//! extremum's own entry ceases to be positive, the new one is the map's largest (smallest)
//! key, which, as in Flink, may be a key with a negative count. DISTINCT merges as the
//! planner's distinct `merge` with counts: the inner function accumulates a value whose
//! count turns positive and retracts one whose count ceases to be positive; the partial's
//! inner accumulator is not read.
//!
//! JSON_OBJECTAGG splits as Flink splits it: the partial is the local key -> value map, and
//! `merge` puts each member after `assertKeyNotPresent`. A local retraction only removes a
//! key from the local map, so, exactly as in Flink, an update of a key already stored fails
//! the merge as a duplicate key, and a retraction never reaches the stored object.
//!
//! LISTAGG with retraction splits as Flink splits it: a local retraction of a value the
//! local list does not hold goes to `retractList`, and the global `merge` appends the
//! partial's list to the stored one, then removes the first equal value for each pending
//! retraction (the stored ones first), keeping those it cannot find for later partials.
//!
//! # Where the result differs from the one-phase operator
//!
//! For a consistent changelog (a retraction only of a row that is live) and arithmetic that
//! is associative for the values seen (integer sums wrap, so they are; FLOAT/DOUBLE sums and
//! DECIMAL overflow to NULL are not), a global bundle made of one local bundle emits exactly
//! what one-phase mini-batch emits for that bundle: merging a bundle's partial into the
//! stored accumulator equals applying its rows in order, and the emission rules are the
//! same. Flink's two-phase output genuinely differs when a retraction reaches a group
//! without state (one-phase ignores it; here it becomes a negative count that is stored and
//! emitted), when a global bundle spans several local bundles (one emission per global
//! bundle), for SINGLE_VALUE, whose `merge` does not fail on a retraction-cancelled
//! second row and takes the partial's value when the counts sum to one, for LISTAGG
//! with retraction, where a value accumulated and retracted within one local bundle cancels
//! there instead of removing an equal, earlier value from the stored list, and for
//! retracting MIN/MAX after a retraction of a value a group never held, whose negative
//! entry can become the extremum.
//!
//! Within a bundle, Flink emits keys in `HashMap` order (`AbstractMapBundleOperator`), for
//! partials and results alike; like the one-phase operator, these emit in order of first
//! appearance, so a comparison with Flink is per bundle, not per row.

use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, ListArray, RecordBatch, StructArray, UInt32Array};
use arrow::buffer::OffsetBuffer;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::function::{Acc, AggFunction, BoundCall, InlineMap, JsonObject};
use super::group::{
    AccTable, Bundle, CallInputs, EmitRules, GroupAggSpec, Groups, access_order, bind, check_input,
    check_max_parallelism, concat, map_calls, open_tables, preload_maps, state_ttl, write_bundle,
};
use super::sorted_map::SortedMaps;
use super::value::{Class, ColumnReader, Value, build_array, from_order_bytes, order_bytes};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::ops::keyed::{Keyed, MiniBatch, all_key_groups};
use crate::ops::{OperatorKind, PlanIdentity, StateConfig};
use crate::state::checkpoint::Checkpoint;
use crate::state::ttl::{Clock, SystemClock};
use crate::state::{StateBackend, WriteBatch};
use crate::types::{LogicalType, map_entry_fields};

/// The version of the local phase's checkpoints (metadata and watermark only).
pub const LOCAL_VERSION: u32 = 1;
/// The version of the global phase's state layout, stored with its checkpoints.
pub const GLOBAL_VERSION: u32 = 1;
const ACC_TABLE: &str = "global_group_agg.acc";
const MAP_TABLE: &str = "global_group_agg.sorted_map";

/// A plan split in two: the bound calls and the partial layout both phases share.
struct Split {
    calls: Vec<BoundCall>,
    counter: Option<usize>,
    key_types: Vec<LogicalType>,
    /// The global operator's output: grouping columns, then the visible calls' results.
    schema: SchemaRef,
    result_types: Vec<DataType>,
    /// Each call's partial fields, in order after the grouping columns.
    layout: PartialLayout,
    partial_schema: SchemaRef,
    /// The partial rows' Flink types: grouping columns, then every call's fields.
    partial_types: Vec<LogicalType>,
    /// The global output's Flink types.
    output_types: Vec<LogicalType>,
}

impl Split {
    fn new(spec: &GroupAggSpec) -> Result<Self> {
        let mut bound = bind(spec)?;
        for call in &mut bound.calls {
            call.merging = true;
        }
        let mut schema_fields: Vec<Field> = spec
            .grouping
            .iter()
            .map(|&g| Field::new(&spec.input_names[g], spec.input_types[g].to_arrow(), true))
            .collect();
        let names: Vec<&str> = spec.calls.iter().map(|c| c.name.as_str()).collect();
        let layout = PartialLayout::new(&bound.calls, &names)?;
        schema_fields.extend(layout.arrow_fields());
        let mut partial_types = bound.key_types.clone();
        partial_types.extend(layout.fields.iter().flatten().cloned());
        Ok(Self {
            calls: bound.calls,
            counter: bound.counter,
            key_types: bound.key_types,
            schema: bound.schema,
            result_types: bound.result_types,
            layout,
            partial_schema: Arc::new(Schema::new(schema_fields)),
            partial_types,
            output_types: bound.output_types,
        })
    }
}

/// How a list of calls' accumulators travel as typed partial columns (Flink's
/// `aggBufferAttributes`, see the module docs): what both two-phase GROUP BY and two-phase
/// window aggregation exchange.
pub(super) struct PartialLayout {
    /// Each call's fields, in order.
    pub(super) fields: Vec<Vec<LogicalType>>,
    /// Each field's column name, `<call name>$<field>` (`$count1` for a hidden counter).
    names: Vec<String>,
}

impl PartialLayout {
    /// The layout of `calls`, the first `names.len()` of them visible under those names and
    /// the rest hidden counters; fails for calls Flink does not split.
    pub(super) fn new(calls: &[BoundCall], names: &[&str]) -> Result<Self> {
        let mut fields = Vec::with_capacity(calls.len());
        let mut column_names = Vec::new();
        for (c, call) in calls.iter().enumerate() {
            let layout = partial_fields(call, names.get(c).copied())?;
            let mut types = Vec::with_capacity(layout.len());
            for (field, ty) in layout {
                column_names.push(match names.get(c) {
                    Some(name) => format!("{name}${field}"),
                    None => "$count1".to_string(),
                });
                types.push(ty);
            }
            fields.push(types);
        }
        Ok(Self {
            fields,
            names: column_names,
        })
    }

    /// The partial columns as Arrow fields (all nullable).
    pub(super) fn arrow_fields(&self) -> Vec<Field> {
        self.fields
            .iter()
            .flatten()
            .zip(&self.names)
            .map(|(ty, name)| Field::new(name, ty.to_arrow(), true))
            .collect()
    }

    /// The partial columns of `accs`: each group's accumulators, `calls.len()` a group.
    pub(super) fn columns(&self, calls: &[BoundCall], accs: &[Acc]) -> Result<Vec<ArrayRef>> {
        let per_key = calls.len().max(1);
        let groups = accs.len() / per_key;
        let mut columns = Vec::with_capacity(self.names.len());
        for (c, types) in self.fields.iter().enumerate() {
            let mut fields: Vec<PartialColumn> = types
                .iter()
                .map(|ty| PartialColumn::new(ty, groups))
                .collect();
            for key_accs in accs.chunks(per_key) {
                to_partial(&calls[c], &key_accs[c], &mut fields)?;
            }
            for (field, ty) in fields.into_iter().zip(types) {
                columns.push(field.finish(ty)?);
            }
        }
        Ok(columns)
    }

    /// Readers of each call's partial fields in `batch`, from column `first` on.
    pub(super) fn readers<'a>(
        &self,
        batch: &'a RecordBatch,
        first: usize,
    ) -> Result<PartialReaders<'a>> {
        let mut column = first;
        let mut readers = Vec::with_capacity(self.fields.len());
        for types in &self.fields {
            let mut call_readers = Vec::with_capacity(types.len());
            for ty in types {
                call_readers.push(FieldReader::new(batch.column(column).as_ref(), ty, column)?);
                column += 1;
            }
            readers.push(call_readers);
        }
        Ok(PartialReaders(readers))
    }
}

/// Readers of a partial batch's columns, per call ([`PartialLayout::readers`]).
pub(super) struct PartialReaders<'a>(Vec<Vec<FieldReader<'a>>>);

impl PartialReaders<'_> {
    /// Call `c`'s accumulator at `row`, shaped like `template` (a local one).
    pub(super) fn acc(&self, c: usize, template: &Acc, row: usize) -> Result<Acc> {
        from_partial(template, &self.0[c], row)
    }
}

/// The partial fields of `call` (named `name`, `None` for the hidden counter), or why the
/// call is not split.
fn partial_fields(
    call: &BoundCall,
    name: Option<&str>,
) -> Result<Vec<(&'static str, LogicalType)>> {
    let refuse = |why: &str| {
        Error::InvalidShape(format!(
            "aggregate {} ({}{}) cannot run in two phases: {why}",
            name.unwrap_or("$count1"),
            if call.distinct { "DISTINCT " } else { "" },
            call.function.sql_name(),
        ))
    };
    let counts =
        |key: &LogicalType| LogicalType::Map(Box::new(key.clone()), Box::new(LogicalType::BigInt));
    let mut fields = match call.function {
        AggFunction::CountStar | AggFunction::Count => vec![("count", LogicalType::BigInt)],
        AggFunction::Sum if call.retracting => {
            vec![("sum", call.result.clone()), ("count", LogicalType::BigInt)]
        }
        AggFunction::Sum | AggFunction::Sum0 => vec![("sum", call.result.clone())],
        AggFunction::Avg => {
            let sum = match call.class {
                Some(Class::Int(_)) => LogicalType::BigInt,
                Some(Class::Decimal { scale, .. }) => LogicalType::Decimal {
                    precision: 38,
                    scale,
                },
                _ => LogicalType::Double,
            };
            vec![("sum", sum), ("count", LogicalType::BigInt)]
        }
        AggFunction::Min | AggFunction::Max if !call.retracting => {
            vec![("value", call.result.clone())]
        }
        // `Max[Min]WithRetractAccumulator`: the extremum, `mapSize` and the value -> count map.
        AggFunction::Min | AggFunction::Max => vec![
            (
                if call.function == AggFunction::Max {
                    "max"
                } else {
                    "min"
                },
                call.result.clone(),
            ),
            ("mapSize", LogicalType::BigInt),
            ("map", counts(&call.result)),
        ],
        AggFunction::SingleValue => {
            vec![("value", call.result.clone()), ("count", LogicalType::Int)]
        }
        AggFunction::JsonObjectAggNullOnNull | AggFunction::JsonObjectAggAbsentOnNull => {
            let string = LogicalType::VarChar(i32::MAX as u32);
            vec![(
                "map",
                LogicalType::Map(Box::new(string.clone()), Box::new(string)),
            )]
        }
        AggFunction::ListAgg if call.value_arg.is_some() => {
            return Err(refuse("a separator column has no native partial layout"));
        }
        AggFunction::ListAgg if call.retracting => {
            let list = LogicalType::Array(Box::new(call.result.clone()));
            vec![("list", list.clone()), ("retractList", list)]
        }
        // `WelfordM2Accumulator` (a STRUCTURED column in Flink's partial).
        AggFunction::WelfordM2 => vec![
            ("n", LogicalType::BigInt),
            ("mean", LogicalType::Double),
            ("m2", LogicalType::Double),
        ],
        // Flink splits it, with a STRUCTURED partial of RAW lists the planner extension
        // cannot carry (so it refuses the split by the partial's type).
        AggFunction::ArrayAgg | AggFunction::Percentile => {
            return Err(refuse("its partial has no native layout"));
        }
        AggFunction::FirstValue
        | AggFunction::LastValue
        | AggFunction::ListAgg
        | AggFunction::JsonArrayAggAbsentOnNull
        | AggFunction::JsonArrayAggNullOnNull => {
            return Err(refuse(
                "its Flink function has no merge, so the planner keeps the aggregate one-phase",
            ));
        }
    };
    if call.distinct {
        // The distinct value -> count map after the inner function's fields.
        let arg = call
            .arg_type
            .as_ref()
            .ok_or_else(|| refuse("DISTINCT needs an argument"))?;
        fields.push(("distinct", counts(arg)));
    }
    Ok(fields)
}

/// One partial field's values for a bundle's keys: scalars, lists (ARRAY fields), or maps
/// (every key's entries one after another, with each key's entry count).
enum PartialColumn {
    Values(Vec<Value>),
    Lists(Vec<Vec<Value>>),
    Maps {
        lengths: Vec<usize>,
        keys: Vec<Value>,
        values: Vec<Value>,
    },
}

impl PartialColumn {
    fn new(ty: &LogicalType, keys: usize) -> Self {
        match ty {
            LogicalType::Array(_) => Self::Lists(Vec::with_capacity(keys)),
            LogicalType::Map(..) => Self::Maps {
                lengths: Vec::with_capacity(keys),
                keys: Vec::with_capacity(keys),
                values: Vec::with_capacity(keys),
            },
            _ => Self::Values(Vec::with_capacity(keys)),
        }
    }

    fn finish(self, ty: &LogicalType) -> Result<ArrayRef> {
        match (self, ty) {
            (Self::Values(values), _) => build_array(&ty.to_arrow(), values.iter()),
            (Self::Lists(lists), LogicalType::Array(element)) => {
                let offsets = OffsetBuffer::from_lengths(lists.iter().map(Vec::len));
                let flat: Vec<&Value> = lists.iter().flatten().collect();
                let values = build_array(&element.to_arrow(), flat.into_iter())?;
                let DataType::List(field) = ty.to_arrow() else {
                    return Err(Error::State(format!("{ty} is not a list type")));
                };
                Ok(Arc::new(ListArray::try_new(field, offsets, values, None)?))
            }
            (
                Self::Maps {
                    lengths,
                    keys,
                    values,
                },
                LogicalType::Map(key_type, value_type),
            ) => {
                let offsets = OffsetBuffer::from_lengths(lengths);
                let entries = StructArray::try_new(
                    map_entry_fields(key_type, value_type),
                    vec![
                        build_array(&key_type.to_arrow(), keys.iter())?,
                        build_array(&value_type.to_arrow(), values.iter())?,
                    ],
                    None,
                )?;
                let DataType::List(field) = ty.to_arrow() else {
                    return Err(Error::State(format!("{ty} is not carried as a list")));
                };
                Ok(Arc::new(ListArray::try_new(
                    field,
                    offsets,
                    Arc::new(entries),
                    None,
                )?))
            }
            (Self::Lists(_) | Self::Maps { .. }, _) => {
                Err(Error::State(format!("lists or maps for a {ty} field")))
            }
        }
    }
}

/// Reads one partial field: a scalar column, or an ARRAY column's lists.
enum FieldReader<'a> {
    Scalar(ColumnReader<'a>),
    List(&'a ListArray, ColumnReader<'a>),
    /// A MAP column (a list of key/value structs): the list, the keys and the values.
    Map(&'a ListArray, ColumnReader<'a>, ColumnReader<'a>),
}

impl<'a> FieldReader<'a> {
    fn new(array: &'a dyn Array, ty: &LogicalType, column: usize) -> Result<Self> {
        if !matches!(ty, LogicalType::Array(_) | LogicalType::Map(..)) {
            return Ok(Self::Scalar(ColumnReader::new(array, ty, column)?));
        }
        let list = array
            .as_list_opt::<i32>()
            .filter(|l| l.data_type() == &ty.to_arrow())
            .ok_or_else(|| Error::ColumnType {
                column,
                logical: ty.to_string(),
                expected: ty.to_arrow().to_string(),
                found: array.data_type().to_string(),
            })?;
        Ok(match ty {
            LogicalType::Map(key, value) => {
                let entries = list.values().as_struct();
                Self::Map(
                    list,
                    ColumnReader::new(entries.column(0).as_ref(), key, column)?,
                    ColumnReader::new(entries.column(1).as_ref(), value, column)?,
                )
            }
            LogicalType::Array(element) => Self::List(
                list,
                ColumnReader::new(list.values().as_ref(), element, column)?,
            ),
            _ => unreachable!("scalar types returned above"),
        })
    }

    fn value(&self, row: usize) -> Value {
        match self {
            Self::Scalar(reader) => reader.value(row),
            Self::List(..) | Self::Map(..) => Value::Null,
        }
    }

    /// The map entries at `row`; a NULL map reads as empty.
    fn pairs(&self, row: usize) -> Vec<(Value, Value)> {
        match self {
            Self::Map(list, keys, values) if list.is_valid(row) => {
                let offsets = list.value_offsets();
                (offsets[row] as usize..offsets[row + 1] as usize)
                    .map(|i| (keys.value(i), values.value(i)))
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The list at `row`; a NULL list reads as empty.
    fn list(&self, row: usize) -> Vec<Value> {
        match self {
            Self::List(list, values) if list.is_valid(row) => {
                let offsets = list.value_offsets();
                (offsets[row] as usize..offsets[row + 1] as usize)
                    .map(|i| values.value(i))
                    .collect()
            }
            _ => Vec::new(),
        }
    }
}

/// A call's accumulator as its partial fields.
fn to_partial(call: &BoundCall, acc: &Acc, out: &mut [PartialColumn]) -> Result<()> {
    let fields = out.len();
    fn field<'o>(
        out: &'o mut [PartialColumn],
        acc: &Acc,
        i: usize,
    ) -> Result<&'o mut PartialColumn> {
        out.get_mut(i).ok_or_else(|| {
            Error::State(format!(
                "accumulator {acc:?} has more fields than its partial"
            ))
        })
    }
    // A value -> count map as typed map entries.
    let counts = |out: &mut [PartialColumn], i: usize, map: &InlineMap| -> Result<()> {
        let class = call
            .class
            .ok_or_else(|| Error::State("a map partial without an argument".into()))?;
        let PartialColumn::Maps {
            lengths,
            keys,
            values,
        } = field(out, acc, i)?
        else {
            return Err(Error::State(format!("a map for non-map field {i}")));
        };
        for (bytes, count) in map {
            keys.push(from_order_bytes(class, bytes)?);
            values.push(Value::Int(*count));
        }
        lengths.push(map.len());
        Ok(())
    };
    let mut push = |i: usize, v: Value| -> Result<()> {
        match field(out, acc, i)? {
            PartialColumn::Values(values) => values.push(v),
            PartialColumn::Lists(_) | PartialColumn::Maps { .. } => {
                return Err(Error::State(format!("a scalar for list or map field {i}")));
            }
        }
        Ok(())
    };
    match acc {
        Acc::Count(c) => push(0, Value::Int(*c))?,
        Acc::Sum { sum, count } | Acc::Avg { sum, count } | Acc::Single { value: sum, count } => {
            push(0, sum.clone())?;
            // Insert-only SUM's partial has no count: its value never reads it.
            if fields > 1 {
                push(1, Value::Int(*count))?;
            }
        }
        Acc::Sum0(v) | Acc::Value(v) => push(0, v.clone())?,
        Acc::Welford { n, mean, m2 } => {
            push(0, Value::Int(*n))?;
            push(1, Value::Float(*mean))?;
            push(2, Value::Float(*m2))?;
        }
        Acc::Extremum {
            value,
            map_size,
            inline: Some(map),
            ..
        } => {
            push(0, value.clone())?;
            push(1, Value::Int(*map_size))?;
            counts(out, 2, map)?;
        }
        Acc::LocalDistinct { inner, map } => {
            let (inner_fields, distinct) = out.split_at_mut(fields.saturating_sub(1));
            to_partial(call, inner, inner_fields)?;
            counts(distinct, 0, map)?;
        }
        Acc::ListWithRetract { list, retract_list } => {
            for (i, values) in [list, retract_list].into_iter().enumerate() {
                match field(out, acc, i)? {
                    PartialColumn::Lists(lists) => lists.push(values.clone()),
                    PartialColumn::Values(_) | PartialColumn::Maps { .. } => {
                        return Err(Error::State(format!("a list for non-list field {i}")));
                    }
                }
            }
        }
        Acc::Object(object) => match field(out, acc, 0)? {
            PartialColumn::Maps {
                lengths,
                keys,
                values,
            } => {
                let pairs = object.to_pairs();
                lengths.push(pairs.len());
                for (k, v) in pairs {
                    keys.push(k);
                    values.push(v);
                }
            }
            _ => return Err(Error::State("a map for a non-map field".into())),
        },
        other => {
            return Err(Error::State(format!(
                "accumulator {other:?} has no partial form"
            )));
        }
    }
    Ok(())
}

/// A value -> count map from a partial's map entries at `row`: NULL counts are refused,
/// zero counts are not entries, and a value may appear once.
fn counts_from_partial(reader: Option<&FieldReader<'_>>, row: usize) -> Result<InlineMap> {
    let refuse =
        |what: &str| Error::InvalidShape(format!("partial row {row} has {what} in its value map"));
    let mut map: InlineMap = Vec::new();
    for (key, count) in reader.map_or_else(Vec::new, |r| r.pairs(row)) {
        let Value::Int(count) = count else {
            return Err(refuse("a NULL count"));
        };
        if key.is_null() {
            return Err(refuse("a NULL value"));
        }
        let mut bytes = Vec::new();
        order_bytes(&key, &mut bytes);
        map.push((bytes, count));
    }
    map.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    if map.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(refuse("a value twice"));
    }
    map.retain(|(_, count)| *count != 0);
    Ok(map)
}

/// A call's accumulator from its partial fields at `row`, shaped like `template` (a
/// [`BoundCall::create_local`] one).
fn from_partial(template: &Acc, readers: &[FieldReader<'_>], row: usize) -> Result<Acc> {
    let value = |i: usize| readers.get(i).map_or(Value::Null, |r| r.value(row));
    // Insert-only SUM has no count column (0); a NULL count cannot come from the local
    // phase, so it is refused rather than read as zero.
    let count = |i: usize| match (readers.get(i), value(i)) {
        (None, _) => Ok(0),
        (Some(_), Value::Int(c)) => Ok(c),
        (Some(_), _) => Err(Error::InvalidShape(format!(
            "partial row {row} has a NULL count"
        ))),
    };
    Ok(match template {
        Acc::Count(_) => Acc::Count(count(0)?),
        Acc::Sum { .. } => Acc::Sum {
            sum: value(0),
            count: count(1)?,
        },
        Acc::Avg { .. } => Acc::Avg {
            sum: value(0),
            count: count(1)?,
        },
        Acc::Single { .. } => Acc::Single {
            value: value(0),
            count: count(1)?,
        },
        Acc::Sum0(_) => Acc::Sum0(value(0)),
        Acc::Value(_) => Acc::Value(value(0)),
        Acc::Welford { .. } => {
            let moment = |i: usize| match value(i) {
                Value::Float(f) => Ok(f),
                _ => Err(Error::InvalidShape(format!(
                    "partial row {row} has a NULL WELFORD_M2 moment"
                ))),
            };
            Acc::Welford {
                n: count(0)?,
                mean: moment(1)?,
                m2: moment(2)?,
            }
        }
        Acc::Extremum { .. } => Acc::Extremum {
            value: value(0),
            map_size: count(1)?,
            entries: 0,
            inline: Some(counts_from_partial(readers.get(2), row)?),
        },
        Acc::LocalDistinct { inner, .. } => {
            let (inner_readers, distinct) = readers.split_at(readers.len().saturating_sub(1));
            Acc::LocalDistinct {
                inner: Box::new(from_partial(inner, inner_readers, row)?),
                map: counts_from_partial(distinct.first(), row)?,
            }
        }
        Acc::Object(_) => Acc::Object(JsonObject::from_pairs(
            readers.first().map_or_else(Vec::new, |r| r.pairs(row)),
        )?),
        Acc::ListWithRetract { .. } => {
            let list = |i: usize| readers.get(i).map_or_else(Vec::new, |r| r.list(row));
            Acc::ListWithRetract {
                list: list(0),
                retract_list: list(1),
            }
        }
        other => {
            return Err(Error::State(format!(
                "accumulator {other:?} has no partial form"
            )));
        }
    })
}

/// The local phase: one bundle of changelog input in, one partial row per key out.
pub struct LocalGroupAggregate {
    spec: GroupAggSpec,
    split: Split,
    hasher: KeyHasher,
    identity: PlanIdentity,
    mini_batch: MiniBatch<ChangelogBatch>,
    /// The local phase keeps no keyed state; the watermark is all it carries.
    pub(crate) watermark: Option<i64>,
}

impl std::fmt::Debug for LocalGroupAggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalGroupAggregate")
            .field("spec", &self.spec)
            .field("pending_rows", &self.mini_batch.rows())
            .finish_non_exhaustive()
    }
}

impl LocalGroupAggregate {
    /// The local phase of `spec`; fails for calls Flink (or this crate) does not split.
    pub fn new(spec: GroupAggSpec) -> Result<Self> {
        let mini_batch = MiniBatch::new(spec.mini_batch_rows)?;
        let split = Split::new(&spec)?;
        Ok(Self {
            hasher: KeyHasher::new(split.key_types.clone()),
            split,
            identity: Self::identity_of(&spec),
            spec,
            mini_batch,
            watermark: None,
        })
    }

    /// The plan's identity, as checkpoints record it.
    pub fn identity_of(spec: &GroupAggSpec) -> PlanIdentity {
        PlanIdentity::new(
            OperatorKind::LocalGroupAggregate,
            LOCAL_VERSION,
            &spec.semantics(),
        )
    }

    /// The plan.
    pub fn spec(&self) -> &GroupAggSpec {
        &self.spec
    }

    /// The plan's identity.
    pub fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    /// The partial rows' Flink types: grouping columns, then every call's fields.
    pub fn partial_types(&self) -> &[LogicalType] {
        &self.split.partial_types
    }

    /// An error while input is buffered: a checkpoint must follow the bundle's flush.
    pub(super) fn expect_no_pending(&self) -> Result<()> {
        self.mini_batch.expect_empty("mini-batch")
    }

    /// A local phase of `spec` resuming from `checkpoints` (its watermark; the local phase
    /// keeps no keyed state), each checked to be written for this plan.
    pub fn restore(spec: GroupAggSpec, checkpoints: &[Checkpoint]) -> Result<Self> {
        let mut op = Self::new(spec)?;
        op.watermark = crate::ops::restore_stateless(&op.identity, checkpoints)?;
        Ok(op)
    }

    /// The partial rows' schema (see the module docs).
    pub fn partial_schema(&self) -> &SchemaRef {
        &self.split.partial_schema
    }

    /// Buffers `input`; once `mini_batch_rows` rows are buffered (or at once without a
    /// mini-batch size), returns the bundle's partials, else an empty batch.
    pub fn process(&mut self, input: &ChangelogBatch) -> Result<RecordBatch> {
        check_input(&self.spec, input)?;
        if self.mini_batch.push(input.clone(), input.num_rows()) {
            self.flush()
        } else {
            Ok(RecordBatch::new_empty(self.split.partial_schema.clone()))
        }
    }

    /// The partials of the buffered bundle (Flink's bundle trigger, and what it does before
    /// a checkpoint barrier: the local phase keeps no state).
    pub fn flush(&mut self) -> Result<RecordBatch> {
        let pending = self.mini_batch.take();
        self.aggregate(&pending)
    }

    /// The partials of one bundle, without buffering.
    pub fn aggregate(&self, bundle: &[ChangelogBatch]) -> Result<RecordBatch> {
        let bundle: Vec<&ChangelogBatch> = bundle.iter().filter(|b| b.num_rows() > 0).collect();
        if bundle.is_empty() {
            return Ok(RecordBatch::new_empty(self.split.partial_schema.clone()));
        }
        for b in &bundle {
            check_input(&self.spec, b)?;
        }
        let owned: Vec<ChangelogBatch> = bundle.into_iter().cloned().collect();
        let input = concat(&owned)?;
        let batch = input.batch();
        let key_columns: Vec<ArrayRef> = self
            .spec
            .grouping
            .iter()
            .map(|&g| batch.column(g).clone())
            .collect();
        let (keys, hashes) = crate::keys::state_keys(
            &self.hasher,
            &key_columns,
            batch.num_rows(),
            self.spec.max_parallelism,
            &all_key_groups(self.spec.max_parallelism)?,
        )?;
        let (groups, row_slot) = Groups::of(keys, hashes);
        let calls = &self.split.calls;
        let inputs = CallInputs::new(calls, batch, &self.spec.input_types)?;
        // Maps stay in the accumulators: Flink's local phase keeps heap data views.
        let templates: Vec<Acc> = calls.iter().map(BoundCall::create_local).collect();
        // Every key's accumulators in one vector, `calls.len()` a key.
        let mut accs: Vec<Acc> = Vec::with_capacity(groups.len() * calls.len());
        for _ in 0..groups.len() {
            accs.extend_from_slice(&templates);
        }
        let per_key = calls.len();
        // `MiniBatchLocalGroupAggFunction.addInput`: no state, so nothing is ignored.
        for (row, &slot) in row_slot.iter().enumerate() {
            let negate = !input.kind(row).is_accumulate();
            let slot = slot as usize;
            let key_accs = &mut accs[slot * per_key..(slot + 1) * per_key];
            for (c, (call, acc)) in calls.iter().zip(key_accs).enumerate() {
                if let Some((x, y)) = inputs.read(c, row) {
                    call.update_weighted(acc, &x, &y, negate, inputs.weight(c, row), None)?;
                }
            }
        }

        let first_rows = UInt32Array::from(groups.first_rows().to_vec());
        let mut columns: Vec<ArrayRef> =
            Vec::with_capacity(self.split.partial_schema.fields().len());
        for key in &key_columns {
            columns.push(arrow::compute::take(key.as_ref(), &first_rows, None)?);
        }
        columns.extend(self.split.layout.columns(calls, &accs)?);
        Ok(RecordBatch::try_new(
            self.split.partial_schema.clone(),
            columns,
        )?)
    }
}

/// The global phase over one task's keyed state.
pub struct GlobalGroupAggregate {
    spec: GroupAggSpec,
    split: Split,
    hasher: KeyHasher,
    identity: PlanIdentity,
    keyed: Keyed,
    accs: AccTable,
    /// The maps of retracting MIN/MAX and DISTINCT calls that outgrow their accumulators.
    maps: Option<SortedMaps>,
    mini_batch: MiniBatch<RecordBatch>,
}

impl std::fmt::Debug for GlobalGroupAggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlobalGroupAggregate")
            .field("spec", &self.spec)
            .field("keyed", &self.keyed)
            .field("pending_rows", &self.mini_batch.rows())
            .finish_non_exhaustive()
    }
}

impl GlobalGroupAggregate {
    /// The global phase of `spec` over `store`, with TTL (if any) on the system clock.
    /// `spec.mini_batch_rows` counts partial rows per bundle.
    pub fn new(spec: GroupAggSpec, store: Box<dyn StateBackend>) -> Result<Self> {
        Self::with_clock(spec, store, Arc::new(SystemClock))
    }

    /// [`GlobalGroupAggregate::new`] with the processing-time clock TTL reads.
    pub fn with_clock(
        spec: GroupAggSpec,
        store: Box<dyn StateBackend>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        let keyed = Keyed::new(store, spec.max_parallelism, clock)?;
        Self::open(spec, keyed)
    }

    /// The plan's identity, as its checkpoints record it: distinct from the one-phase
    /// operator's, as the global state holds merged accumulators under its own table.
    pub fn identity_of(spec: &GroupAggSpec) -> PlanIdentity {
        PlanIdentity::new(
            OperatorKind::GlobalGroupAggregate,
            GLOBAL_VERSION,
            &spec.semantics(),
        )
    }

    /// The global phase of `spec` over the keyed driver `keyed` (fresh or restored).
    pub fn open(spec: GroupAggSpec, mut keyed: Keyed) -> Result<Self> {
        check_max_parallelism(&spec, &keyed)?;
        let mini_batch = MiniBatch::new(spec.mini_batch_rows)?;
        let split = Split::new(&spec)?;
        let ttl = state_ttl(&spec, keyed.clock().clone())?;
        let (accs, maps) = open_tables(
            keyed.store_mut(),
            (ACC_TABLE, MAP_TABLE),
            ttl.as_ref(),
            &split.calls,
        )?;
        Ok(Self {
            hasher: KeyHasher::new(split.key_types.clone()),
            split,
            identity: Self::identity_of(&spec),
            spec,
            keyed,
            accs,
            maps,
            mini_batch,
        })
    }

    /// The global phase owning `key_groups`, restored from `checkpoints` into a store of
    /// `config`, as [`super::GroupAggregate::restore`].
    pub fn restore(
        spec: GroupAggSpec,
        config: &StateConfig,
        key_groups: RangeInclusive<u16>,
        checkpoints: &[Checkpoint],
    ) -> Result<Self> {
        let keyed = Keyed::restore(
            config,
            "global-group-agg",
            &Self::identity_of(&spec),
            spec.max_parallelism,
            key_groups,
            checkpoints,
            crate::ops::keyed::RestoredWatermark::Unset,
        )?;
        Self::open(spec, keyed)
    }

    /// The plan.
    pub fn spec(&self) -> &GroupAggSpec {
        &self.spec
    }

    /// The keyed driver (store, key groups, watermark).
    pub fn keyed(&self) -> &Keyed {
        &self.keyed
    }

    pub(super) fn keyed_mut(&mut self) -> &mut Keyed {
        &mut self.keyed
    }

    /// The plan's identity, as checkpoints record it.
    pub fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    /// The partial rows' Flink types (its input).
    pub fn partial_types(&self) -> &[LogicalType] {
        &self.split.partial_types
    }

    /// The output's Flink types: grouping columns, then one per call.
    pub fn output_types(&self) -> &[LogicalType] {
        &self.split.output_types
    }

    /// The output schema: grouping columns, then one column per call.
    pub fn schema(&self) -> &SchemaRef {
        &self.split.schema
    }

    /// The partial rows' schema this operator takes.
    pub fn partial_schema(&self) -> &SchemaRef {
        &self.split.partial_schema
    }

    /// The state store.
    pub fn store(&self) -> &dyn StateBackend {
        self.keyed.store()
    }

    /// Buffers a batch of partials; returns the bundle's changelog once `mini_batch_rows`
    /// partial rows are buffered (or at once without a mini-batch size), else an empty
    /// batch.
    pub fn process(&mut self, partials: &RecordBatch) -> Result<ChangelogBatch> {
        self.check_partials(partials)?;
        if self.mini_batch.push(partials.clone(), partials.num_rows()) {
            self.flush()
        } else {
            Ok(self.empty())
        }
    }

    /// Applies the buffered partials now (the bundle trigger, and what Flink does before a
    /// checkpoint barrier).
    pub fn flush(&mut self) -> Result<ChangelogBatch> {
        if self.mini_batch.is_empty() {
            return Ok(self.empty());
        }
        let pending = self.mini_batch.take();
        let bundle = arrow::compute::concat_batches(&self.split.partial_schema, &pending)?;
        self.apply(&bundle)
    }

    /// Publishes a checkpoint of the operator's state at `target`. Buffered partials must
    /// be flushed first, as Flink flushes a bundle before the barrier.
    pub fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        self.mini_batch.expect_empty("partial")?;
        self.keyed.checkpoint(target, &self.identity)
    }

    fn empty(&self) -> ChangelogBatch {
        ChangelogBatch::insert_only(RecordBatch::new_empty(self.split.schema.clone()))
    }

    fn check_partials(&self, partials: &RecordBatch) -> Result<()> {
        let expected = self.split.partial_schema.fields();
        if partials.num_columns() != expected.len() {
            return Err(Error::LengthMismatch {
                context: "global aggregate partials".into(),
                left_name: "the partial schema",
                left: expected.len(),
                right_name: "the batch",
                right: partials.num_columns(),
            });
        }
        for (i, field) in expected.iter().enumerate() {
            let found = partials.column(i).data_type();
            if found != field.data_type() {
                return Err(Error::ColumnType {
                    column: i,
                    logical: field.name().clone(),
                    expected: field.data_type().to_string(),
                    found: found.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Applies one bundle of partials (`MiniBatchGlobalGroupAggFunction`).
    fn apply(&mut self, partials: &RecordBatch) -> Result<ChangelogBatch> {
        let n = partials.num_rows();
        if n == 0 {
            return Ok(self.empty());
        }
        let keys = self.spec.grouping.len();
        let key_columns: Vec<ArrayRef> = partials.columns()[..keys].to_vec();
        let (state_keys, hashes) = self.keyed.state_keys(&self.hasher, &key_columns, n)?;
        let (groups, row_slot) = Groups::of(state_keys, hashes);
        let slots = groups.len();
        let calls = &self.split.calls;
        let local: Vec<Acc> = calls.iter().map(BoundCall::create_local).collect();

        // `addInput`: each key's partials merged, in order, into a fresh buffer (heap maps).
        let readers = self.split.layout.readers(partials, keys)?;
        let mut buffers: Vec<Vec<Acc>> = vec![local.clone(); slots];
        for (row, &slot) in row_slot.iter().enumerate() {
            for (c, call) in calls.iter().enumerate() {
                let partial = readers.acc(c, &local[c], row)?;
                call.merge(&mut buffers[slot as usize][c], &partial, None)?;
            }
        }

        // `finishBundle`: each buffer merged into the stored accumulator, then emission.
        let mut tables = vec![self.accs.id()];
        tables.extend(self.maps.as_ref().map(SortedMaps::table));
        let order = access_order(self.keyed.store(), &tables, &groups);
        let (mut accs, persisted) = self.accs.read(self.keyed.store_mut(), &groups, &order)?;
        let map_calls = map_calls(calls);
        if let Some(maps) = &mut self.maps {
            // The entries a merge touches: the buffer's map keys.
            let entries: usize = buffers
                .iter()
                .flat_map(|b| map_calls.iter().map(|&c| buffer_map(&b[c]).len()))
                .sum();
            preload_maps(
                maps,
                self.keyed.store(),
                &groups,
                &order,
                &accs,
                &map_calls,
                (entries, entries * (groups.key_bytes() / slots.max(1) + 17)),
                |slot, c, values| {
                    for (bytes, _) in buffer_map(&buffers[slot][c]) {
                        values.push_with(|out| out.extend_from_slice(bytes));
                    }
                },
            )?;
        }
        let mut bundle = Bundle::new(
            calls,
            self.spec.calls.len(),
            self.split.counter,
            self.keyed.store(),
            self.maps.as_mut(),
            &map_calls,
            &groups,
            EmitRules::of(&self.spec),
            slots,
        );
        for (slot, buffer) in buffers.iter().enumerate() {
            bundle.merge(slot, buffer, &mut accs)?;
        }
        let out = bundle.out;

        write_bundle(
            self.keyed.store_mut(),
            &mut WriteBatch::new(),
            &self.accs,
            &groups,
            &order,
            (&mut accs, &persisted),
            self.maps.as_mut().map(|maps| (maps, map_calls.as_slice())),
        )?;
        out.finish(&self.split.schema, &key_columns, &self.split.result_types)
    }
}

/// The value -> count map a bundle buffer holds for a retracting MIN/MAX or DISTINCT call.
fn buffer_map(acc: &Acc) -> &[(Vec<u8>, i64)] {
    match acc {
        Acc::Extremum {
            inline: Some(map), ..
        }
        | Acc::LocalDistinct { map, .. } => map,
        _ => &[],
    }
}
