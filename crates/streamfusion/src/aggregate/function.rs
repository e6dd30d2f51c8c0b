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
//! | `FIRST_VALUE/LAST_VALUE(x)` | first/last non-NULL value | (not yet) |
//!
//! Arithmetic is Java's: integer sums wrap at the argument's width (`SUM(INT)` is `INT`),
//! FLOAT sums round to `float` after every step, `AVG` of an integer type divides `BIGINT`
//! sum by `BIGINT` count and truncates, DECIMAL sums are `DECIMAL(38, s)` and become NULL on
//! overflow, as `DecimalData.add` does.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::value::{Class, Value, compare, sql_greater};
use crate::error::{Error, Result};
use crate::types::LogicalType;

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
        }
    }
}

/// One aggregate call of a GROUP BY.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AggCall {
    /// The function.
    pub function: AggFunction,
    /// The input column it aggregates; `None` only for `COUNT(*)`.
    pub arg: Option<usize>,
    /// The output column's name.
    pub name: String,
}

impl AggCall {
    /// A call of `function` over column `arg`.
    pub fn new(function: AggFunction, arg: Option<usize>, name: impl Into<String>) -> Self {
        Self {
            function,
            arg,
            name: name.into(),
        }
    }
}

/// A call checked against the input types.
#[derive(Debug, Clone)]
pub(crate) struct BoundCall {
    pub(crate) function: AggFunction,
    pub(crate) arg: Option<usize>,
    /// The argument's class (`COUNT(*)` has none).
    pub(crate) class: Option<Class>,
    pub(crate) result: LogicalType,
    /// Whether the input can retract, which selects the retracting implementations.
    pub(crate) retracting: bool,
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
            (AggFunction::Avg, Some(ty), Some(Class::Decimal { .. })) => {
                return Err(invalid(format!("AVG over {ty} is not supported yet")));
            }
            (AggFunction::Min | AggFunction::Max, Some(ty), Some(Class::Binary)) => {
                return Err(invalid(format!("MIN/MAX over {ty} is not supported")));
            }
            (
                AggFunction::Min
                | AggFunction::Max
                | AggFunction::FirstValue
                | AggFunction::LastValue,
                Some(ty),
                _,
            ) => ty.clone(),
            (_, Some(ty), _) => {
                return Err(invalid(format!("{ty} is not a numeric type")));
            }
            (_, None, _) => unreachable!("checked above: only COUNT(*) has no argument"),
        };
        if retracting
            && matches!(
                call.function,
                AggFunction::FirstValue | AggFunction::LastValue
            )
        {
            return Err(invalid(
                "retracting input is not supported yet (FirstValueWithRetractAggFunction)".into(),
            ));
        }
        Ok(Self {
            function: call.function,
            arg: call.arg,
            class,
            result,
            retracting,
        })
    }

    /// Whether this call keeps a sorted map state (retracting MIN/MAX).
    pub(crate) fn uses_sorted_map(&self) -> bool {
        self.retracting && matches!(self.function, AggFunction::Min | AggFunction::Max)
    }

    /// A fresh accumulator (`createAccumulators`).
    pub(crate) fn create(&self) -> Acc {
        match self.function {
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

    /// `accumulate` (`negate` false) or `retract` (true) of `x` into `acc`. `map` is the
    /// group's sorted map for retracting MIN/MAX.
    pub(crate) fn update(
        &self,
        acc: &mut Acc,
        x: &Value,
        negate: bool,
        map: Option<&mut MapCtx<'_>>,
    ) -> Result<()> {
        match acc {
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
            } => {
                if x.is_null() {
                    return Ok(());
                }
                let map = map.expect("retracting MIN/MAX is always given its map");
                let max = self.function == AggFunction::Max;
                map.resolve(self.class(), value, map_size, max)?;
                map.fill_key(x);
                let key: &[u8] = map.key;
                let old = map.maps.get(map.map, key);
                if !negate {
                    // `if (mapSize == 0 || max.compareTo(v) < 0) max = v` (MIN mirrored).
                    let beaten = if max {
                        Ordering::Less
                    } else {
                        Ordering::Greater
                    };
                    if *map_size == 0 || compare(value, x) == beaten {
                        *value = x.clone();
                    }
                    let count = old + 1;
                    *entries += map.maps.set(map.map, key, (count != 0).then_some(count));
                    if count == 1 {
                        *map_size += 1;
                    }
                } else {
                    let count = old - 1;
                    if count == 0 {
                        *entries += map.maps.set(map.map, key, None);
                        *map_size -= 1;
                        if *map_size == 0 {
                            *value = Value::Null;
                            return Ok(());
                        }
                        if compare(x, value).is_eq() {
                            // updateMax/updateMin, deferred to the next use (see MapCtx).
                            *map.dirty = true;
                        }
                    } else {
                        *entries += map.maps.set(map.map, key, Some(count));
                    }
                }
            }
        }
        Ok(())
    }

    /// `getValue` of this call.
    pub(crate) fn value(&self, acc: &mut Acc, map: Option<&mut MapCtx<'_>>) -> Result<Value> {
        Ok(match acc {
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
                        _ => Value::Null,
                    }
                }
            }
            Acc::Value(v) => v.clone(),
            Acc::Extremum {
                value, map_size, ..
            } => {
                let map = map.expect("retracting MIN/MAX is always given its map");
                let max = self.function == AggFunction::Max;
                map.resolve(self.class(), value, map_size, max)?;
                if *map_size > 0 {
                    value.clone()
                } else {
                    Value::Null
                }
            }
        })
    }
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
    /// Retracting MIN/MAX: Flink's `(max, mapSize)` plus the number of physical map entries.
    Extremum {
        value: Value,
        map_size: i64,
        entries: i64,
    },
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
            Acc::Sum0(v) | Acc::Value(v) => encode(v, out),
            Acc::Extremum {
                value,
                map_size,
                entries,
            } => {
                encode(value, out);
                encode(&Value::Int(*map_size), out);
                encode(&Value::Int(*entries), out);
            }
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
            Acc::Extremum { .. } => Acc::Extremum {
                value: decode(input)?,
                map_size: decode_count(input)?,
                entries: decode_count(input)?,
            },
        })
    }
}

/// A retracting MIN/MAX call's view of its group's sorted map during a bundle.
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
        self.key.clear();
        self.key.extend_from_slice(self.prefix);
        super::value::order_bytes(x, self.key);
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
