//! Aggregate functions: result types and accumulators with Flink's semantics.
//!
//! Each function follows the released Flink implementation the planner picks:
//!
//! | call | without retraction | with retraction (update input) |
//! |---|---|---|
//! | `COUNT(*)`, `COUNT(x)` | `Count1AggFunction`, `CountAggFunction` | same, `- 1` on retract |
//! | `SUM(x)` | `SumAggFunction`: `sum` | `SumWithRetractAggFunction`: `(sum, count)` |
//! | `$SUM0(x)` | `Sum0AggFunction` | same, `minus` on retract |
//! | `AVG(x)` | `AvgAggFunction`: `(sum, count)` | same |
//! | `MIN/MAX(x)` | `Min/MaxAggFunction`: SQL `<`/`>` | `Min/MaxWithRetractAggFunction`: a sorted map |
//! | `FIRST_VALUE/LAST_VALUE(x)` | first/last non-NULL value | `First/LastValueWithRetractAggFunction`: the values in arrival order |
//! | `SINGLE_VALUE(x)` | `SingleValueAggFunction`: `(value, count)`, a second row fails | same |
//! | `LISTAGG(x [, sep])` | `ListAggFunction` (a separator column: the running concatenation) | `ListAgg[Ws]WithRetractAggFunction`: the list (and last delimiter) |
//! | `JSON_ARRAYAGG(x {ABSENT,NULL} ON NULL)` | `JsonArrayAggFunction`: the list | same |
//! | `JSON_OBJECTAGG(KEY k VALUE v {NULL,ABSENT} ON NULL)` | `JsonObjectAggFunction`: a key -> JSON map | same |
//! | `$WELFORD_M2(x)` (STDDEV/VAR) | `WelfordM2AggFunction`: `(n, mean, m2)` | same |
//! | `ARRAY_AGG(x [IGNORE NULLS])` | `ArrayAggFunction`: the list | same |
//! | `PERCENTILE(x, p)`, `PERCENTILE(x, ARRAY[p, ..])` | `Single/MultiPercentileAggFunction`: value -> count, sorted | same |
//! | `f(DISTINCT x)` | a distinct map value -> count in front of `f` | same (not MIN/MAX) |
//! | `f(x) FILTER (WHERE b)` | `f` fed only the rows whose `b` is TRUE | same |
//!
//! FIRST_VALUE/LAST_VALUE with retraction order values by `System.currentTimeMillis()` at
//! accumulation and keep `value -> [order]` and `order -> [value]` maps; with a clock that
//! does not go back this is the list of values in arrival order, a retraction removing the
//! earliest `equals` one, FIRST/LAST being its front/back. LISTAGG with retraction removes
//! the first `equals` element; an absent one goes to a `retractList` that is only read by
//! `merge`, which a GROUP BY never calls, so it is not kept. Both lists live in the
//! accumulator, read and written with it once per bundle.
//!
//! Retracting MIN/MAX keep their value -> count map inside the accumulator too while it is
//! small (up to [`INLINE_ENTRIES`] values and [`INLINE_BYTES`] bytes), and in the sorted-map
//! table once it outgrows that: most groups then cost one state entry, not one per value.
//!
//! JSON_OBJECTAGG keeps Flink's `MapView<key, JSON_STRING(v)>` inside the accumulator,
//! sorted by key as Flink's JSON mapper writes the object (see [`JsonObject`]). A key
//! already in the map fails, as Flink fails the job; retraction removes the key whatever the
//! value.
//!
//! DISTINCT (the planner's `DistinctAggCodeGen`, one value -> count map per group and call,
//! kept in [`super::sorted_map`]): accumulate adds 1 and feeds `f` when the count becomes 1;
//! retract subtracts 1 and retracts from `f` when it becomes 0; a count of 0 removes the
//! entry. A retraction of a value the group does not hold thus leaves -1, which cancels the
//! next accumulation of it. Keys are Java `equals`: -0.0 and 0.0 differ, NaNs are one.
//!
//! Two-phase partials and the global operator's bundle buffers keep both kinds of map in
//! the accumulator instead, whatever their size ([`BoundCall::create_local`]), as Flink's
//! local functions keep heap views; [`BoundCall::merge`] merges them with Flink's `merge`.
//!
//! Arithmetic is Java's: integer sums wrap at the argument's width (`SUM(INT)` is `INT`),
//! FLOAT sums round to `float` after every step, `AVG` of an integer type divides `BIGINT`
//! sum by `BIGINT` count and truncates, DECIMAL sums are `DECIMAL(38, s)` and become NULL on
//! overflow, as `DecimalData.add` does.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::value::{Class, Value, compare, java_equals, sql_greater};
use crate::error::{Error, Result};
use crate::types::LogicalType;

/// A retracting MIN/MAX keeps its value -> count map inside the accumulator up to this many
/// distinct values ...
const INLINE_ENTRIES: usize = 16;
/// ... and this many bytes of order-encoded values; beyond either, in the sorted-map table.
const INLINE_BYTES: usize = 1024;

/// The aggregate functions the operators run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AggFunction {
    /// `COUNT(*)`: every row.
    CountStar,
    /// `COUNT(x)`: non-NULL values.
    Count,
    /// `SUM(x)`: NULL when there is no non-NULL value.
    Sum,
    /// `$SUM0(x)`: the planner's SUM that starts at zero (e.g. for `COUNT`-derived sums).
    Sum0,
    /// `AVG(x)`.
    Avg,
    /// `MIN(x)`.
    Min,
    /// `MAX(x)`.
    Max,
    /// `FIRST_VALUE(x)`: the first non-NULL value.
    FirstValue,
    /// `LAST_VALUE(x)`: the last non-NULL value.
    LastValue,
    /// `SINGLE_VALUE(x)`: the only row's value; a second row is an error.
    SingleValue,
    /// `LISTAGG(x [, separator])`: the non-NULL strings joined, NULL when there are none.
    #[serde(rename = "LISTAGG")]
    ListAgg,
    /// `JSON_ARRAYAGG(x ABSENT ON NULL)` (the default): a JSON array of the non-NULL values.
    /// `arg` is the value column itself: the call includes the `JSON_STRING(x)` projection
    /// the planner puts in front of `JsonArrayAggFunction`.
    #[serde(rename = "JSON_ARRAYAGG_ABSENT_ON_NULL")]
    JsonArrayAggAbsentOnNull,
    /// `JSON_ARRAYAGG(x NULL ON NULL)`: a JSON array with `null` for NULL values.
    #[serde(rename = "JSON_ARRAYAGG_NULL_ON_NULL")]
    JsonArrayAggNullOnNull,
    /// `JSON_OBJECTAGG(KEY k VALUE v NULL ON NULL)` (the default): a JSON object of every
    /// row's key and value, `null` for a NULL value. `arg` is the key column, `value_arg`
    /// the value column (the call includes the planner's `JSON_STRING(v)`).
    #[serde(rename = "JSON_OBJECTAGG_NULL_ON_NULL")]
    JsonObjectAggNullOnNull,
    /// `JSON_OBJECTAGG(KEY k VALUE v ABSENT ON NULL)`: rows with a NULL value are left out.
    #[serde(rename = "JSON_OBJECTAGG_ABSENT_ON_NULL")]
    JsonObjectAggAbsentOnNull,
    /// `$WELFORD_M2(x)`: the sum of squared deviations from the mean of the non-NULL values
    /// (Welford's online algorithm, `WelfordM2AggFunction`), DOUBLE. The planner rewrites
    /// `STDDEV_POP/SAMP` and `VAR_POP/SAMP` into it and a `COUNT(x)`, with the division (and
    /// square root) in a Calc after the aggregate.
    #[serde(rename = "WELFORD_M2")]
    WelfordM2,
    /// `ARRAY_AGG(x [RESPECT NULLS | IGNORE NULLS])`: the values in arrival order, NULLs
    /// too unless [`AggCall::ignore_nulls`]; NULL when there are none (`ArrayAggFunction`).
    #[serde(rename = "ARRAY_AGG")]
    ArrayAgg,
    /// `PERCENTILE(x, p)`: the `p`-th percentile of the non-NULL values as DOUBLE, linearly
    /// interpolated (`SinglePercentileAggFunction`); `p` is [`AggCall::value_arg`]'s column
    /// (the planner's projection of the literal), read at the first accumulated row.
    #[serde(rename = "PERCENTILE")]
    Percentile,
}

impl AggFunction {
    /// The SQL name.
    pub fn sql_name(self) -> &'static str {
        match self {
            AggFunction::CountStar => "COUNT(*)",
            AggFunction::Count => "COUNT",
            AggFunction::Sum => "SUM",
            AggFunction::Sum0 => "$SUM0",
            AggFunction::Avg => "AVG",
            AggFunction::Min => "MIN",
            AggFunction::Max => "MAX",
            AggFunction::FirstValue => "FIRST_VALUE",
            AggFunction::LastValue => "LAST_VALUE",
            AggFunction::SingleValue => "SINGLE_VALUE",
            AggFunction::ListAgg => "LISTAGG",
            AggFunction::JsonArrayAggAbsentOnNull => "JSON_ARRAYAGG ABSENT ON NULL",
            AggFunction::JsonArrayAggNullOnNull => "JSON_ARRAYAGG NULL ON NULL",
            AggFunction::JsonObjectAggNullOnNull => "JSON_OBJECTAGG NULL ON NULL",
            AggFunction::JsonObjectAggAbsentOnNull => "JSON_OBJECTAGG ABSENT ON NULL",
            AggFunction::WelfordM2 => "$WELFORD_M2",
            AggFunction::ArrayAgg => "ARRAY_AGG",
            AggFunction::Percentile => "PERCENTILE",
        }
    }

    /// Whether the function takes a second argument column ([`AggCall::value_arg`]).
    pub fn takes_value_arg(self) -> bool {
        matches!(
            self,
            AggFunction::JsonObjectAggNullOnNull
                | AggFunction::JsonObjectAggAbsentOnNull
                | AggFunction::Percentile
        )
    }
}

/// One aggregate call of a GROUP BY. Options left unset are left out of its JSON, so the
/// plan semantics a checkpoint records ([`super::GroupAggSpec::semantics`]) of a call that
/// does not use them read as they did before the options existed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AggCall {
    /// The function.
    pub function: AggFunction,
    /// The input column it aggregates; `None` only for `COUNT(*)`.
    pub arg: Option<usize>,
    /// The output column's name.
    pub name: String,
    /// `f(DISTINCT x)`: each distinct non-NULL value fed to `f` once.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub distinct: bool,
    /// `f(x) FILTER (WHERE ..)`: the BOOLEAN input column that admits a row (accumulated or
    /// retracted) when TRUE; `None` admits every row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<usize>,
    /// `ARRAY_AGG(x IGNORE NULLS)`: NULL values are left out (ARRAY_AGG only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_nulls: bool,
    /// JSON_ARRAYAGG/JSON_OBJECTAGG over a value column that is JSON text already (Flink's
    /// plans compute `JSON_STRING(v)` in the Calc before the aggregate); otherwise the call
    /// makes the JSON text of a string or integer value itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub json_text: bool,
    /// PERCENTILE's percentage literal (an OVER node's constant), instead of a column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentage: Option<Percentage>,
    /// LISTAGG's separator literal; `None` is the default `,`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
    /// The second argument column of a two-argument call (JSON_OBJECTAGG's value, `arg`
    /// being its key; LISTAGG's separator column); `None` for every other call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_arg: Option<usize>,
    /// PERCENTILE's frequency column (`PERCENTILE(x, p, freq)`): each row counts `freq`
    /// times, a NULL or non-positive frequency not at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<usize>,
}

