//! A mini-batch bundle of integer COUNT/SUM/SUM0 calls applied column by column
//! (decision 0021); a window aggregate's slices accumulate through the same kernels.
//!
//! The general [`super::group::Bundle`] reads every argument as a [`Value`], dispatches
//! every update on the call and accumulator, and builds results as `Value`s that become
//! Arrow arrays at the end. For the most common GROUP BY, `COUNT(*)`, `COUNT(x)` (of any
//! type: only its validity is read) and `SUM(x)`/`SUM0(x)` over TINYINT..BIGINT, that
//! interpreter was most of the bundle's accumulation. Here each call is one of four typed kernels over its argument's values as
//! `i64`s, a group's results are `Option<i64>`s compared and emitted without allocating, and
//! the result columns are built straight from them. The accumulators are the same
//! [`Acc`]s, so state, checkpoints and the general path agree byte for byte; emission follows
//! the same [`EmitRules::decide`].

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Int8Array, Int16Array, Int32Array, Int64Array, NullBufferBuilder,
    RecordBatch,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{DataType, Int64Type};

use super::acc_codec::AccCodec;
use super::function::{Acc, AggFunction, BoundCall};
use super::group::{Emit, EmitRules, GroupAccs, Groups, is_alive, output_keys};
use super::value::{Class, Value};
use crate::changelog::{ChangelogBatch, RowKind};
use crate::error::{Error, Result};
use crate::state::rows::heap::HeapBundle;

/// One call's kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kernel {
    CountStar,
    Count {
        arg: usize,
    },
    /// `SUM`: NULL until a value arrives; with retraction, NULL again when its count of
    /// values is zero.
    Sum {
        arg: usize,
        bits: u8,
        retracting: bool,
    },
    Sum0 {
        arg: usize,
        bits: u8,
    },
}

/// A plan's calls, when every one has a typed kernel.
#[derive(Debug, Clone)]
pub(super) struct TypedCalls {
    kernels: Vec<Kernel>,
}

impl TypedCalls {
    /// A fresh accumulator of call `c`.
    pub(super) fn fresh(&self, c: usize) -> Acc {
        self.kernels[c].fresh()
    }