impl AggCall {
    /// A call of `function` over column `arg`.
    pub fn new(function: AggFunction, arg: Option<usize>, name: impl Into<String>) -> Self {
        Self {
            function,
            arg,
            name: name.into(),
            distinct: false,
            filter: None,
            ignore_nulls: false,
            json_text: false,
            percentage: None,
            separator: None,
            value_arg: None,
            frequency: None,
        }
    }

    /// `JSON_OBJECTAGG(KEY key VALUE value {NULL,ABSENT} ON NULL)`.
    pub fn json_object_agg(
        key: usize,
        value: usize,
        null_on_null: bool,
        name: impl Into<String>,
    ) -> Self {
        let function = if null_on_null {
            AggFunction::JsonObjectAggNullOnNull
        } else {
            AggFunction::JsonObjectAggAbsentOnNull
        };
        let mut call = Self::new(function, Some(key), name);
        call.value_arg = Some(value);
        call
    }

    /// The same call over distinct values (`f(DISTINCT x)`).
    pub fn distinct(mut self) -> Self {
        self.distinct = true;
        self
    }

    /// The same call over the rows whose BOOLEAN column `column` is TRUE
    /// (`f(x) FILTER (WHERE ..)`).
    pub fn filtered(mut self, column: usize) -> Self {
        self.filter = Some(column);
        self
    }

    /// The same JSON aggregate over a column of JSON text (the planner's `JSON_STRING(v)`).
    pub fn over_json_text(mut self) -> Self {
        self.json_text = true;
        self
    }

    /// The same call leaving NULL values out (`ARRAY_AGG(x IGNORE NULLS)`).
    pub fn ignoring_nulls(mut self) -> Self {
        self.ignore_nulls = true;
        self
    }

    /// LISTAGG with its separator read from column `column`, as Flink's plan passes it.
    pub fn with_separator_column(mut self, column: usize) -> Self {
        self.value_arg = Some(column);
        self
    }

    /// PERCENTILE with its percentage read from column `column`, as Flink's plan passes it.
    pub fn with_percentage_column(mut self, column: usize) -> Self {
        self.value_arg = Some(column);
        self
    }

    /// PERCENTILE weighting each row by its integer column `column` (`PERCENTILE(x, p, freq)`).
    pub fn with_frequency_column(mut self, column: usize) -> Self {
        self.frequency = Some(column);
        self
    }

    /// PERCENTILE with a percentage literal (an OVER node's constant).
    pub fn with_percentage(mut self, percentage: f64) -> Self {
        self.percentage = Some(Percentage(percentage));
        self
    }

    /// The same call with a separator literal (`LISTAGG(x, 'sep')`).
    pub fn with_separator(mut self, separator: impl Into<String>) -> Self {
        self.separator = Some(separator.into());
        self
    }
}

/// A PERCENTILE percentage literal; equal when bit-identical, so plans compare exactly.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Percentage(pub f64);

impl PartialEq for Percentage {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Percentage {}

/// A call checked against the input types.
#[derive(Debug, Clone)]
pub(crate) struct BoundCall {
    pub(crate) function: AggFunction,
    pub(crate) arg: Option<usize>,
    /// The argument's type and class (`COUNT(*)` has none).
    pub(crate) arg_type: Option<LogicalType>,
    pub(crate) class: Option<Class>,
    pub(crate) result: LogicalType,
    /// Whether the input can retract, which selects the retracting implementations.
    pub(crate) retracting: bool,
    /// Whether a distinct map sits in front of the function.
    pub(crate) distinct: bool,
    /// The BOOLEAN column whose TRUE admits a row (`FILTER (WHERE ..)`).
    pub(crate) filter: Option<usize>,
    /// ARRAY_AGG's IGNORE NULLS.
    pub(crate) ignore_nulls: bool,
    /// The JSON aggregates' values are JSON text already.
    pub(crate) json_text: bool,
    /// PERCENTILE's percentage literal.
    pub(crate) percentage: Option<f64>,
    /// LISTAGG's separator.
    separator: Vec<u8>,
    /// The second argument column (JSON_OBJECTAGG's value).
    pub(crate) value_arg: Option<usize>,
    /// PERCENTILE's frequency column.
    pub(crate) frequency: Option<usize>,
    /// Whether accumulators are merged (two-phase aggregation): LISTAGG with retraction
    /// then keeps the retractions it could not apply, which only `merge` reads.
    pub(crate) merging: bool,
}

impl BoundCall {
    /// Checks `call` against `input` (the input's column types).
    pub(crate) fn bind(call: &AggCall, input: &[LogicalType], retracting: bool) -> Result<Self> {
        let invalid = |why: String| {
            Error::InvalidShape(format!(
                "aggregate {} ({}): {why}",
                call.name,
                call.function.sql_name()
            ))
        };
        let arg_type = match (call.function, call.arg) {
            (AggFunction::CountStar, None) => None,
            (AggFunction::CountStar, Some(_)) => {
                return Err(invalid("COUNT(*) takes no argument".into()));
            }
            (_, None) => return Err(invalid("needs an argument column".into())),
            (_, Some(i)) => Some(input.get(i).ok_or_else(|| {
                invalid(format!(
                    "argument column {i} is out of range for {} input columns",
                    input.len()
                ))
            })?),
        };
        let class = arg_type.map(Class::of).transpose()?;
        // LISTAGG's separator may be a column (the planner's projection of the literal).
        let separator_column = call.function == AggFunction::ListAgg;
        let value_arg = match (call.function.takes_value_arg(), call.value_arg) {
            (takes, Some(i)) if takes || separator_column => {
                let ty = input.get(i).ok_or_else(|| {
                    invalid(format!(
                        "value column {i} is out of range for {} input columns",
                        input.len()
                    ))
                })?;
                if call.function == AggFunction::Percentile {
                    // One percentage (DOUBLE) or several (ARRAY<DOUBLE>).
                    let ok = match ty {
                        LogicalType::Array(element) => **element == LogicalType::Double,
                        other => *other == LogicalType::Double,
                    };
                    if !ok {
                        return Err(invalid(format!(
                            "the percentage column {i} must be DOUBLE or ARRAY<DOUBLE>, not {ty}"
                        )));
                    }
                } else {
                    let class = Class::of(ty)?;
                    if separator_column {
                        if class != Class::String || call.separator.is_some() {
                            return Err(invalid(format!(
                                "the separator column {i} must be a character string ({ty}) \
                                 and the only separator"
                            )));
                        }
                    // The planner feeds `JSON_STRING(v)`; only the JSON texts of strings and
                    // integers are made here, as for JSON_ARRAYAGG.
                    } else if !matches!(class, Class::String | Class::Int(_)) {
                        return Err(invalid(format!(
                            "a value of type {ty} is not supported yet (only character \
                             strings and integers)"
                        )));
                    }
                }
                Some(i)
            }
            (true, None) if call.function == AggFunction::Percentile => {
                match call.percentage.map(|p| p.0) {
                    Some(p) if !percentage_outside(p) => None,
                    Some(p) => {
                        return Err(invalid(format!(
                            "Percentage of PERCENTILE should be between [0.0, 1.0], but was \
                             '{p:?}'."
                        )));
                    }
                    None => return Err(invalid("needs a percentage column or literal".into())),
                }
            }
            (true, None) => return Err(invalid("needs a value column".into())),
            (_, Some(_)) => return Err(invalid("takes no value column".into())),
            (false, None) => None,
        };
        let result = match (call.function, arg_type, class) {
            (AggFunction::CountStar | AggFunction::Count, _, _) => LogicalType::BigInt,
            (AggFunction::Sum | AggFunction::Sum0, Some(ty), Some(c)) if c.is_numeric() => {
                match c {
                    Class::Decimal { scale, .. } => LogicalType::Decimal {
                        precision: 38,
                        scale,
                    },
                    _ => ty.clone(),
                }
            }
            (AggFunction::Avg, Some(ty), Some(Class::Int(_) | Class::Float32 | Class::Float64)) => {
                ty.clone()
            }
            // `LogicalTypeMerging.findAvgAggType`: DECIMAL(38, max(6, s)).
            (AggFunction::Avg, Some(_), Some(Class::Decimal { scale, .. })) => {
                LogicalType::Decimal {
                    precision: 38,
                    scale: scale.max(6),
                }
            }
            (AggFunction::WelfordM2, Some(_), Some(c)) if c.is_numeric() => LogicalType::Double,
            // `Single/MultiPercentileAggFunction`: DOUBLE, or ARRAY<DOUBLE> for several.
            (AggFunction::Percentile, Some(_), Some(c)) if c.is_numeric() => {
                match call.value_arg.and_then(|i| input.get(i)) {
                    Some(LogicalType::Array(_)) => {
                        LogicalType::Array(Box::new(LogicalType::Double))
                    }
                    _ => LogicalType::Double,
                }
            }
            // `ArrayAggFunction.getOutputDataType`: ARRAY of the argument's type.
            (AggFunction::ArrayAgg, Some(ty), _) => LogicalType::Array(Box::new(ty.clone())),
            // Flink's AggFunctionFactory has no MIN/MAX for binary strings either ("Min
            // aggregate function does not support type").
            (AggFunction::Min | AggFunction::Max, Some(ty), Some(Class::Binary)) => {
                return Err(invalid(format!(
                    "MIN/MAX over {ty} is not supported (nor by Flink)"
                )));
            }
            (AggFunction::ListAgg, Some(_), Some(Class::String)) => {
                LogicalType::VarChar(i32::MAX as u32)
            }
            // The planner feeds JsonArrayAggFunction `JSON_STRING(x)` and declares the result
            // VARCHAR(2000); only the JSON texts of strings and integers are made here.
            (
                AggFunction::JsonArrayAggAbsentOnNull | AggFunction::JsonArrayAggNullOnNull,
                Some(_),
                Some(Class::String | Class::Int(_)),
            ) => LogicalType::VarChar(2000),
            (
                AggFunction::JsonArrayAggAbsentOnNull | AggFunction::JsonArrayAggNullOnNull,
                Some(ty),
                _,
            ) => {
                return Err(invalid(format!(
                    "JSON_ARRAYAGG over {ty} is not supported yet (only character strings and \
                     integers)"
                )));
            }
            (AggFunction::ListAgg, Some(ty), _) => {
                return Err(invalid(format!(
                    "LISTAGG takes a character string, not {ty}"
                )));
            }
            // Flink's type strategy: a character-string key; the planner declares the result
            // VARCHAR(2000), as for JSON_ARRAYAGG.
            (
                AggFunction::JsonObjectAggNullOnNull | AggFunction::JsonObjectAggAbsentOnNull,
                Some(_),
                Some(Class::String),
            ) => LogicalType::VarChar(2000),
            (
                AggFunction::JsonObjectAggNullOnNull | AggFunction::JsonObjectAggAbsentOnNull,
                Some(ty),
                _,
            ) => {
                return Err(invalid(format!(
                    "the JSON_OBJECTAGG key must be a character string, not {ty}"
                )));
            }
            (
                AggFunction::Min
                | AggFunction::Max
                | AggFunction::FirstValue
                | AggFunction::LastValue
                | AggFunction::SingleValue,
                Some(ty),
                _,
            ) => ty.clone(),
            (_, Some(ty), _) => {
                return Err(invalid(format!("{ty} is not a numeric type")));
            }
            (_, None, _) => unreachable!("checked above: only COUNT(*) has no argument"),
        };
        // A distinct map feeds the function each value's first arrival; NULL only to
        // ARRAY_AGG RESPECT NULLS (every other function here but SINGLE_VALUE and the JSON
        // ones ignores a NULL argument anyway).
        // Retracting MIN/MAX keep a map of their own; the planner drops DISTINCT from MIN/MAX.
        let json = matches!(
            call.function,
            AggFunction::JsonArrayAggAbsentOnNull
                | AggFunction::JsonArrayAggNullOnNull
                | AggFunction::JsonObjectAggNullOnNull
                | AggFunction::JsonObjectAggAbsentOnNull
        );
        if call.json_text {
            let value_column = if call.function.takes_value_arg() {
                call.value_arg
            } else {
                call.arg
            };
            let value_type = value_column.and_then(|c| input.get(c));
            if !json || value_type.is_some_and(|ty| Class::of(ty).ok() != Some(Class::String)) {
                return Err(invalid(format!(
                    "JSON text input needs a JSON aggregate over a character string column, \
                     not {}",
                    value_type.map_or("no column".into(), ToString::to_string)
                )));
            }
        }
        if call.ignore_nulls && call.function != AggFunction::ArrayAgg {
            return Err(invalid(
                "IGNORE NULLS is supported for ARRAY_AGG only".into(),
            ));
        }
        let distinct_ok = match call.function {
            AggFunction::Min | AggFunction::Max => !retracting,
            AggFunction::CountStar
            | AggFunction::SingleValue
            | AggFunction::JsonArrayAggAbsentOnNull
            | AggFunction::JsonArrayAggNullOnNull
            | AggFunction::JsonObjectAggNullOnNull
            | AggFunction::JsonObjectAggAbsentOnNull => false,
            _ => true,
        };
        if call.distinct && !distinct_ok {
            return Err(invalid(format!(
                "DISTINCT is not supported for {}{}",
                if retracting { "retracting " } else { "" },
                call.function.sql_name()
            )));
        }
        if let Some(f) = call.filter {
            match input.get(f) {
                Some(LogicalType::Boolean) => {}
                Some(other) => {
                    return Err(invalid(format!(
                        "the FILTER column {f} is {other}, not BOOLEAN"
                    )));
                }
                None => {
                    return Err(invalid(format!(
                        "the FILTER column {f} is out of range for {} input columns",
                        input.len()
                    )));
                }
            }
        }
        if let Some(f) = call.frequency {
            if call.function != AggFunction::Percentile || call.distinct {
                return Err(invalid(
                    "a frequency column is supported for PERCENTILE without DISTINCT only".into(),
                ));
            }
            match input.get(f) {
                Some(ty) if matches!(Class::of(ty), Ok(Class::Int(_))) => {}
                other => {
                    return Err(invalid(format!(
                        "the frequency column {f} must be an integer column, not {}",
                        other.map_or("missing".into(), ToString::to_string)
                    )));
                }
            }
        }
        let separator = match (&call.separator, call.function) {
            (None, _) => b",".to_vec(),
            (Some(sep), AggFunction::ListAgg) => sep.as_bytes().to_vec(),
            (Some(_), _) => return Err(invalid("only LISTAGG takes a separator".into())),
        };
        Ok(Self {
            function: call.function,
            arg: call.arg,
            arg_type: arg_type.cloned(),
            class,
            result,
            retracting,
            distinct: call.distinct,
            filter: call.filter,
            ignore_nulls: call.ignore_nulls,
            json_text: call.json_text,
            percentage: call.percentage.map(|p| p.0),
            separator,
            value_arg,
            frequency: call.frequency,
            merging: false,
        })
    }

    /// Whether this call keeps a sorted map state (retracting MIN/MAX, DISTINCT).
    pub(crate) fn uses_sorted_map(&self) -> bool {
        self.distinct
            || (self.retracting && matches!(self.function, AggFunction::Min | AggFunction::Max))
    }

    /// A fresh accumulator (`createAccumulators`).
    pub(crate) fn create(&self) -> Acc {
        let plain = self.create_plain();
        if self.distinct {
            Acc::Distinct {
                inner: Box::new(plain),
                entries: 0,
            }
        } else {
            plain
        }
    }

    /// A fresh accumulator whose maps are held in it, never in the sorted-map table:
    /// Flink's heap data views, as the two-phase local partials and the global operator's
    /// bundle buffers use them.
    pub(crate) fn create_local(&self) -> Acc {
        match self.create() {
            Acc::Distinct { inner, .. } => Acc::LocalDistinct {
                inner,
                map: Vec::new(),
            },
            acc => acc,
        }
    }

    fn create_plain(&self) -> Acc {
        match self.function {
            // LISTAGG over a separator column: `ListAggFunction`'s running concatenation,
            // or `ListAggWsWithRetractAggFunction`'s list and last delimiter.
            AggFunction::ListAgg if self.value_arg.is_some() && self.retracting => Acc::ListWs {
                list: Vec::new(),
                delimiter: Value::Bytes(b",".to_vec()),
            },
            AggFunction::ListAgg if self.value_arg.is_some() => Acc::Concat(Value::Null),
            AggFunction::CountStar | AggFunction::Count => Acc::Count(0),
            AggFunction::Sum => Acc::Sum {
                sum: Value::Null,
                count: 0,
            },
            AggFunction::Sum0 => Acc::Sum0(self.zero()),
            AggFunction::Avg => Acc::Avg {
                sum: self.zero(),
                count: 0,
            },
            AggFunction::Min | AggFunction::Max if self.uses_sorted_map() => Acc::Extremum {
                value: Value::Null,
                map_size: 0,
                entries: 0,
                inline: Some(Vec::new()),
            },
            AggFunction::SingleValue => Acc::Single {
                value: Value::Null,
                count: 0,
            },
            AggFunction::ListAgg if self.retracting && self.merging => Acc::ListWithRetract {
                list: Vec::new(),
                retract_list: Vec::new(),
            },
            AggFunction::ListAgg
            | AggFunction::ArrayAgg
            | AggFunction::JsonArrayAggAbsentOnNull
            | AggFunction::JsonArrayAggNullOnNull => Acc::List(Vec::new()),
            AggFunction::JsonObjectAggNullOnNull | AggFunction::JsonObjectAggAbsentOnNull => {
                Acc::Object(JsonObject::default())
            }
            AggFunction::FirstValue | AggFunction::LastValue if self.retracting => {
                Acc::List(Vec::new())
            }
            AggFunction::Percentile => Acc::Percentile {
                percentages: self.percentage.map(|p| vec![p]),
                counts: Vec::new(),
            },
            AggFunction::WelfordM2 => Acc::Welford {
                n: 0,
                mean: 0.0,
                m2: 0.0,
            },
            _ => Acc::Value(Value::Null),
        }
    }

    fn class(&self) -> Class {
        self.class
            .expect("only COUNT(*) has no class, and it never asks")
    }

    fn zero(&self) -> Value {
        match self.class() {
            Class::Float32 | Class::Float64 => Value::Float(0.0),
            Class::Decimal { .. } => Value::Decimal(0),
            _ => Value::Int(0),
        }
    }

    /// `sum + x` at the sum type (the argument's, or `DECIMAL(38, s)`).
    /// A numeric argument as `Number.doubleValue` (DECIMAL: `DecimalDataUtils.doubleValue`).
    fn double_value(&self, x: &Value) -> f64 {
        match (x, self.class()) {
            (Value::Int(i), _) => *i as f64,
            (Value::Float(f), _) => *f,
            (Value::Decimal(d), Class::Decimal { precision, scale }) => {
                streamfusion_core::decimal::decimal_to_f64(*d, precision, scale)
            }
            // Binding admits numeric arguments only.
            _ => f64::NAN,
        }
    }

    /// Whether this call's distinct map keeps NULL (ARRAY_AGG RESPECT NULLS feeds it on).
    pub(crate) fn distinct_null(&self) -> bool {
        self.function == AggFunction::ArrayAgg && !self.ignore_nulls
    }

    /// The distinct-map key of `x`: its order bytes; where the map keeps NULL, empty for
    /// NULL and a 1 before the order bytes otherwise (so NULL and `''` differ).
    pub(crate) fn distinct_key(&self, x: &Value, out: &mut Vec<u8>) {
        if self.distinct_null() {
            if x.is_null() {
                return;
            }
            out.push(1);
        }
        super::value::order_bytes(x, out);
    }

    /// Inverts [`BoundCall::distinct_key`].
    fn value_of_distinct_key(&self, bytes: &[u8]) -> Result<Value> {
        match (self.distinct_null(), bytes.split_first()) {
            (true, None) => Ok(Value::Null),
            (true, Some((_, rest))) => super::value::from_order_bytes(self.class(), rest),
            (false, _) => super::value::from_order_bytes(self.class(), bytes),
        }
    }

    fn plus(&self, sum: &Value, x: &Value) -> Value {
        arithmetic(self.class(), sum, x, false)
    }

    fn minus(&self, sum: &Value, x: &Value) -> Value {
        arithmetic(self.class(), sum, x, true)
    }

    /// AVG's sum: `BIGINT` for integers (no narrower wrap), `DOUBLE` for FLOAT.
    fn avg_step(&self, sum: &Value, x: &Value, negate: bool) -> Value {
        let class = match self.class() {
            Class::Int(_) => Class::Int(64),
            Class::Float32 => Class::Float64,
            c => c,
        };
        arithmetic(class, sum, x, negate)
    }

    /// `accumulate` (`negate` false) or `retract` (true) of a row into `acc`: `x` is the
    /// argument, `y` the second argument of two-argument calls
    /// ([`AggFunction::takes_value_arg`], `AggCall::value_arg`: JSON_OBJECTAGG's value) and
    /// ignored by the others. `map` is the group's sorted map for retracting MIN/MAX and
    /// DISTINCT.
    pub(crate) fn update(
        &self,
        acc: &mut Acc,
        x: &Value,
        y: &Value,
        negate: bool,
        map: Option<&mut MapCtx<'_>>,
    ) -> Result<()> {
        match acc {
            Acc::Object(object) => object.update(self.function, x, y, negate, self.json_text),
            _ => self.update_one(acc, x, y, negate, map),
        }
    }

    /// [`Self::update`] of a row with a weight: `None` for a call without a frequency
    /// column, else PERCENTILE's frequency (0 for a NULL or non-positive one, which
    /// `accumulate` still reads the percentages of, as Flink's does, and `retract` skips).
    pub(crate) fn update_weighted(
        &self,
        acc: &mut Acc,
        x: &Value,
        y: &Value,
        negate: bool,
        weight: Option<i64>,
        map: Option<&mut MapCtx<'_>>,
    ) -> Result<()> {
        match (weight, acc) {
            (
                Some(weight),
                Acc::Percentile {
                    percentages,
                    counts,
                },
            ) => self.percentile_update(percentages, counts, x, y, negate, weight),
            (_, acc) => self.update(acc, x, y, negate, map),
        }
    }

    /// `PercentileAggFunction.accumulate`/`retract` of value `x` with percentage(s) `y`,
    /// counted `weight` times (`update(acc, value, ±frequency)`).
    fn percentile_update(
        &self,
        percentages: &mut Option<Vec<f64>>,
        counts: &mut Vec<(f64, i64)>,
        x: &Value,
        y: &Value,
        negate: bool,
        weight: i64,
    ) -> Result<()> {
        // `accumulate` records the percentages of the first row it sees (NULL value or
        // frequency or not), checked as `setPercentages` checks them; `retract` never does.
        if !negate && percentages.is_none() {
            let given = match y {
                Value::Float(p) => vec![Value::Float(*p)],
                Value::List(ps) => ps.clone(),
                _ => {
                    return Err(Error::InvalidShape(
                        "PERCENTILE received a NULL percentage".into(),
                    ));
                }
            };
            let mut checked = Vec::with_capacity(given.len());
            for p in given {
                let Value::Float(p) = p else {
                    return Err(Error::InvalidShape(
                        "PERCENTILE received a NULL percentage".into(),
                    ));
                };
                if percentage_outside(p) {
                    return Err(Error::InvalidShape(format!(
                        "Percentage of PERCENTILE should be between [0.0, 1.0], but was \
                         '{p:?}'."
                    )));
                }
                checked.push(p);
            }
            *percentages = Some(checked);
        }
        if x.is_null() || weight == 0 {
            return Ok(());
        }
        let v = self.double_value(x);
        // `MapView<Double, Long>`: Double.equals keys, a count of 0 removed, Java's
        // wrapping long sums.
        let key = crate::float_order::f64_order_key(v);
        let at = counts.binary_search_by_key(&key, |(v, _)| crate::float_order::f64_order_key(*v));
        let delta = if negate {
            weight.wrapping_neg()
        } else {
            weight
        };
        match at {
            Ok(i) => {
                counts[i].1 = counts[i].1.wrapping_add(delta);
                if counts[i].1 == 0 {
                    counts.remove(i);
                }
            }
            Err(i) => counts.insert(i, (v, delta)),
        }
        Ok(())
    }