    /// The kernels of `calls`, or `None` when any call needs the general path.
    pub(super) fn of(calls: &[BoundCall]) -> Option<Self> {
        let kernels = calls
            .iter()
            .map(|call| {
                if call.distinct
                    || call.filter.is_some()
                    || call.value_arg.is_some()
                    || call.merging
                {
                    return None;
                }
                let int = |class: Option<Class>| match class {
                    Some(Class::Int(bits)) => Some(bits),
                    _ => None,
                };
                Some(match (call.function, call.arg) {
                    (AggFunction::CountStar, _) => Kernel::CountStar,
                    (AggFunction::Count, Some(arg)) => Kernel::Count { arg },
                    (AggFunction::Sum, Some(arg)) => Kernel::Sum {
                        arg,
                        bits: int(call.class)?,
                        retracting: call.retracting,
                    },
                    (AggFunction::Sum0, Some(arg)) => Kernel::Sum0 {
                        arg,
                        bits: int(call.class)?,
                    },
                    _ => return None,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Self { kernels })
    }
}

/// An argument column: its validity (all `COUNT(x)` needs, of any type), and for a
/// `SUM`/`SUM0` argument its values widened to `i64`.
struct Argument {
    nulls: Option<NullBuffer>,
    ints: Option<Int64Array>,
}

impl Argument {
    /// Column `column`, widened when a sum reads it (`sums`).
    fn new(column: &ArrayRef, sums: bool) -> Result<Self> {
        let ints = if sums {
            let widened = match column.data_type() {
                DataType::Int64 => column.clone(),
                DataType::Int8 | DataType::Int16 | DataType::Int32 => {
                    arrow::compute::cast(column, &DataType::Int64)?
                }
                other => {
                    return Err(Error::State(format!(
                        "a typed SUM argument must be an integer column, got {other}"
                    )));
                }
            };
            Some(widened.as_primitive::<Int64Type>().clone())
        } else {
            None
        };
        Ok(Self {
            nulls: column.logical_nulls(),
            ints,
        })
    }

    #[inline]
    fn is_valid(&self, row: usize) -> bool {
        self.nulls.as_ref().is_none_or(|n| n.is_valid(row))
    }

    /// The value of `row` (NULL as `None`) of a sum's argument.
    #[inline]
    fn get(&self, row: usize) -> Option<i64> {
        let ints = self.ints.as_ref()?;
        self.is_valid(row).then(|| ints.value(row))
    }
}

/// `a + b` (or `a - b`) wrapped at `bits`, as Java's arithmetic on the argument type.
#[inline]
fn wrapping(bits: u8, a: i64, b: i64, negate: bool) -> i64 {
    let r = if negate {
        a.wrapping_sub(b)
    } else {
        a.wrapping_add(b)
    };
    match bits {
        8 => i64::from(r as i8),
        16 => i64::from(r as i16),
        32 => i64::from(r as i32),
        _ => r,
    }
}

impl Kernel {
    /// A fresh accumulator (`BoundCall::create` of the call).
    #[inline]
    fn fresh(self) -> Acc {
        match self {
            Kernel::CountStar | Kernel::Count { .. } => Acc::Count(0),
            Kernel::Sum { .. } => Acc::Sum {
                sum: Value::Null,
                count: 0,
            },
            Kernel::Sum0 { .. } => Acc::Sum0(Value::Int(0)),
        }
    }

    /// Applies `rows` (of one group, in input order; `negate[row]` for retractions) to
    /// `acc`.
    // Inlined into the bundle's loop: most groups have one row, where a call costs more
    // than the update.
    #[inline(always)]
    fn apply(
        self,
        acc: &mut Acc,
        args: &[Option<Argument>],
        rows: &[u32],
        negate: &[bool],
    ) -> Result<()> {
        let sign = |row: u32| if negate[row as usize] { -1 } else { 1 };
        match (self, acc) {
            (Kernel::CountStar, Acc::Count(count)) => {
                *count += rows.iter().map(|&r| sign(r)).sum::<i64>();
            }
            (Kernel::Count { arg }, Acc::Count(count)) => {
                let arg = argument(args, arg)?;
                *count += rows
                    .iter()
                    .filter(|&&r| arg.is_valid(r as usize))
                    .map(|&r| sign(r))
                    .sum::<i64>();
            }
            (Kernel::Sum { arg, bits, .. }, Acc::Sum { sum, count }) => {
                let arg = argument(args, arg)?;
                // The sum is NULL until its first value; a retraction of a NULL sum is
                // `0 - x`.
                let mut total = match sum {
                    Value::Int(s) => Some(*s),
                    Value::Null => None,
                    other => return Err(unexpected("SUM", other)),
                };
                for &row in rows {
                    if let Some(x) = arg.get(row as usize) {
                        let neg = negate[row as usize];
                        total = Some(wrapping(bits, total.unwrap_or(0), x, neg));
                        *count += if neg { -1 } else { 1 };
                    }
                }
                *sum = total.map_or(Value::Null, Value::Int);
            }
            (Kernel::Sum0 { arg, bits }, Acc::Sum0(sum)) => {
                let arg = argument(args, arg)?;
                let Value::Int(total) = sum else {
                    return Err(unexpected("SUM0", sum));
                };
                for &row in rows {
                    if let Some(x) = arg.get(row as usize) {
                        *total = wrapping(bits, *total, x, negate[row as usize]);
                    }
                }
            }
            (kernel, acc) => {
                return Err(Error::State(format!(
                    "{kernel:?} cannot update the accumulator {acc:?}"
                )));
            }
        }
        Ok(())
    }

    /// `getValue`.
    #[inline(always)]
    fn result(self, acc: &Acc) -> Option<i64> {
        match (self, acc) {
            (Kernel::CountStar | Kernel::Count { .. }, Acc::Count(c)) => Some(*c),
            (Kernel::Sum { retracting, .. }, Acc::Sum { sum, count }) => match sum {
                Value::Int(s) if !(retracting && *count == 0) => Some(*s),
                _ => None,
            },
            (Kernel::Sum0 { .. }, Acc::Sum0(Value::Int(s))) => Some(*s),
            _ => None,
        }
    }
}

fn argument(args: &[Option<Argument>], arg: usize) -> Result<&Argument> {
    args[arg]
        .as_ref()
        .ok_or_else(|| Error::State(format!("argument column {arg} was not prepared")))
}

fn unexpected(call: &str, value: &Value) -> Error {
    Error::State(format!(
        "{call} of integers holds a non-integer sum {value:?}"
    ))
}

/// Where a typed bundle finds and changes its groups' accumulators: copies read from
/// state ([`GroupAccs`]) or the heap table itself ([`HeapBundle`]).
pub(super) trait BundleAccs {
    /// Group `group`'s accumulators, if it has state.
    fn get(&self, group: usize) -> Option<&[Acc]>;
    /// Group `group`'s accumulators to change, fresh if it has no state; it has state from
    /// now on.
    fn get_or_create(&mut self, group: usize) -> &mut [Acc];
    /// Group `group`'s record count reached zero: its state goes.
    fn remove(&mut self, group: usize);
}

impl BundleAccs for GroupAccs {
    fn get(&self, group: usize) -> Option<&[Acc]> {
        GroupAccs::get(self, group)
    }

    fn get_or_create(&mut self, group: usize) -> &mut [Acc] {
        GroupAccs::get_or_create(self, group).0
    }

    fn remove(&mut self, group: usize) {
        GroupAccs::remove(self, group);
    }
}

impl BundleAccs for HeapBundle<'_, AccCodec> {
    fn get(&self, group: usize) -> Option<&[Acc]> {
        HeapBundle::get(self, group)
    }

    fn get_or_create(&mut self, group: usize) -> &mut [Acc] {
        HeapBundle::get_or_create(self, group)
    }

    fn remove(&mut self, group: usize) {
        HeapBundle::remove(self, group);
    }
}

/// One result column being built: values (0 where NULL) and validity, as Arrow lays
/// them out.
struct ResultColumn {
    values: Vec<i64>,
    valid: NullBufferBuilder,
}

/// A bundle's output changelog with integer results.
pub(super) struct TypedChanges {
    kinds: Vec<i8>,
    key_rows: Vec<u32>,
    /// Per visible call, the result of each output row.
    results: Vec<ResultColumn>,
}

impl TypedChanges {
    fn new(capacity: usize, visible: usize) -> Self {
        Self {
            kinds: Vec::with_capacity(capacity),
            key_rows: Vec::with_capacity(capacity),
            results: (0..visible)
                .map(|_| ResultColumn {
                    values: Vec::with_capacity(capacity),
                    valid: NullBufferBuilder::new(capacity),
                })
                .collect(),
        }
    }

    #[inline]
    fn push(&mut self, kind: RowKind, key_row: u32, results: &[Option<i64>]) {
        self.kinds.push(kind.to_byte());
        self.key_rows.push(key_row);
        for (column, &r) in self.results.iter_mut().zip(results) {
            column.values.push(r.unwrap_or(0));
            column.valid.append(r.is_some());
        }
    }

    /// The changelog: key columns taken from `key_columns`, results at their types.
    pub(super) fn finish(
        self,
        schema: &arrow::datatypes::SchemaRef,
        key_columns: &[ArrayRef],
        result_types: &[DataType],
    ) -> Result<ChangelogBatch> {
        let mut columns = output_keys(&self.key_rows, key_columns, schema.fields().len())?;
        for (column, ty) in self.results.into_iter().zip(result_types) {
            let ResultColumn { values, mut valid } = column;
            let nulls = valid.finish();
            // Sums are already wrapped at their width, so narrowing is exact.
            let array: ArrayRef = match ty {
                DataType::Int64 => Arc::new(Int64Array::new(values.into(), nulls)),
                DataType::Int32 => Arc::new(Int32Array::new(
                    values.iter().map(|&v| v as i32).collect(),
                    nulls,
                )),
                DataType::Int16 => Arc::new(Int16Array::new(
                    values.iter().map(|&v| v as i16).collect(),
                    nulls,
                )),
                DataType::Int8 => Arc::new(Int8Array::new(
                    values.iter().map(|&v| v as i8).collect(),
                    nulls,
                )),
                other => {
                    return Err(Error::State(format!(
                        "a typed COUNT/SUM result must be an integer, got {other}"
                    )));
                }
            };
            columns.push(array);
        }
        let batch = arrow::array::RecordBatch::try_new(schema.clone(), columns)?;
        ChangelogBatch::try_new(batch, Some(Int8Array::from(self.kinds)))
    }
}

impl TypedCalls {
    /// The columns of `batch` the kernels read, by column index.
    fn arguments(&self, batch: &RecordBatch) -> Result<Vec<Option<Argument>>> {
        let read = |c: usize| {
            let (mut read, mut sums) = (false, false);
            for kernel in &self.kernels {
                match *kernel {
                    Kernel::Count { arg } if arg == c => read = true,
                    Kernel::Sum { arg, .. } | Kernel::Sum0 { arg, .. } if arg == c => {
                        (read, sums) = (true, true);
                    }
                    _ => {}
                }
            }
            read.then(|| Argument::new(batch.column(c), sums))
                .transpose()
        };
        (0..batch.num_columns()).map(read).collect()
    }

    /// Accumulates insertions into their groups' accumulators, without emitting (a window
    /// aggregate's `AggCombiner`): `rows_of(g, rows)` fills `rows` with group `g`'s rows of
    /// `batch`, in input order.
    pub(super) fn accumulate(
        &self,
        batch: &RecordBatch,
        groups: usize,
        mut rows_of: impl FnMut(usize, &mut Vec<u32>),
        accs: &mut impl BundleAccs,
    ) -> Result<()> {
        let args = self.arguments(batch)?;
        let negate = vec![false; batch.num_rows()];
        let mut rows = Vec::new();
        for group in 0..groups {
            rows.clear();
            rows_of(group, &mut rows);
            let accs = accs.get_or_create(group);
            for (kernel, acc) in self.kernels.iter().zip(accs) {
                kernel.apply(acc, &args, &rows, &negate)?;
            }
        }
        Ok(())
    }

    /// Applies a mini-batch bundle (`MiniBatchGroupAggFunction.finishBundle`): each group's
    /// rows (`grouped[starts[s]..starts[s + 1]]`, in input order) to its accumulators in
    /// `accs`, then its emission under `rules`. `visible` calls are output; `counter` is
    /// the record counter's call.
    pub(super) fn apply_bundle(
        &self,
        input: &ChangelogBatch,
        groups: &Groups,
        (starts, grouped): (&[u32], &[u32]),
        accs: &mut impl BundleAccs,
        (visible, counter, rules): (usize, Option<usize>, EmitRules),
    ) -> Result<TypedChanges> {
        let args = self.arguments(input.batch())?;
        let negate: Vec<bool> = (0..input.num_rows())
            .map(|r| !input.kind(r).is_accumulate())
            .collect();
        let mut out = TypedChanges::new(groups.len(), visible);
        let (mut prev, mut new) = (vec![None; visible], vec![None; visible]);
        let kernels = &self.kernels;
        for slot in 0..groups.len() {
            let mut rows = &grouped[starts[slot] as usize..starts[slot + 1] as usize];
            let first = accs.get(slot).is_none();
            if first {
                // No state: leading retractions are ignored.
                match rows.iter().position(|&r| !negate[r as usize]) {
                    Some(start) => rows = &rows[start..],
                    None => continue,
                }
            } else if let Some(values) = accs.get(slot) {
                for (p, (kernel, acc)) in prev.iter_mut().zip(kernels.iter().zip(values)) {
                    *p = kernel.result(acc);
                }
            }
            let values = accs.get_or_create(slot);
            for (kernel, acc) in kernels.iter().zip(values.iter_mut()) {
                kernel.apply(acc, &args, rows, &negate)?;
            }
            let alive = is_alive(counter, values);
            if alive {
                for (n, (kernel, acc)) in new.iter_mut().zip(kernels.iter().zip(values.iter())) {
                    *n = kernel.result(acc);
                }
            }
            let key_row = groups.first_rows()[slot];
            match rules.decide(first, alive, || prev == new) {
                Emit::Nothing => {}
                Emit::Insert => out.push(RowKind::Insert, key_row, &new),
                Emit::Update { before } => {
                    if before {
                        out.push(RowKind::UpdateBefore, key_row, &prev);
                    }
                    out.push(RowKind::UpdateAfter, key_row, &new);
                }
                Emit::Delete => out.push(RowKind::Delete, key_row, &prev),
            }
            if !alive {
                accs.remove(slot);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::AggCall;
    use crate::types::LogicalType;

    #[test]
    fn kernels_cover_integer_calls_and_start_from_the_calls_accumulators() {
        let types = [
            LogicalType::TinyInt,
            LogicalType::SmallInt,
            LogicalType::Int,
            LogicalType::BigInt,
            LogicalType::Double,
        ];
        for retracts in [false, true] {
            for (arg, ty) in types.iter().enumerate() {
                for function in [
                    AggFunction::CountStar,
                    AggFunction::Count,
                    AggFunction::Sum,
                    AggFunction::Sum0,
                    AggFunction::Avg,
                    AggFunction::Max,
                ] {
                    let arg = (function != AggFunction::CountStar).then_some(arg);
                    let call = BoundCall::bind(&AggCall::new(function, arg, "c"), &types, retracts)
                        .unwrap();
                    let typed = TypedCalls::of(std::slice::from_ref(&call));
                    let expected = match function {
                        AggFunction::CountStar | AggFunction::Count => true,
                        AggFunction::Sum | AggFunction::Sum0 => *ty != LogicalType::Double,
                        _ => false,
                    };
                    assert_eq!(typed.is_some(), expected, "{function:?} of {ty}");
                    if let Some(typed) = typed {
                        assert_eq!(typed.kernels[0].fresh(), call.create(), "{function:?}");
                    }
                }
            }
        }
    }
}