    fn update_one(
        &self,
        acc: &mut Acc,
        x: &Value,
        y: &Value,
        negate: bool,
        map: Option<&mut MapCtx<'_>>,
    ) -> Result<()> {
        let delta = if negate { -1 } else { 1 };
        let (inner, count) = match acc {
            // NULL reaches no inner function but ARRAY_AGG RESPECT NULLS, so its map entry
            // is kept only there.
            Acc::Distinct { .. } | Acc::LocalDistinct { .. }
                if x.is_null() && !self.distinct_null() =>
            {
                return Ok(());
            }
            Acc::Distinct { inner, entries } => {
                let map = map.ok_or_else(|| no_map_context(self))?;
                map.fill_key_with(|out| self.distinct_key(x, out));
                (inner, map.add_key(delta, entries).1)
            }
            Acc::LocalDistinct { inner, map } => {
                let count = if self.distinct_null() {
                    let mut key = Vec::with_capacity(17);
                    self.distinct_key(x, &mut key);
                    inline_add(map, &key, delta).1
                } else {
                    // The plain order bytes, without an allocation.
                    super::value::with_order_bytes(x, |key| inline_add(map, key, delta).1)
                };
                (inner, count)
            }
            _ => return self.update_plain(acc, x, y, negate, map),
        };
        // `cnt += 1; if (cnt == 1)` and `cnt -= 1; if (cnt == 0)`.
        if (!negate && count == 1) || (negate && count == 0) {
            self.update_plain(inner, x, y, negate, None)?;
        }
        Ok(())
    }

    /// [`BoundCall::update`] of one function's own accumulator; `y` is the second
    /// argument (LISTAGG's separator column).
    fn update_plain(
        &self,
        acc: &mut Acc,
        x: &Value,
        y: &Value,
        negate: bool,
        map: Option<&mut MapCtx<'_>>,
    ) -> Result<()> {
        match acc {
            Acc::Percentile {
                percentages,
                counts,
            } => self.percentile_update(percentages, counts, x, y, negate, 1)?,
            // `ListAggFunction`: `acc = x IS NULL ? acc : acc IS NULL ? x : acc || sep || x`,
            // a NULL separator making the concatenation NULL.
            Acc::Concat(text) => {
                if negate {
                    return Err(Error::State(
                        "LISTAGG without retraction received a retraction".into(),
                    ));
                }
                if let Value::Bytes(x) = x {
                    *text = match (&*text, y) {
                        (Value::Bytes(acc), Value::Bytes(sep)) => {
                            Value::Bytes([acc.as_slice(), sep, x].concat())
                        }
                        (Value::Bytes(_), _) => Value::Null,
                        _ => Value::Bytes(x.clone()),
                    };
                }
            }
            // `ListAggWsWithRetractAggFunction`: a non-NULL value sets the delimiter and is
            // added, or removes its first equal (one absent waits in a retractList that only
            // `merge` reads, which a GROUP BY never calls).
            Acc::ListWs { list, delimiter } => {
                if !x.is_null() {
                    *delimiter = y.clone();
                    if !negate {
                        list.push(x.clone());
                    } else if let Some(i) = list.iter().position(|v| java_equals(v, x)) {
                        list.remove(i);
                    }
                }
            }
            Acc::Count(count) => {
                if self.function == AggFunction::CountStar || !x.is_null() {
                    *count = if negate { *count - 1 } else { *count + 1 };
                }
            }
            Acc::Sum { sum, count } => {
                if !x.is_null() {
                    *sum = match (sum.is_null(), negate) {
                        (true, false) => x.clone(),
                        (true, true) => self.minus(&self.zero(), x),
                        (false, false) => self.plus(sum, x),
                        (false, true) => self.minus(sum, x),
                    };
                    *count += if negate { -1 } else { 1 };
                }
            }
            Acc::Sum0(sum) => {
                if !x.is_null() {
                    *sum = if negate {
                        self.minus(sum, x)
                    } else {
                        self.plus(sum, x)
                    };
                }
            }
            Acc::Avg { sum, count } => {
                if !x.is_null() {
                    *sum = self.avg_step(sum, x, negate);
                    *count += if negate { -1 } else { 1 };
                }
            }
            Acc::Value(v) => {
                if negate {
                    return Err(Error::State(format!(
                        "{} without retraction received a retraction",
                        self.function.sql_name()
                    )));
                }
                if !x.is_null() {
                    let replace = match self.function {
                        AggFunction::Max => v.is_null() || sql_greater(x, v),
                        AggFunction::Min => v.is_null() || sql_greater(v, x),
                        AggFunction::FirstValue => v.is_null(),
                        _ => true,
                    };
                    if replace {
                        *v = x.clone();
                    }
                }
            }
            Acc::Extremum {
                value,
                map_size,
                entries,
                inline,
            } => {
                if x.is_null() {
                    return Ok(());
                }
                let max = self.function == AggFunction::Max;
                if let Some(list) = inline {
                    self.update_inline(list, value, map_size, x, negate)?;
                    // Local maps stay in the accumulator, whatever their size.
                    if let Some(map) = map {
                        spill_if_large(inline, entries, map);
                    }
                    return Ok(());
                }
                let map = map.ok_or_else(|| no_map_context(self))?;
                map.resolve(self.class(), value, map_size, max)?;
                map.fill_key(x);
                let (_, count) = map.add_key(if negate { -1 } else { 1 }, entries);
                if !negate {
                    note_accumulated(max, value, map_size, x, count);
                } else if count == 0 {
                    *map_size -= 1;
                    if *map_size == 0 {
                        *value = Value::Null;
                    } else if compare(x, value).is_eq() {
                        // updateMax/updateMin, deferred to the next use (see MapCtx).
                        *map.dirty = true;
                    }
                }
            }
            Acc::Welford { n, mean, m2 } => {
                if x.is_null() {
                    return Ok(());
                }
                // `WelfordM2AggFunction.accumulate/retract`: `n` keeps counting below 1 (to
                // agree with the COUNT beside it) while the moments stay put.
                let val = self.double_value(x);
                if negate {
                    *n -= 1;
                    if *n <= 0 {
                        if *n == 0 {
                            (*mean, *m2) = (0.0, 0.0);
                        }
                        return Ok(());
                    }
                    let delta2 = val - *mean;
                    *mean -= delta2 / *n as f64;
                    let delta = val - *mean;
                    *m2 -= delta * delta2;
                } else {
                    *n += 1;
                    if *n <= 0 {
                        return Ok(());
                    }
                    let delta = val - *mean;
                    *mean += delta / *n as f64;
                    let delta2 = val - *mean;
                    *m2 += delta * delta2;
                }
            }
            Acc::Single { value, count } => {
                // count is an INT: accumulate `count > 0 ? throw : x`, retract
                // `count == 1 || count == 0 ? NULL : throw`, then `count +/- 1`.
                let ok = if negate {
                    *count == 1 || *count == 0
                } else {
                    *count <= 0
                };
                if !ok {
                    return Err(Error::SingleValue {
                        detail: format!(
                            "{} with count {count}",
                            if negate {
                                "a retraction"
                            } else {
                                "an accumulation"
                            }
                        ),
                    });
                }
                *value = if negate { Value::Null } else { x.clone() };
                *count = i64::from((*count as i32).wrapping_add(if negate { -1 } else { 1 }));
            }
            Acc::List(list) => {
                let json = matches!(
                    self.function,
                    AggFunction::JsonArrayAggAbsentOnNull | AggFunction::JsonArrayAggNullOnNull
                );
                let json_text;
                let x = match x {
                    // JsonArrayAggFunction adds `null` only with NULL ON NULL, but removes one
                    // on any NULL retraction (never present with ABSENT ON NULL).
                    Value::Null
                        if json
                            && (negate || self.function == AggFunction::JsonArrayAggNullOnNull) =>
                    {
                        json_text = Value::Bytes(b"null".to_vec());
                        &json_text
                    }
                    // ArrayAggFunction: `value != null || !ignoreNulls`.
                    Value::Null if self.function == AggFunction::ArrayAgg && !self.ignore_nulls => {
                        x
                    }
                    Value::Null => return Ok(()),
                    x if json && !self.json_text => {
                        json_text = Value::Bytes(json_string(x));
                        &json_text
                    }
                    x => x,
                };
                if negate {
                    // `List.remove(Object)`: the first `equals` element; FIRST/LAST_VALUE find
                    // the same one through their earliest order of that value.
                    if let Some(i) = list.iter().position(|v| java_equals(v, x)) {
                        list.remove(i);
                    }
                } else {
                    list.push(x.clone());
                }
            }
            Acc::ListWithRetract { list, retract_list } => {
                // `ListAgg[Ws]WithRetractAggFunction`: NULL is skipped; a retraction of a
                // value the list does not hold waits in `retractList` for a merge.
                if x.is_null() {
                    return Ok(());
                }
                if !negate {
                    list.push(x.clone());
                } else if let Some(i) = list.iter().position(|v| java_equals(v, x)) {
                    list.remove(i);
                } else {
                    retract_list.push(x.clone());
                }
            }
            Acc::Distinct { .. } | Acc::LocalDistinct { .. } => {
                return Err(Error::State(format!(
                    "{}: a DISTINCT accumulator nested in another",
                    self.function.sql_name()
                )));
            }
            Acc::Object(_) => {
                return Err(Error::State(format!(
                    "{}: a JSON object accumulator updated with one argument",
                    self.function.sql_name()
                )));
            }
        }
        Ok(())
    }

    /// Retracting MIN/MAX over a map held in the accumulator: the same steps as over the
    /// sorted-map table (`accumulate`/`retract` of `Max[Min]WithRetractAggFunction`), on
    /// `list`, sorted by the values' order bytes. `updateMax` runs at once: it is a look at
    /// the list's end.
    fn update_inline(
        &self,
        list: &mut Vec<(Vec<u8>, i64)>,
        value: &mut Value,
        map_size: &mut i64,
        x: &Value,
        negate: bool,
    ) -> Result<()> {
        let max = self.function == AggFunction::Max;
        let delta = if negate { -1 } else { 1 };
        let (_, count) = super::value::with_order_bytes(x, |key| inline_add(list, key, delta));
        if !negate {
            note_accumulated(max, value, map_size, x, count);
        } else if count == 0 {
            *map_size -= 1;
            if *map_size == 0 {
                *value = Value::Null;
            } else if compare(x, value).is_eq() {
                self.inline_extreme(list, value, map_size)?;
            }
        }
        Ok(())
    }

    /// `updateMax`/`updateMin` over an inline map: its last (first) key, which may be one
    /// with a negative count, as Flink iterates every key; an empty map resets `mapSize`.
    fn inline_extreme(
        &self,
        list: &[(Vec<u8>, i64)],
        value: &mut Value,
        map_size: &mut i64,
    ) -> Result<()> {
        let max = self.function == AggFunction::Max;
        match if max { list.last() } else { list.first() } {
            Some((k, _)) => *value = super::value::from_order_bytes(self.class(), k)?,
            None => {
                *value = Value::Null;
                *map_size = 0;
            }
        }
        Ok(())
    }

    /// Merges a partial's MIN/MAX map into this accumulator's
    /// (`Max[Min]WithRetractAggFunction.merge`): the partial's extremum is taken when this
    /// map has no positive entry or it is beyond this one; counts add, `mapSize` follows the
    /// entries that turn positive or stop being positive, and the extremum is searched again
    /// when its own entry stopped being positive.
    fn merge_extremum(
        &self,
        (value, map_size, entries, inline): (
            &mut Value,
            &mut i64,
            &mut i64,
            &mut Option<InlineMap>,
        ),
        other_value: &Value,
        other_size: i64,
        other: &[(Vec<u8>, i64)],
        mut map: Option<&mut MapCtx<'_>>,
    ) -> Result<()> {
        let max = self.function == AggFunction::Max;
        if inline.is_none() {
            let map = map.as_deref_mut().ok_or_else(|| no_map_context(self))?;
            map.resolve(self.class(), value, map_size, max)?;
        }
        let beaten = if max {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        if *map_size == 0
            || (other_size > 0 && !other_value.is_null() && compare(value, other_value) == beaten)
        {
            *value = other_value.clone();
        }
        // `key.equals(acc.max)`: equal order bytes.
        let extreme = (!value.is_null()).then(|| {
            let mut bytes = Vec::new();
            super::value::order_bytes(value, &mut bytes);
            bytes
        });
        let mut search = false;
        for (bytes, count) in other {
            let (this, merged) = match (inline.as_mut(), map.as_deref_mut()) {
                (Some(list), _) => inline_add(list, bytes, *count),
                (None, Some(map)) => {
                    map.fill_key_from(bytes);
                    map.add_key(*count, entries)
                }
                (None, None) => return Err(no_map_context(self)),
            };
            if merged > 0 {
                if this <= 0 {
                    *map_size += 1;
                }
            } else if this > 0 {
                *map_size -= 1;
                search |= extreme.as_deref() == Some(bytes.as_slice());
            }
        }
        match (inline.as_mut(), map) {
            (Some(list), map) => {
                if search {
                    self.inline_extreme(list, value, map_size)?;
                }
                if let Some(map) = map {
                    spill_if_large(inline, entries, map);
                }
            }
            // updateMax, deferred to the next use as after a retraction (see MapCtx).
            (None, Some(map)) => *map.dirty |= search,
            (None, None) => return Err(no_map_context(self)),
        }
        Ok(())
    }

    /// Merges a partial's distinct map into this call's (the planner's distinct `merge`
    /// with counts): counts add, and the inner function accumulates a value whose count
    /// turns positive and retracts one whose count stops being positive. The partial's own
    /// inner accumulator is not read.
    fn merge_distinct(
        &self,
        inner: &mut Acc,
        mut add: impl FnMut(&[u8], i64) -> (i64, i64),
        other: &[(Vec<u8>, i64)],
    ) -> Result<()> {
        for (bytes, count) in other {
            let (this, merged) = add(bytes, *count);
            let negate = match (this > 0, merged > 0) {
                (false, true) => false,
                (true, false) => true,
                _ => continue,
            };
            let x = self.value_of_distinct_key(bytes)?;
            // Two-phase calls have no second argument.
            self.update_plain(inner, &x, &Value::Null, negate, None)?;
        }
        Ok(())
    }

    /// `merge` of another accumulator of this call into `acc` (the planner's
    /// `mergeExpressions`), as the two-phase global aggregate applies partials. Only calls
    /// that [`super::local_global`] splits have one.
    /// `map` is this group's sorted-map context for retracting MIN/MAX and DISTINCT calls
    /// whose maps live in state; `other` holds its maps itself ([`BoundCall::create_local`]).
    pub(crate) fn merge(
        &self,
        acc: &mut Acc,
        other: &Acc,
        map: Option<&mut MapCtx<'_>>,
    ) -> Result<()> {
        match (acc, other) {
            (
                Acc::Extremum {
                    value,
                    map_size,
                    entries,
                    inline,
                },
                Acc::Extremum {
                    value: other_value,
                    map_size: other_size,
                    inline: Some(other),
                    ..
                },
            ) => self.merge_extremum(
                (value, map_size, entries, inline),
                other_value,
                *other_size,
                other,
                map,
            )?,
            (Acc::Distinct { inner, entries }, Acc::LocalDistinct { map: other, .. }) => {
                let map = map.ok_or_else(|| no_map_context(self))?;
                self.merge_distinct(
                    inner,
                    |bytes, count| {
                        map.fill_key_from(bytes);
                        map.add_key(count, entries)
                    },
                    other,
                )?;
            }
            (Acc::LocalDistinct { inner, map: list }, Acc::LocalDistinct { map: other, .. }) => {
                self.merge_distinct(inner, |bytes, count| inline_add(list, bytes, count), other)?;
            }
            (Acc::Count(a), Acc::Count(b)) => *a = a.wrapping_add(*b),
            // Sum[WithRetract]AggFunction: a NULL side leaves the other; `count + count`.
            (Acc::Sum { sum, count }, Acc::Sum { sum: b, count: c }) => {
                if !b.is_null() {
                    *sum = if sum.is_null() {
                        b.clone()
                    } else {
                        self.plus(sum, b)
                    };
                }
                *count = count.wrapping_add(*c);
            }
            (Acc::Sum0(a), Acc::Sum0(b)) => *a = self.plus(a, b),
            (Acc::Avg { sum, count }, Acc::Avg { sum: b, count: c }) => {
                *sum = self.avg_step(sum, b, false);
                *count = count.wrapping_add(*c);
            }
            // Min/MaxAggFunction: `isNull(m) ? v : isNull(v) ? m : m < v ? m : v`.
            (Acc::Value(v), Acc::Value(m)) => {
                let replace = !m.is_null()
                    && (v.is_null()
                        || match self.function {
                            AggFunction::Max => sql_greater(m, v),
                            _ => sql_greater(v, m),
                        });
                if replace {
                    *v = m.clone();
                }
            }
            // SingleValueAggFunction, with INT counts: `c + mc > 1 ? throw : c + mc == 0 ?
            // (c == 0 || mc > 0 ? mv : NULL) : mv`. Note that a sum of one takes the
            // partial's value even when the partial's own count is zero.
            (Acc::Single { value, count }, Acc::Single { value: m, count: c }) => {
                let (a, b) = (*count as i32, *c as i32);
                let total = a.wrapping_add(b);
                if total > 1 {
                    return Err(Error::SingleValue {
                        detail: format!("merged counts {a} and {b}"),
                    });
                }
                *value = if total != 0 || a == 0 || b > 0 {
                    m.clone()
                } else {
                    Value::Null
                };
                *count = i64::from(total);
            }
            (Acc::Object(object), Acc::Object(other)) => object.merge(other)?,
            // `WelfordM2AggFunction.merge` of one partial: a partial with `n <= 0` only counts.
            (
                Acc::Welford { n, mean, m2 },
                Acc::Welford {
                    n: other_n,
                    mean: other_mean,
                    m2: other_m2,
                },
            ) => {
                let mut negative = 0i64;
                if *other_n <= 0 {
                    negative = *other_n;
                } else if *n == 0 {
                    (*n, *mean, *m2) = (*other_n, *other_mean, *other_m2);
                } else {
                    let count = n.wrapping_add(*other_n);
                    let delta = other_mean - *mean;
                    let new_mean = *mean + *other_n as f64 / count as f64 * delta;
                    let new_m2 =
                        *m2 + other_m2 + *n as f64 * *other_n as f64 / count as f64 * delta * delta;
                    (*n, *mean, *m2) = (count, new_mean, new_m2);
                }
                *n = n.wrapping_add(negative);
                if *n <= 0 {
                    (*mean, *m2) = (0.0, 0.0);
                }
            }
            (
                Acc::ListWithRetract { list, retract_list },
                Acc::ListWithRetract {
                    list: other_list,
                    retract_list: other_retract,
                },
            ) => {
                // `ListAgg[Ws]WithRetractAggFunction.merge`: both lists in order, then each
                // pending retraction (this accumulator's, then the other's) removes the first
                // equal value, or stays pending.
                list.extend(other_list.iter().cloned());
                let pending: Vec<Value> = retract_list
                    .drain(..)
                    .chain(other_retract.iter().cloned())
                    .collect();
                for r in pending {
                    match list.iter().position(|v| java_equals(v, &r)) {
                        Some(i) => {
                            list.remove(i);
                        }
                        None => retract_list.push(r),
                    }
                }
            }
            (acc, other) => {
                return Err(Error::State(format!(
                    "{}: cannot merge {other:?} into {acc:?}",
                    self.function.sql_name()
                )));
            }
        }
        Ok(())
    }

    /// LISTAGG's `getValue`: NULL for an empty list, else `BinaryStringDataUtil.concatWs`.
    fn joined(&self, list: &[Value]) -> Value {
        if list.is_empty() {
            return Value::Null;
        }
        let mut joined = Vec::new();
        for (i, v) in list.iter().enumerate() {
            if i > 0 {
                joined.extend_from_slice(&self.separator);
            }
            if let Value::Bytes(b) = v {
                joined.extend_from_slice(b);
            }
        }
        Value::Bytes(joined)
    }

    /// `getValue` of this call.
    pub(crate) fn value(&self, acc: &mut Acc, map: Option<&mut MapCtx<'_>>) -> Result<Value> {
        Ok(match acc {
            Acc::Distinct { inner, .. } | Acc::LocalDistinct { inner, .. } => {
                self.value(inner, None)?
            }
            Acc::Single { value, .. } => value.clone(),
            Acc::List(list) => match self.function {
                // Jackson's ArrayNode of raw values: `[a,b]`, `[]` when empty.
                AggFunction::JsonArrayAggAbsentOnNull | AggFunction::JsonArrayAggNullOnNull => {
                    let mut array = vec![b'['];
                    for (i, v) in list.iter().enumerate() {
                        if i > 0 {
                            array.push(b',');
                        }
                        if let Value::Bytes(b) = v {
                            array.extend_from_slice(b);
                        }
                    }
                    array.push(b']');
                    Value::Bytes(array)
                }
                _ if list.is_empty() => Value::Null,
                AggFunction::ArrayAgg => Value::List(list.clone()),
                AggFunction::FirstValue => list[0].clone(),
                AggFunction::LastValue => list[list.len() - 1].clone(),
                _ => self.joined(list),
            },
            Acc::ListWithRetract { list, .. } => self.joined(list),
            Acc::Concat(text) => text.clone(),
            Acc::Percentile {
                percentages: Some(ps),
                counts,
            } => match &self.result {
                // `MultiPercentileAggFunction`: NULL for no percentages or no values.
                LogicalType::Array(_) if ps.is_empty() => Value::Null,
                LogicalType::Array(_) => match ps
                    .iter()
                    .map(|p| percentile(*p, counts).map(|v| v.map(Value::Float)))
                    .collect::<Result<Option<Vec<_>>>>()?
                {
                    Some(list) => Value::List(list),
                    None => Value::Null,
                },
                _ => match ps.first() {
                    Some(p) => percentile(*p, counts)?.map_or(Value::Null, Value::Float),
                    None => Value::Null,
                },
            },
            Acc::Percentile {
                percentages: None, ..
            } => Value::Null,
            // `BinaryStringDataUtil.concatWs`: NULL for no values or a NULL delimiter.
            Acc::ListWs { list, delimiter } => match delimiter {
                Value::Bytes(sep) if !list.is_empty() => {
                    let mut joined = Vec::new();
                    for (i, v) in list.iter().enumerate() {
                        if i > 0 {
                            joined.extend_from_slice(sep);
                        }
                        if let Value::Bytes(b) = v {
                            joined.extend_from_slice(b);
                        }
                    }
                    Value::Bytes(joined)
                }
                _ => Value::Null,
            },
            Acc::Object(object) => Value::Bytes(object.to_json()),
            Acc::Welford { n, m2, .. } => {
                if *n <= 0 || *m2 < 0.0 {
                    Value::Null
                } else {
                    Value::Float(*m2)
                }
            }
            Acc::Count(c) => Value::Int(*c),
            Acc::Sum { sum, count } => {
                if self.retracting && *count == 0 {
                    Value::Null
                } else {
                    sum.clone()
                }
            }
            Acc::Sum0(sum) => sum.clone(),
            Acc::Avg { sum, count } => {
                if *count == 0 {
                    Value::Null
                } else {
                    match sum {
                        Value::Int(s) => Value::Int(s.wrapping_div(*count)),
                        Value::Float(s) => Value::Float(*s / *count as f64),
                        Value::Decimal(s) => match (self.class(), &self.result) {
                            (
                                Class::Decimal { scale, .. },
                                LogicalType::Decimal {
                                    scale: result_scale,
                                    ..
                                },
                            ) => decimal_avg(*s, *count, result_scale - scale)
                                .map_or(Value::Null, Value::Decimal),
                            _ => Value::Null,
                        },
                        _ => Value::Null,
                    }
                }
            }
            Acc::Value(v) => v.clone(),
            Acc::Extremum {
                value,
                map_size,
                inline,
                ..
            } => {
                // A map held inline has its extremum at hand.
                match map {
                    Some(map) => {
                        let max = self.function == AggFunction::Max;
                        map.resolve(self.class(), value, map_size, max)?;
                    }
                    None if inline.is_some() => {}
                    None => return Err(no_map_context(self)),
                }
                if *map_size > 0 {
                    value.clone()
                } else {
                    Value::Null
                }
            }
        })
    }
}

/// `accumulate` of `Max[Min]WithRetractAggFunction` once `x`'s map count became `count`:
/// `if (mapSize == 0 || max.compareTo(v) < 0) max = v` (MIN mirrored), and one more distinct
/// value when the count reached 1.
fn note_accumulated(max: bool, value: &mut Value, map_size: &mut i64, x: &Value, count: i64) {
    let beaten = if max {
        Ordering::Less
    } else {
        Ordering::Greater
    };
    if *map_size == 0 || compare(value, x) == beaten {
        *value = x.clone();
    }
    if count == 1 {
        *map_size += 1;
    }
}

/// `setPercentages`' check: `p < 0.0 || p > 1.0` (not a range's `contains`: a NaN
/// percentage passes, as in Flink).
#[allow(clippy::manual_range_contains)]
fn percentage_outside(p: f64) -> bool {
    p < 0.0 || p > 1.0
}

/// `PercentileAccumulator.getValue` for one percentage over `counts` (sorted by
/// `Double.compare`; Flink walks all percentages at once in ascending order, which finds
/// each one where this walk from the start does)
/// `Double.compare`): NULL when the counts sum to at most 0; else the value at position
/// `p * (total - 1) + 1`, interpolated between the two values around it.
fn percentile(p: f64, counts: &[(f64, i64)]) -> Result<Option<f64>> {
    let total: i64 = counts
        .iter()
        .map(|(_, c)| c)
        .fold(0i64, |a, c| a.wrapping_add(*c));
    if total <= 0 {
        return Ok(None);
    }
    // The counts sum to `total` >= `higher` >= `lower` (p is at most 1), so the walk ends
    // inside the list, negative counts or not; a corrupt accumulator is an error, not a panic.
    let past_the_end = || {
        Error::State(format!(
            "corrupt PERCENTILE accumulator: {} values whose counts sum to {total}",
            counts.len()
        ))
    };
    let position = p * (total - 1) as f64 + 1.0;
    // Java's `(long) Math.floor/ceil`: saturating, NaN to 0, as Rust's `as`.
    let lower = position.floor() as i64;
    let higher = position.ceil() as i64;
    let mut j = 0;
    let mut pre = counts[0].1;
    while pre < lower {
        j += 1;
        pre += counts.get(j).ok_or_else(past_the_end)?.1;
    }
    Ok(Some(if pre >= higher {
        counts[j].0
    } else {
        let next = counts.get(j + 1).ok_or_else(past_the_end)?.0;
        (higher as f64 - position) * counts[j].0 + (position - lower as f64) * next
    }))
}

/// The planner's `JSON_STRING(x)` of a non-NULL string or integer, as Jackson writes it:
/// strings quoted with `"` and `\` escaped, `\b \t \n \f \r` short, other control
/// characters as `\u00XX` (upper-case hex), everything else (DEL, non-ASCII) as is.
fn json_string(x: &Value) -> Vec<u8> {
    match x {
        Value::Bytes(s) => {
            let mut out = Vec::with_capacity(s.len() + 2);
            json_quote(s, &mut out);
            out
        }
        Value::Int(i) => i.to_string().into_bytes(),
        // Binding admits strings and integers only.
        _ => b"null".to_vec(),
    }
}

/// Appends `s` as a JSON string, escaped as [`json_string`] says.
fn json_quote(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &b in s {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0..0x20 => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 15)]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

/// `AVG(DECIMAL)`'s `sum / count` at the result scale, as `DecimalDataUtils.divide` computes
/// it: `BigDecimal.divide(count, new MathContext(38, HALF_UP))`, then `setScale(result scale,
/// HALF_UP)`, NULL beyond 38 digits. `sum` is unscaled at the argument's scale; `rescale` is
/// the result scale minus that scale. The two roundings differ when the quotient has more
/// than 38 significant digits (and then from scale 6 it has more than 38 digits: NULL).
fn decimal_avg(sum: i128, count: i64, rescale: u8) -> Option<i128> {
    const DIGITS: usize = 38;
    let negative = (sum < 0) != (count < 0);
    let (a, b) = (sum.unsigned_abs(), u128::from(count.unsigned_abs()));
    if b == 0 {
        return None;
    }
    // a / b as significant digits `digits` times 10^(exp - digits.len()), generated by long
    // division up to one guard digit past 38; `rem` is what is left.
    let int = a / b;
    let mut rem = a % b;
    let mut digits: Vec<u8> = if int == 0 {
        Vec::new()
    } else {
        int.to_string().bytes().map(|d| d - b'0').collect()
    };
    let mut exp = digits.len() as i32;
    while digits.len() <= DIGITS && rem != 0 {
        rem *= 10;
        let d = (rem / b) as u8;
        rem %= b;
        if digits.is_empty() && d == 0 {
            exp -= 1;
        } else {
            digits.push(d);
        }
    }
    let as_int = |ds: &[u8]| ds.iter().fold(0u128, |m, &d| m * 10 + u128::from(d));
    let (mantissa, scale_exp) = if digits.len() > DIGITS {
        // 38 digits and a carry still fit: 10^38 < 2^127.
        let m = as_int(&digits[..DIGITS]) + u128::from(digits[DIGITS] >= 5);
        (m, exp - DIGITS as i32)
    } else {
        (as_int(&digits), exp - digits.len() as i32)
    };
    // mantissa * 10^(scale_exp + rescale) units of the result scale, HALF_UP.
    let shift = scale_exp + i32::from(rescale);
    let unscaled = if shift >= 0 {
        10u128
            .checked_pow(shift as u32)
            .and_then(|p| mantissa.checked_mul(p))?
    } else {
        match 10u128.checked_pow(shift.unsigned_abs()) {
            // mantissa <= 10^38, so a divisor this large rounds to zero.
            None => 0,
            Some(p) => mantissa / p + u128::from(mantissa % p >= p.div_ceil(2)),
        }
    };
    if unscaled >= 10u128.pow(38) {
        return None;
    }
    let unscaled = unscaled as i128;
    Some(if negative { -unscaled } else { unscaled })
}

/// Java arithmetic at a class's width: `a + b` or `a - b`.
fn arithmetic(class: Class, a: &Value, b: &Value, negate: bool) -> Value {
    match (class, a, b) {
        (Class::Int(bits), Value::Int(a), Value::Int(b)) => {
            let r = if negate {
                a.wrapping_sub(*b)
            } else {
                a.wrapping_add(*b)
            };
            Value::Int(match bits {
                8 => i64::from(r as i8),
                16 => i64::from(r as i16),
                32 => i64::from(r as i32),
                _ => r,
            })
        }
        (Class::Float32, Value::Float(a), Value::Float(b)) => {
            let (a, b) = (*a as f32, *b as f32);
            Value::Float(f64::from(if negate { a - b } else { a + b }))
        }
        (Class::Float64, Value::Float(a), Value::Float(b)) => {
            Value::Float(if negate { a - b } else { a + b })
        }
        (Class::Decimal { .. }, Value::Decimal(a), Value::Decimal(b)) => {
            let r = if negate {
                a.checked_sub(*b)
            } else {
                a.checked_add(*b)
            };
            // DECIMAL(38, s): a result needing more than 38 digits is NULL.
            match r {
                Some(r) if r.unsigned_abs() < 10u128.pow(38) => Value::Decimal(r),
                _ => Value::Null,
            }
        }
        // NULL propagates, as in Flink's generated `plus`/`minus`.
        _ => Value::Null,
    }
}

/// One group's accumulator for one call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Acc {
    Count(i64),
    Sum {
        sum: Value,
        count: i64,
    },
    Sum0(Value),
    Avg {
        sum: Value,
        count: i64,
    },
    /// Non-retracting MIN/MAX/FIRST_VALUE/LAST_VALUE.
    Value(Value),
    /// Retracting MIN/MAX: Flink's `(max, mapSize)`, the number of physical entries in the
    /// sorted-map table, and the map itself while it is small (`inline`: order bytes and
    /// count, sorted; `None` once the map lives in the table). A group with a few distinct
    /// values then costs one state entry instead of one per value, and retracting it deletes
    /// one key.
    Extremum {
        value: Value,
        map_size: i64,
        entries: i64,
        inline: Option<Vec<(Vec<u8>, i64)>>,
    },
    /// SINGLE_VALUE: `(value, count)`.
    Single {
        value: Value,
        count: i64,
    },
    /// LISTAGG, and FIRST_VALUE/LAST_VALUE with retraction: non-NULL values in arrival order.
    List(Vec<Value>),
    /// LISTAGG with retraction in two-phase aggregation: the list, and the retractions of
    /// values it did not hold (`retractList`), which a merge applies.
    ListWithRetract {
        list: Vec<Value>,
        retract_list: Vec<Value>,
    },
    /// `f(DISTINCT x)`: `f`'s accumulator and the number of distinct-map entries.
    Distinct {
        inner: Box<Acc>,
        entries: i64,
    },
    /// `f(DISTINCT x)` with its map held here (two-phase partials and buffers): `f`'s
    /// accumulator and the value -> count map, sorted by the values' order bytes.
    LocalDistinct {
        inner: Box<Acc>,
        map: InlineMap,
    },
    /// JSON_OBJECTAGG: the key -> JSON value map.
    Object(JsonObject),
    /// `$WELFORD_M2`: the count (negative after retractions of values never held) and the
    /// running mean and M2 of the values.
    Welford {
        n: i64,
        mean: f64,
        m2: f64,
    },
    /// LISTAGG over a separator column without retraction: the running concatenation.
    Concat(Value),
    /// PERCENTILE: the percentages of the first accumulated row, and each value's count,
    /// sorted by `Double.compare` (counts never 0, negative after retractions of values never
    /// held).
    Percentile {
        percentages: Option<Vec<f64>>,
        counts: Vec<(f64, i64)>,
    },
    /// LISTAGG over a separator column with retraction: the values and the last delimiter.
    ListWs {
        list: Vec<Value>,
        delimiter: Value,
    },
}

/// A value -> count map held in an accumulator: order bytes and count, sorted, no zero
/// counts.
pub(crate) type InlineMap = Vec<(Vec<u8>, i64)>;

/// Adds `delta` to the count of `key` in `list` (an entry whose count becomes 0 goes): the
/// count before and after.
fn inline_add(list: &mut InlineMap, key: &[u8], delta: i64) -> (i64, i64) {
    let at = list.binary_search_by(|(k, _)| k.as_slice().cmp(key));
    let old = at.map_or(0, |i| list[i].1);
    let count = old.wrapping_add(delta);
    match (at, count != 0) {
        (Ok(i), true) => list[i].1 = count,
        (Ok(i), false) => {
            list.remove(i);
        }
        (Err(i), true) => list.insert(i, (key.to_vec(), count)),
        (Err(_), false) => {}
    }
    (old, count)
}

/// Moves a retracting MIN/MAX's inline map to the sorted-map table once it is too big to
/// rewrite with the accumulator every bundle; there only touched entries are written.
fn spill_if_large(inline: &mut Option<InlineMap>, entries: &mut i64, map: &mut MapCtx<'_>) {
    let Some(list) = inline else {
        return;
    };
    if list.len() <= INLINE_ENTRIES
        && list.iter().map(|(k, _)| k.len()).sum::<usize>() <= INLINE_BYTES
    {
        return;
    }
    for (bytes, count) in list.drain(..) {
        map.fill_key_from(&bytes);
        *entries += map.maps.set(map.map, map.key, Some(count));
    }
    *inline = None;
}

/// A call whose map lives in the sorted-map table was used without the table.
fn no_map_context(call: &BoundCall) -> Error {
    Error::State(format!(
        "{}: a map kept in state was used without its state",
        call.function.sql_name()
    ))
}

impl Acc {
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        use super::value::encode;
        match self {
            Acc::Count(c) => encode(&Value::Int(*c), out),
            Acc::Sum { sum, count } | Acc::Avg { sum, count } => {
                encode(sum, out);
                encode(&Value::Int(*count), out);
            }
            Acc::Sum0(v) | Acc::Value(v) | Acc::Concat(v) => encode(v, out),
            Acc::ListWs { list, delimiter } => {
                encode_list(list, out);
                encode(delimiter, out);
            }
            Acc::Percentile {
                percentages,
                counts,
            } => {
                encode(
                    &percentages.as_ref().map_or(Value::Null, |ps| {
                        Value::List(ps.iter().map(|p| Value::Float(*p)).collect())
                    }),
                    out,
                );
                encode(&Value::Int(counts.len() as i64), out);
                for (v, count) in counts {
                    encode(&Value::Float(*v), out);
                    encode(&Value::Int(*count), out);
                }
            }
            Acc::Extremum {
                value,
                map_size,
                entries,
                inline,
            } => {
                encode(value, out);
                encode(&Value::Int(*map_size), out);
                encode(&Value::Int(*entries), out);
                // -1: the map lives in the sorted-map table.
                match inline {
                    None => encode(&Value::Int(-1), out),
                    Some(list) => {
                        encode(&Value::Int(list.len() as i64), out);
                        for (bytes, count) in list {
                            super::value::encode_bytes(bytes, out);
                            encode(&Value::Int(*count), out);
                        }
                    }
                }
            }
            Acc::Single { value, count } => {
                encode(value, out);
                encode(&Value::Int(*count), out);
            }
            Acc::Welford { n, mean, m2 } => {
                encode(&Value::Int(*n), out);
                encode(&Value::Float(*mean), out);
                encode(&Value::Float(*m2), out);
            }
            Acc::List(list) => encode_list(list, out),
            Acc::ListWithRetract { list, retract_list } => {
                encode_list(list, out);
                encode_list(retract_list, out);
            }
            Acc::Distinct { inner, entries } => {
                inner.encode(out);
                encode(&Value::Int(*entries), out);
            }
            Acc::LocalDistinct { inner, map } => {
                inner.encode(out);
                encode(&Value::Int(map.len() as i64), out);
                for (bytes, count) in map {
                    super::value::encode_bytes(bytes, out);
                    encode(&Value::Int(*count), out);
                }
            }
            Acc::Object(object) => {
                encode(&Value::Int(object.entries.len() as i64), out);
                for (key, value) in &object.entries {
                    super::value::encode_bytes(key, out);
                    match value {
                        Some(v) => super::value::encode_bytes(v, out),
                        None => encode(&Value::Null, out),
                    }
                }
            }
        }
    }

    /// Whether this is a retracting MIN/MAX whose map is held inline (nothing to preload).
    pub(crate) fn map_is_inline(&self) -> bool {
        matches!(
            self,
            Acc::Extremum {
                inline: Some(_),
                ..
            }
        )
    }

    /// The number of physical sorted-map entries, for calls that keep a map.
    pub(crate) fn map_entries(&self) -> Option<i64> {
        match self {
            Acc::Extremum { entries, .. } | Acc::Distinct { entries, .. } => Some(*entries),
            _ => None,
        }
    }

    /// Decodes an accumulator shaped like `template` (a fresh one of the same call).
    pub(crate) fn decode(template: &Acc, input: &mut &[u8]) -> Result<Acc> {
        use super::value::{decode, decode_count};
        Ok(match template {
            Acc::Count(_) => Acc::Count(decode_count(input)?),
            Acc::Sum { .. } => Acc::Sum {
                sum: decode(input)?,
                count: decode_count(input)?,
            },
            Acc::Avg { .. } => Acc::Avg {
                sum: decode(input)?,
                count: decode_count(input)?,
            },
            Acc::Sum0(_) => Acc::Sum0(decode(input)?),
            Acc::Value(_) => Acc::Value(decode(input)?),
            Acc::Concat(_) => Acc::Concat(decode(input)?),
            Acc::Percentile { .. } => {
                let corrupt = |what: &str| Error::State(format!("corrupt accumulator: {what}"));
                let percentages = match decode(input)? {
                    Value::Null => None,
                    Value::List(ps) => Some(
                        ps.into_iter()
                            .map(|p| match p {
                                Value::Float(p) => Ok(p),
                                _ => Err(corrupt("a PERCENTILE percentage")),
                            })
                            .collect::<Result<Vec<_>>>()?,
                    ),
                    _ => return Err(corrupt("PERCENTILE percentages")),
                };
                let len = decode_count(input)?;
                // Every entry takes at least two bytes, which bounds a corrupt length.
                if len < 0 || len as u64 > input.len() as u64 {
                    return Err(corrupt("a PERCENTILE value count"));
                }
                let mut counts = Vec::with_capacity(len as usize);
                for _ in 0..len {
                    let Value::Float(v) = decode(input)? else {
                        return Err(corrupt("a PERCENTILE value"));
                    };
                    counts.push((v, decode_count(input)?));
                }
                Acc::Percentile {
                    percentages,
                    counts,
                }
            }
            Acc::ListWs { .. } => Acc::ListWs {
                list: decode_list(input)?,
                delimiter: decode(input)?,
            },
            Acc::Extremum { .. } => Acc::Extremum {
                value: decode(input)?,
                map_size: decode_count(input)?,
                entries: decode_count(input)?,
                inline: match decode_count(input)? {
                    -1 => None,
                    len => Some(decode_inline_map(len, input)?),
                },
            },
            Acc::Single { .. } => Acc::Single {
                value: decode(input)?,
                count: decode_count(input)?,
            },
            Acc::Welford { .. } => {
                let n = decode_count(input)?;
                let mut moment = || match decode(input)? {
                    Value::Float(f) => Ok(f),
                    other => Err(Error::State(format!(
                        "corrupt accumulator: a WELFORD_M2 moment {other:?}"
                    ))),
                };
                Acc::Welford {
                    n,
                    mean: moment()?,
                    m2: moment()?,
                }
            }
            Acc::List(_) => Acc::List(decode_list(input)?),
            Acc::ListWithRetract { .. } => Acc::ListWithRetract {
                list: decode_list(input)?,
                retract_list: decode_list(input)?,
            },
            Acc::Distinct { inner, .. } => Acc::Distinct {
                inner: Box::new(Acc::decode(inner, input)?),
                entries: decode_count(input)?,
            },
            Acc::LocalDistinct { inner, .. } => {
                let inner = Box::new(Acc::decode(inner, input)?);
                let len = decode_count(input)?;
                Acc::LocalDistinct {
                    inner,
                    map: decode_inline_map(len, input)?,
                }
            }
            Acc::Object(_) => {
                let corrupt = |what: String| Error::State(format!("corrupt accumulator: {what}"));
                let len = decode_count(input)?;
                // Every entry takes at least two bytes, which bounds a corrupt length.
                if len < 0 || len as u64 > input.len() as u64 {
                    return Err(corrupt(format!(
                        "a JSON object of {len} members in {} bytes",
                        input.len()
                    )));
                }
                let mut entries = Vec::with_capacity(len as usize);
                for _ in 0..len {
                    let Value::Bytes(key) = decode(input)? else {
                        return Err(corrupt("a JSON object key that is not a string".into()));
                    };
                    let value = match decode(input)? {
                        Value::Bytes(v) => Some(v),
                        Value::Null => None,
                        other => {
                            return Err(corrupt(format!("a JSON object value {other:?}")));
                        }
                    };
                    entries.push((key, value));
                }
                Acc::Object(JsonObject { entries })
            }
        })
    }
}

/// The `len` entries of an inline map as [`Acc::encode`] writes them.
fn decode_inline_map(len: i64, input: &mut &[u8]) -> Result<InlineMap> {
    use super::value::{decode, decode_count};
    // Every entry takes at least two bytes, which bounds a corrupt length.
    if len < 0 || len as u64 > input.len() as u64 {
        return Err(Error::State(format!(
            "corrupt accumulator: an inline map of {len} entries in {} bytes",
            input.len()
        )));
    }
    let mut list = Vec::with_capacity(len as usize);
    for _ in 0..len {
        let Value::Bytes(bytes) = decode(input)? else {
            return Err(Error::State(
                "corrupt accumulator: an inline map key that is not bytes".into(),
            ));
        };
        list.push((bytes, decode_count(input)?));
    }
    Ok(list)
}

/// A list of values as [`Acc::encode`] writes it: the length, then each value.
fn encode_list(list: &[Value], out: &mut Vec<u8>) {
    super::value::encode(&Value::Int(list.len() as i64), out);
    for v in list {
        super::value::encode(v, out);
    }
}

/// Reads a list written by [`encode_list`] from the front of `input`.
fn decode_list(input: &mut &[u8]) -> Result<Vec<Value>> {
    use super::value::{decode, decode_count};
    let len = decode_count(input)?;
    // Every element takes at least one byte, which bounds a corrupt length.
    if len < 0 || len as u64 > input.len() as u64 {
        return Err(Error::State(format!(
            "corrupt accumulator: a list of {len} values in {} bytes",
            input.len()
        )));
    }
    let mut list = Vec::with_capacity(len as usize);
    for _ in 0..len {
        list.push(decode(input)?);
    }
    Ok(list)
}

/// JSON_OBJECTAGG's `MapView<StringData, StringData>`: keys and `JSON_STRING(v)` texts.
///
/// `getValue` copies the view into a Jackson `ObjectNode` and serializes it with Flink's
/// `SqlJsonUtils` mapper, which enables `ORDER_MAP_ENTRIES_BY_KEYS`: members come out
/// sorted by key as `String.compareTo` orders them (UTF-16 code units), whatever order the
/// state backend iterates in. The members are kept in that order.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct JsonObject {
    /// `(key, JSON text of the value)`, `None` for NULL ON NULL's `null`, sorted by key.
    entries: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

/// `JsonObjectAggFunction.assertKeyNotPresent`'s failure.
fn duplicate_key(key: &[u8]) -> Error {
    Error::InvalidShape(format!(
        "Key '{}' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG. Please \
         ensure that keys are unique.",
        String::from_utf8_lossy(key)
    ))
}

/// `String.compareTo` of two UTF-8 keys: by UTF-16 code units (a supplementary character
/// sorts below U+E000..U+FFFF, unlike in UTF-8 byte order).
fn java_string_order(a: &[u8], b: &[u8]) -> Ordering {
    match (std::str::from_utf8(a), std::str::from_utf8(b)) {
        (Ok(a), Ok(b)) => a.encode_utf16().cmp(b.encode_utf16()),
        _ => a.cmp(b),
    }
}

impl JsonObject {
    /// `JsonObjectAggFunction.accumulate`/`retract` of key `k` and value `v`.
    /// `accumulate` (`negate` false) or `retract` of a member; `raw`: `v` is JSON text
    /// already.
    fn update(
        &mut self,
        function: AggFunction,
        k: &Value,
        v: &Value,
        negate: bool,
        raw: bool,
    ) -> Result<()> {
        let key = match k {
            Value::Bytes(key) => key,
            // Flink's type strategy declares the key NOT NULL; a NULL one would fail inside
            // the map view.
            Value::Null => {
                return Err(Error::InvalidShape(
                    "JSON_OBJECTAGG received a NULL key; Flink requires the key to be NOT NULL"
                        .into(),
                ));
            }
            other => {
                return Err(Error::State(format!(
                    "JSON_OBJECTAGG key {other:?} is not a string"
                )));
            }
        };
        let at = self
            .entries
            .binary_search_by(|(k, _)| java_string_order(k, key));
        if negate {
            // `map.remove(key)`, whatever the value.
            if let Ok(i) = at {
                self.entries.remove(i);
            }
            return Ok(());
        }
        // `assertKeyNotPresent` first, even for a NULL value that ABSENT ON NULL skips.
        let i = at.map_or_else(Ok, |_| Err(duplicate_key(key)))?;
        let value = match v {
            Value::Null if function == AggFunction::JsonObjectAggAbsentOnNull => return Ok(()),
            Value::Null => None,
            Value::Bytes(text) if raw => Some(text.clone()),
            v => Some(json_string(v)),
        };
        self.entries.insert(i, (key.clone(), value));
        Ok(())
    }

    /// `merge` (two-phase): every member of `other` is put after `assertKeyNotPresent`,
    /// so a key both sides hold fails as a duplicate accumulation does.
    fn merge(&mut self, other: &JsonObject) -> Result<()> {
        for (key, value) in &other.entries {
            let at = self
                .entries
                .binary_search_by(|(k, _)| java_string_order(k, key));
            let i = at.map_or_else(Ok, |_| Err(duplicate_key(key)))?;
            self.entries.insert(i, (key.clone(), value.clone()));
        }
        Ok(())
    }

    /// The members as `(key, JSON text or NULL)` values: the partial's MAP entries.
    pub(crate) fn to_pairs(&self) -> Vec<(Value, Value)> {
        self.entries
            .iter()
            .map(|(k, v)| {
                (
                    Value::Bytes(k.clone()),
                    v.clone().map_or(Value::Null, Value::Bytes),
                )
            })
            .collect()
    }

    /// The object of a partial's MAP entries; keys must be non-NULL strings, values strings
    /// or NULL.
    pub(crate) fn from_pairs(pairs: Vec<(Value, Value)>) -> Result<Self> {
        let mut object = JsonObject::default();
        for (key, value) in pairs {
            let (Value::Bytes(key), value @ (Value::Bytes(_) | Value::Null)) = (key, value) else {
                return Err(Error::InvalidShape(
                    "a JSON_OBJECTAGG partial member needs a string key and a string or NULL \
                     value"
                        .into(),
                ));
            };
            let value = match value {
                Value::Bytes(v) => Some(v),
                _ => None,
            };
            object.merge(&JsonObject {
                entries: vec![(key, value)],
            })?;
        }
        Ok(object)
    }

    /// `getValue`: `{"k":v,..}` as Jackson writes an `ObjectNode` of raw values, keys
    /// escaped as JSON strings, a NULL value as `null`, `{}` when empty.
    fn to_json(&self) -> Vec<u8> {
        let mut out = vec![b'{'];
        for (n, (key, value)) in self.entries.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            json_quote(key, &mut out);
            out.push(b':');
            out.extend_from_slice(value.as_deref().unwrap_or(b"null"));
        }
        out.push(b'}');
        out
    }
}

/// A retracting MIN/MAX or DISTINCT call's view of its group's sorted map during a bundle.
pub(crate) struct MapCtx<'a> {
    pub(crate) maps: &'a mut super::sorted_map::SortedMaps,
    pub(crate) store: &'a dyn crate::state::StateBackend,
    /// Which of the bundle's maps this is.
    pub(crate) map: usize,
    /// `[group state key][call index]`.
    pub(crate) prefix: &'a [u8],
    /// Scratch for the entry key.
    pub(crate) key: &'a mut Vec<u8>,
    /// Set when the extremum was retracted and the next one is still to be found: Flink
    /// finds it at once (`updateMax`); finding it only when needed skips the seek for
    /// groups that are deleted anyway.
    pub(crate) dirty: &'a mut bool,
}

impl MapCtx<'_> {
    /// Puts the entry key of `x` in the scratch buffer.
    fn fill_key(&mut self, x: &Value) {
        self.fill_key_with(|out| super::value::order_bytes(x, out));
    }

    /// Puts the entry key whose value part `write` appends in the scratch buffer.
    fn fill_key_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        self.key.clear();
        self.key.extend_from_slice(self.prefix);
        write(self.key);
    }

    /// Puts the entry key of a value given by its order bytes in the scratch buffer.
    fn fill_key_from(&mut self, bytes: &[u8]) {
        self.key.clear();
        self.key.extend_from_slice(self.prefix);
        self.key.extend_from_slice(bytes);
    }

    /// Adds `delta` to the count of the entry in the scratch buffer (a count of 0 removes
    /// it), keeping `entries` (the physical entry count) in step: the count before and
    /// after.
    fn add_key(&mut self, delta: i64, entries: &mut i64) -> (i64, i64) {
        let old = self.maps.get(self.map, self.key);
        let count = old.wrapping_add(delta);
        *entries += self
            .maps
            .set(self.map, self.key, (count != 0).then_some(count));
        (old, count)
    }

    /// Runs a pending `updateMax`/`updateMin`: the extremum becomes the map's last (first)
    /// key; an empty map resets `mapSize` to 0 and the extremum to NULL, as Flink does.
    fn resolve(
        &mut self,
        class: Class,
        value: &mut Value,
        map_size: &mut i64,
        max: bool,
    ) -> Result<()> {
        if !*self.dirty {
            return Ok(());
        }
        *self.dirty = false;
        match self.maps.extreme(self.store, self.map, self.prefix, max)? {
            Some(bytes) => *value = super::value::from_order_bytes(class, &bytes)?,
            None => {
                *value = Value::Null;
                *map_size = 0;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::decimal_avg;

    #[test]
    fn decimal_avg_rounds_half_up_at_the_result_scale() {
        // 0.01 / 32 = 0.0003125 at scale 6: up, away from zero (HALF_EVEN would say 312).
        assert_eq!(decimal_avg(1, 32, 4), Some(313));
        assert_eq!(decimal_avg(-1, 32, 4), Some(-313));
        assert_eq!(decimal_avg(1, -32, 4), Some(-313));
        assert_eq!(decimal_avg(0, 7, 6), Some(0));
        // 5 / 3 at scale 6 from scale 2: 1.666667.
        assert_eq!(decimal_avg(500, 3, 4), Some(1_666_667));
    }

    #[test]
    fn decimal_avg_keeps_38_digits_and_is_null_past_them() {
        let e31 = 10i128.pow(31);
        // (8 * 10^31 + 1) / 8 = 10^31 + 0.125: all 38 digits at scale 6.
        assert_eq!(
            decimal_avg(8 * e31 + 1, 8, 6),
            Some(e31 * 1_000_000 + 125_000)
        );
        // 2 / 3 = 0.666.. (38 sixes, then HALF_UP to 7), then to scale 0: 1.
        assert_eq!(decimal_avg(2, 3, 0), Some(1));
        // 10^33 at scale 6 needs 40 digits.
        assert_eq!(decimal_avg(1000 * e31, 1, 6), None);
        assert_eq!(decimal_avg(1, 0, 6), None);
    }
}

#[cfg(test)]
mod json_object_tests {
    use super::*;

    fn call(null_on_null: bool, retracting: bool) -> BoundCall {
        let call = AggCall::json_object_agg(1, 2, null_on_null, "obj");
        let types = [
            LogicalType::VarChar(10),
            LogicalType::VarChar(10),
            LogicalType::BigInt,
        ];
        BoundCall::bind(&call, &types, retracting).unwrap()
    }

    fn s(text: &str) -> Value {
        Value::Bytes(text.as_bytes().to_vec())
    }

    fn json(call: &BoundCall, acc: &mut Acc) -> String {
        match call.value(acc, None).unwrap() {
            Value::Bytes(b) => String::from_utf8(b).unwrap(),
            other => panic!("not a string: {other:?}"),
        }
    }

    #[test]
    fn duplicate_keys_fail_with_flinks_message_even_for_absent_null_values() {
        let c = call(false, true);
        let mut acc = c.create();
        c.update(&mut acc, &s("k"), &Value::Null, false, None)
            .unwrap();
        // ABSENT ON NULL did not put it, so a second NULL is not a duplicate.
        c.update(&mut acc, &s("k"), &Value::Int(1), false, None)
            .unwrap();
        let err = c
            .update(&mut acc, &s("k"), &Value::Null, false, None)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Key 'k' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG. \
             Please ensure that keys are unique."
        );
        let err = c
            .update(&mut acc, &Value::Null, &Value::Int(1), false, None)
            .unwrap_err();
        assert!(err.to_string().contains("NULL key"), "{err}");
    }

    #[test]
    fn calls_without_a_value_column_are_refused() {
        let unbound = AggCall::new(AggFunction::JsonObjectAggNullOnNull, Some(1), "obj");
        let types = [LogicalType::VarChar(1), LogicalType::VarChar(1)];
        assert!(BoundCall::bind(&unbound, &types, false).is_err());
    }

    #[test]
    fn retraction_removes_the_key_whatever_the_value_and_survives_the_state_codec() {
        let c = call(true, true);
        let mut acc = c.create();
        for (k, v) in [
            ("a", Value::Int(1)),
            ("b", Value::Null),
            ("c", Value::Int(-3)),
        ] {
            c.update(&mut acc, &s(k), &v, false, None).unwrap();
        }
        c.update(&mut acc, &s("a"), &Value::Int(99), true, None)
            .unwrap();
        c.update(&mut acc, &s("zz"), &Value::Null, true, None)
            .unwrap();
        let mut bytes = Vec::new();
        acc.encode(&mut bytes);
        let mut restored = Acc::decode(&c.create(), &mut bytes.as_slice()).unwrap();
        assert_eq!(restored, acc);
        let text = json(&c, &mut restored);
        assert_eq!(text, r#"{"b":null,"c":-3}"#);
        // Emptied: `{}`, a fresh accumulator.
        for k in ["b", "c"] {
            c.update(&mut restored, &s(k), &Value::Null, true, None)
                .unwrap();
        }
        assert_eq!(json(&c, &mut restored), "{}");
        assert_eq!(restored, c.create());
    }

    /// Members sorted as `String.compareTo` sorts: by UTF-16 code units.
    #[test]
    fn members_are_sorted_by_utf16_code_units() {
        let c = call(true, false);
        let mut acc = c.create();
        // U+FF01 is above the surrogates that encode U+1F980 in UTF-16, below them in UTF-8.
        for (n, k) in ["b", "\u{FF01}", "\u{1F980}", "a", "", "ab"]
            .iter()
            .enumerate()
        {
            c.update(&mut acc, &s(k), &Value::Int(n as i64), false, None)
                .unwrap();
        }
        assert_eq!(
            json(&c, &mut acc),
            "{\"\":4,\"a\":3,\"ab\":5,\"b\":0,\"\u{1F980}\":2,\"\u{FF01}\":1}"
        );
    }
}
