//! Scalar values of aggregate arguments, accumulators and results.
//!
//! Accumulators hold one [`Value`] per field. Every Flink type an aggregate accepts maps to
//! one [`Class`], which fixes how its values are read from Arrow, compared, encoded in
//! state and written back to Arrow. Integer-like types (TINYINT..BIGINT, DATE, TIME,
//! TIMESTAMP, both INTERVALs) share `Value::Int` with their Arrow native value widened to
//! `i64`; FLOAT and DOUBLE share `Value::Float`.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Decimal128Array, Float32Array, Float64Array,
    PrimitiveArray,
};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, DurationMillisecondType, Int8Type, Int16Type,
    Int32Type, Int64Type, IntervalUnit, IntervalYearMonthType, Time32MillisecondType, TimeUnit,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
};

use crate::error::{Error, Result};
use crate::float_order::f64_order_key;
use crate::types::LogicalType;

/// One scalar.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// BOOLEAN.
    Bool(bool),
    /// Integer-like types, widened.
    Int(i64),
    /// FLOAT (exactly representable as `f64`) and DOUBLE.
    Float(f64),
    /// DECIMAL's unscaled value.
    Decimal(i128),
    /// CHAR/VARCHAR (UTF-8) and BINARY/VARBINARY bytes.
    Bytes(Vec<u8>),
    /// An ARRAY result (ARRAY_AGG): its elements, NULLs included. Never an argument or a
    /// map key.
    List(Vec<Value>),
}

impl Value {
    /// Whether this is SQL NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

/// How values of a Flink type are represented and compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// BOOLEAN.
    Bool,
    /// An integer of this many bits: arithmetic wraps at this width, as Java's does.
    Int(u8),
    /// Integer-like temporal types: compared, never added.
    Temporal,
    /// FLOAT: arithmetic rounds to `f32` after each step, as Java's `float` does.
    Float32,
    /// DOUBLE.
    Float64,
    /// DECIMAL(p, s).
    Decimal {
        /// Precision.
        precision: u8,
        /// Scale.
        scale: u8,
    },
    /// CHAR/VARCHAR.
    String,
    /// BINARY/VARBINARY.
    Binary,
}

impl Class {
    /// The class of a Flink type.
    pub fn of(ty: &LogicalType) -> Result<Class> {
        Ok(match ty {
            LogicalType::Boolean => Class::Bool,
            LogicalType::TinyInt => Class::Int(8),
            LogicalType::SmallInt => Class::Int(16),
            LogicalType::Int => Class::Int(32),
            LogicalType::BigInt => Class::Int(64),
            LogicalType::Float => Class::Float32,
            LogicalType::Double => Class::Float64,
            LogicalType::Decimal { precision, scale } => Class::Decimal {
                precision: *precision,
                scale: *scale,
            },
            LogicalType::Char(_) | LogicalType::VarChar(_) => Class::String,
            LogicalType::Binary(_) | LogicalType::VarBinary(_) => Class::Binary,
            LogicalType::Date
            | LogicalType::Time(_)
            | LogicalType::Timestamp(_)
            | LogicalType::TimestampLtz(_)
            | LogicalType::IntervalYearMonth
            | LogicalType::IntervalDayTime => Class::Temporal,
            other @ (LogicalType::Row(_) | LogicalType::Array(_) | LogicalType::Map(..)) => {
                return Err(Error::InvalidType(format!(
                    "{other} is not an aggregate argument type"
                )));
            }
        })
    }

    /// Whether SUM and AVG accept this class.
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            Class::Int(_) | Class::Float32 | Class::Float64 | Class::Decimal { .. }
        )
    }
}

/// Reads values of one column of a batch, dispatching on the type once.
#[derive(Debug)]
pub(crate) enum ColumnReader<'a> {
    Bool(&'a BooleanArray),
    I8(&'a PrimitiveArray<Int8Type>),
    I16(&'a PrimitiveArray<Int16Type>),
    I32(&'a dyn Array, &'a [i32]),
    I64(&'a dyn Array, &'a [i64]),
    F32(&'a Float32Array),
    F64(&'a Float64Array),
    Decimal(&'a Decimal128Array),
    Utf8(&'a arrow::array::StringArray),
    Binary(&'a arrow::array::BinaryArray),
    /// ARRAY<DOUBLE> (PERCENTILE's percentages).
    DoubleList(&'a arrow::array::ListArray),
}

impl<'a> ColumnReader<'a> {
    /// A reader for `array`, which must carry `ty`.
    pub(crate) fn new(array: &'a dyn Array, ty: &LogicalType, column: usize) -> Result<Self> {
        let expected = ty.to_arrow();
        if array.data_type() != &expected {
            return Err(Error::ColumnType {
                column,
                logical: ty.to_string(),
                expected: expected.to_string(),
                found: array.data_type().to_string(),
            });
        }
        fn raw<T: ArrowPrimitiveType>(a: &dyn Array) -> &[T::Native] {
            a.as_primitive::<T>().values()
        }
        Ok(match array.data_type() {
            DataType::Boolean => Self::Bool(array.as_boolean()),
            DataType::Int8 => Self::I8(array.as_primitive()),
            DataType::Int16 => Self::I16(array.as_primitive()),
            DataType::Int32 => Self::I32(array, raw::<Int32Type>(array)),
            DataType::Date32 => Self::I32(array, raw::<Date32Type>(array)),
            DataType::Time32(TimeUnit::Millisecond) => {
                Self::I32(array, raw::<Time32MillisecondType>(array))
            }
            DataType::Interval(IntervalUnit::YearMonth) => {
                Self::I32(array, raw::<IntervalYearMonthType>(array))
            }
            DataType::Int64 => Self::I64(array, raw::<Int64Type>(array)),
            DataType::Duration(TimeUnit::Millisecond) => {
                Self::I64(array, raw::<DurationMillisecondType>(array))
            }
            DataType::Timestamp(TimeUnit::Millisecond, _) => {
                Self::I64(array, raw::<TimestampMillisecondType>(array))
            }
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                Self::I64(array, raw::<TimestampMicrosecondType>(array))
            }
            DataType::Timestamp(TimeUnit::Nanosecond, _) => {
                Self::I64(array, raw::<TimestampNanosecondType>(array))
            }
            DataType::Float32 => Self::F32(array.as_primitive()),
            DataType::Float64 => Self::F64(array.as_primitive()),
            DataType::Decimal128(_, _) => Self::Decimal(array.as_primitive()),
            DataType::Utf8 => Self::Utf8(array.as_string()),
            DataType::Binary => Self::Binary(array.as_binary()),
            DataType::List(field) if field.data_type() == &DataType::Float64 => {
                Self::DoubleList(array.as_list())
            }
            other => {
                return Err(Error::InvalidType(format!(
                    "column {column}: Arrow {other} is not an aggregate argument type"
                )));
            }
        })
    }

    fn array(&self) -> &dyn Array {
        match self {
            Self::Bool(a) => *a,
            Self::I8(a) => *a,
            Self::I16(a) => *a,
            Self::I32(a, _) | Self::I64(a, _) => *a,
            Self::F32(a) => *a,
            Self::F64(a) => *a,
            Self::Decimal(a) => *a,
            Self::Utf8(a) => *a,
            Self::Binary(a) => *a,
            Self::DoubleList(a) => *a,
        }
    }

    /// Whether row `row` is NULL.
    pub(crate) fn is_null(&self, row: usize) -> bool {
        self.array().is_null(row)
    }

    /// The value at `row`.
    pub(crate) fn value(&self, row: usize) -> Value {
        if self.is_null(row) {
            return Value::Null;
        }
        match self {
            Self::Bool(a) => Value::Bool(a.value(row)),
            Self::I8(a) => Value::Int(a.value(row).into()),
            Self::I16(a) => Value::Int(a.value(row).into()),
            Self::I32(_, v) => Value::Int(v[row].into()),
            Self::I64(_, v) => Value::Int(v[row]),
            Self::F32(a) => Value::Float(a.value(row).into()),
            Self::F64(a) => Value::Float(a.value(row)),
            Self::Decimal(a) => Value::Decimal(a.value(row)),
            Self::Utf8(a) => Value::Bytes(a.value(row).as_bytes().to_vec()),
            Self::Binary(a) => Value::Bytes(a.value(row).to_vec()),
            Self::DoubleList(a) => {
                let list = a.value(row);
                let doubles = list.as_primitive::<arrow::datatypes::Float64Type>();
                Value::List(
                    (0..doubles.len())
                        .map(|i| {
                            if doubles.is_null(i) {
                                Value::Null
                            } else {
                                Value::Float(doubles.value(i))
                            }
                        })
                        .collect(),
                )
            }
        }
    }
}

/// Builds an Arrow array of type `ty` from values of its class.
pub(crate) fn build_array<'v>(
    ty: &DataType,
    values: impl ExactSizeIterator<Item = &'v Value>,
) -> Result<ArrayRef> {
    fn ints<'v, T: ArrowPrimitiveType>(
        ty: &DataType,
        values: impl Iterator<Item = &'v Value>,
        narrow: impl Fn(i64) -> T::Native,
    ) -> ArrayRef {
        let array: PrimitiveArray<T> = values
            .map(|v| match v {
                Value::Int(i) => Some(narrow(*i)),
                _ => None,
            })
            .collect();
        Arc::new(array.with_data_type(ty.clone()))
    }
    // Values were produced for this type, so the narrowing casts below are exact; they
    // wrap like Java's casts if an accumulator ever held a wider value.
    Ok(match ty {
        DataType::Boolean => Arc::new(
            values
                .map(|v| match v {
                    Value::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect::<BooleanArray>(),
        ),
        DataType::Int8 => ints::<Int8Type>(ty, values, |i| i as i8),
        DataType::Int16 => ints::<Int16Type>(ty, values, |i| i as i16),
        DataType::Int32 => ints::<Int32Type>(ty, values, |i| i as i32),
        DataType::Date32 => ints::<Date32Type>(ty, values, |i| i as i32),
        DataType::Time32(TimeUnit::Millisecond) => {
            ints::<Time32MillisecondType>(ty, values, |i| i as i32)
        }
        DataType::Interval(IntervalUnit::YearMonth) => {
            ints::<IntervalYearMonthType>(ty, values, |i| i as i32)
        }
        DataType::Int64 => ints::<Int64Type>(ty, values, |i| i),
        DataType::Duration(TimeUnit::Millisecond) => {
            ints::<DurationMillisecondType>(ty, values, |i| i)
        }
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            ints::<TimestampMillisecondType>(ty, values, |i| i)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            ints::<TimestampMicrosecondType>(ty, values, |i| i)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            ints::<TimestampNanosecondType>(ty, values, |i| i)
        }
        DataType::Float32 => Arc::new(
            values
                .map(|v| match v {
                    Value::Float(f) => Some(*f as f32),
                    _ => None,
                })
                .collect::<Float32Array>(),
        ),
        DataType::Float64 => Arc::new(
            values
                .map(|v| match v {
                    Value::Float(f) => Some(*f),
                    _ => None,
                })
                .collect::<Float64Array>(),
        ),
        DataType::Decimal128(..) => Arc::new(
            values
                .map(|v| match v {
                    Value::Decimal(d) => Some(*d),
                    _ => None,
                })
                .collect::<Decimal128Array>()
                .with_data_type(ty.clone()),
        ),
        DataType::Utf8 => {
            let mut b = arrow::array::StringBuilder::with_capacity(values.len(), 0);
            for v in values {
                match v {
                    Value::Bytes(bytes) => {
                        b.append_value(std::str::from_utf8(bytes).map_err(|e| {
                            Error::State(format!("aggregate produced a non-UTF-8 string: {e}"))
                        })?)
                    }
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Binary => Arc::new(
            values
                .map(|v| match v {
                    Value::Bytes(b) => Some(b.as_slice()),
                    _ => None,
                })
                .collect::<arrow::array::BinaryArray>(),
        ),
        DataType::List(field) => {
            let mut lengths = Vec::with_capacity(values.len());
            let mut valid = Vec::with_capacity(values.len());
            let mut elements: Vec<&Value> = Vec::new();
            for v in values {
                match v {
                    Value::List(list) => {
                        lengths.push(list.len());
                        valid.push(true);
                        elements.extend(list);
                    }
                    _ => {
                        lengths.push(0);
                        valid.push(false);
                    }
                }
            }
            let child = build_array(field.data_type(), elements.into_iter())?;
            Arc::new(arrow::array::ListArray::try_new(
                field.clone(),
                arrow::buffer::OffsetBuffer::from_lengths(lengths),
                child,
                Some(arrow::buffer::NullBuffer::from(valid)),
            )?)
        }
        other => {
            return Err(Error::InvalidType(format!(
                "Arrow {other} is not an aggregate result type"
            )));
        }
    })
}

/// `Comparable.compareTo` of two non-NULL values of one class, as Flink's retracting MIN/MAX
/// and the SQL comparison operators for non-floating types order them. Floating values
/// follow `Double.compare` (NaN above everything, -0.0 below 0.0).
pub(crate) fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
        (Value::Int(a), Value::Int(b)) => a.cmp(b),
        (Value::Float(a), Value::Float(b)) => java_double_compare(*a, *b),
        (Value::Decimal(a), Value::Decimal(b)) => a.cmp(b),
        // BinaryStringData.compareTo and byte[] order: unsigned bytes, then length.
        (Value::Bytes(a), Value::Bytes(b)) => a.cmp(b),
        _ => Ordering::Equal,
    }
}

/// Java's `Double.compare`.
fn java_double_compare(a: f64, b: f64) -> Ordering {
    f64_order_key(a).cmp(&f64_order_key(b))
}

/// The SQL `>` that Flink's generated code evaluates for non-retracting MAX (and `<` for
/// MIN): Java's primitive comparison for FLOAT/DOUBLE (false whenever NaN is involved,
/// -0.0 equal to 0.0), `compareTo` otherwise.
pub(crate) fn sql_greater(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(a), Value::Float(b)) => a > b,
        _ => compare(a, b) == Ordering::Greater,
    }
}

/// Java's `equals` of two values of one class (boxed `Double.equals` for floating types: one
/// NaN, -0.0 distinct from 0.0), as `List.remove`, `indexOf` and map keys use it.
pub(crate) fn java_equals(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(a), Value::Float(b)) => f64_order_key(*a) == f64_order_key(*b),
        (Value::List(a), Value::List(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| java_equals(a, b))
        }
        _ => a == b,
    }
}

/// Field-wise equality of aggregate results as Flink's generated `RecordEqualiser` decides
/// it: primitive `==` for FLOAT/DOUBLE (NaN never equal, -0.0 equal to 0.0), value
/// equality otherwise.
pub(crate) fn results_equal(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| match (a, b) {
            (Value::Float(a), Value::Float(b)) => a == b,
            // `GenericArrayData.equals`: the boxed elements' `equals`.
            (Value::List(_), Value::List(_)) => java_equals(a, b),
            _ => a == b,
        })
}

/// The order-preserving bytes of a non-NULL value of `class`: byte order equals
/// [`compare`] order, and equal bytes mean `equals` in Java (one canonical NaN, -0.0 and
/// 0.0 distinct). Used as the user key of sorted map state.
pub(crate) fn order_bytes(value: &Value, out: &mut Vec<u8>) {
    with_order_bytes(value, |bytes| out.extend_from_slice(bytes));
}

/// Runs `f` on the order bytes of `value` ([`order_bytes`]) without allocating: a string's
/// or binary's own bytes, or a fixed-width encoding on the stack.
pub(crate) fn with_order_bytes<R>(value: &Value, f: impl FnOnce(&[u8]) -> R) -> R {
    let mut word = [0u8; 16];
    let bytes: &[u8] = match value {
        Value::Null => &[],
        Value::Bool(b) => {
            word[0] = u8::from(*b);
            &word[..1]
        }
        Value::Int(i) => {
            word[..8].copy_from_slice(&((*i as u64) ^ (1 << 63)).to_be_bytes());
            &word[..8]
        }
        Value::Float(f) => {
            word[..8].copy_from_slice(&f64_order_key(*f).to_be_bytes());
            &word[..8]
        }
        Value::Decimal(d) => {
            word.copy_from_slice(&((*d as u128) ^ (1 << 127)).to_be_bytes());
            &word
        }
        Value::Bytes(b) => b,
        // Lists are results only, never map keys.
        Value::List(_) => &[],
    };
    f(bytes)
}

/// Inverts [`order_bytes`] for a value of `class`.
pub(crate) fn from_order_bytes(class: Class, bytes: &[u8]) -> Result<Value> {
    let corrupt = || Error::State(format!("corrupt sorted-map key of {} bytes", bytes.len()));
    let word =
        |n: usize| -> Result<&[u8]> { (bytes.len() == n).then_some(bytes).ok_or_else(corrupt) };
    Ok(match class {
        Class::Bool => Value::Bool(word(1)?[0] != 0),
        Class::Int(_) | Class::Temporal => Value::Int(
            (u64::from_be_bytes(word(8)?.try_into().expect("8 bytes")) ^ (1 << 63)) as i64,
        ),
        Class::Float32 | Class::Float64 => {
            let key = u64::from_be_bytes(word(8)?.try_into().expect("8 bytes"));
            let bits = if key >> 63 == 1 {
                key & !(1 << 63)
            } else {
                !key
            };
            Value::Float(f64::from_bits(bits))
        }
        Class::Decimal { .. } => Value::Decimal(
            (u128::from_be_bytes(word(16)?.try_into().expect("16 bytes")) ^ (1 << 127)) as i128,
        ),
        Class::String | Class::Binary => Value::Bytes(bytes.to_vec()),
    })
}

const TAG_NULL: u8 = 0;
const TAG_FALSE: u8 = 1;
const TAG_TRUE: u8 = 2;
const TAG_INT: u8 = 3;
const TAG_FLOAT: u8 = 4;
const TAG_DECIMAL: u8 = 5;
const TAG_BYTES: u8 = 6;
const TAG_LIST: u8 = 7;

/// Appends the state encoding of `value`: a tag byte, then little-endian payload.
pub(crate) fn encode(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(TAG_NULL),
        Value::Bool(false) => out.push(TAG_FALSE),
        Value::Bool(true) => out.push(TAG_TRUE),
        Value::Int(i) => {
            out.push(TAG_INT);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Float(f) => {
            out.push(TAG_FLOAT);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Value::Decimal(d) => {
            out.push(TAG_DECIMAL);
            out.extend_from_slice(&d.to_le_bytes());
        }
        Value::Bytes(b) => encode_bytes(b, out),
        Value::List(list) => {
            out.push(TAG_LIST);
            out.extend_from_slice(&(list.len() as u32).to_le_bytes());
            for v in list {
                encode(v, out);
            }
        }
    }
}

/// [`encode`] of `Value::Bytes(bytes)`, without building the value.
pub(crate) fn encode_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    out.push(TAG_BYTES);
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Reads a count (always an integer) written by [`encode`] from the front of `input`.
pub(crate) fn decode_count(input: &mut &[u8]) -> Result<i64> {
    match decode(input)? {
        Value::Int(count) => Ok(count),
        other => Err(Error::State(format!(
            "corrupt accumulator: a count field holds {other:?}"
        ))),
    }
}

/// Reads one value written by [`encode`] from the front of `input`, advancing it.
pub(crate) fn decode(input: &mut &[u8]) -> Result<Value> {
    fn take<'a>(input: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
        if input.len() < n {
            return Err(Error::State(format!(
                "corrupt accumulator: {n} bytes expected, {} left",
                input.len()
            )));
        }
        let (head, tail) = input.split_at(n);
        *input = tail;
        Ok(head)
    }
    let tag = take(input, 1)?[0];
    Ok(match tag {
        TAG_NULL => Value::Null,
        TAG_FALSE => Value::Bool(false),
        TAG_TRUE => Value::Bool(true),
        TAG_INT => Value::Int(i64::from_le_bytes(
            take(input, 8)?.try_into().expect("8 bytes"),
        )),
        TAG_FLOAT => Value::Float(f64::from_bits(u64::from_le_bytes(
            take(input, 8)?.try_into().expect("8 bytes"),
        ))),
        TAG_DECIMAL => Value::Decimal(i128::from_le_bytes(
            take(input, 16)?.try_into().expect("16 bytes"),
        )),
        TAG_BYTES => {
            let len = u32::from_le_bytes(take(input, 4)?.try_into().expect("4 bytes")) as usize;
            Value::Bytes(take(input, len)?.to_vec())
        }
        TAG_LIST => {
            let len = u32::from_le_bytes(take(input, 4)?.try_into().expect("4 bytes")) as usize;
            // Every element takes at least one byte, which bounds a corrupt length.
            if len > input.len() {
                return Err(Error::State(format!(
                    "corrupt accumulator: a list of {len} elements in {} bytes",
                    input.len()
                )));
            }
            let mut list = Vec::with_capacity(len);
            for _ in 0..len {
                list.push(decode(input)?);
            }
            Value::List(list)
        }
        other => {
            return Err(Error::State(format!(
                "corrupt accumulator: unknown value tag {other}"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_bytes_sort_like_compare_and_round_trip() {
        let floats = [
            f64::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
            f64::NAN,
        ];
        let cases: Vec<(Class, Vec<Value>)> = vec![
            (
                Class::Int(64),
                [i64::MIN, -1, 0, 1, i64::MAX].map(Value::Int).to_vec(),
            ),
            (Class::Float64, floats.map(Value::Float).to_vec()),
            (
                Class::Decimal {
                    precision: 38,
                    scale: 2,
                },
                [i128::MIN / 2, -5, 0, 7, i128::MAX / 2]
                    .map(Value::Decimal)
                    .to_vec(),
            ),
            (
                Class::String,
                ["", "a", "a\0", "ab", "b", "é"]
                    .map(|s| Value::Bytes(s.as_bytes().to_vec()))
                    .to_vec(),
            ),
            (Class::Bool, vec![Value::Bool(false), Value::Bool(true)]),
        ];
        for (class, values) in cases {
            for (i, a) in values.iter().enumerate() {
                let mut ka = Vec::new();
                order_bytes(a, &mut ka);
                let back = from_order_bytes(class, &ka).unwrap();
                assert_eq!(compare(&back, a), Ordering::Equal, "{a:?}");
                for (j, b) in values.iter().enumerate() {
                    let mut kb = Vec::new();
                    order_bytes(b, &mut kb);
                    // The lists are in ascending Java order.
                    assert_eq!(ka.cmp(&kb), i.cmp(&j), "{a:?} vs {b:?}");
                }
            }
        }
        // Every NaN is the one canonical key; the zeros stay distinct.
        let (mut n1, mut n2) = (Vec::new(), Vec::new());
        order_bytes(&Value::Float(f64::NAN), &mut n1);
        order_bytes(&Value::Float(-f64::NAN), &mut n2);
        assert_eq!(n1, n2);
    }

    #[test]
    fn java_primitive_comparisons_and_equality() {
        let nan = Value::Float(f64::NAN);
        assert!(!sql_greater(&nan, &Value::Float(1.0)));
        assert!(!sql_greater(&Value::Float(1.0), &nan));
        assert!(!sql_greater(&Value::Float(0.0), &Value::Float(-0.0)));
        let nans = [nan.clone(), Value::Float(f64::NAN)];
        assert!(!results_equal(&nans[..1], &nans[1..]));
        assert!(results_equal(&[Value::Float(0.0)], &[Value::Float(-0.0)]));
        assert!(results_equal(&[Value::Null], &[Value::Null]));
    }

    #[test]
    fn state_encoding_round_trips_and_rejects_truncation() {
        let values = vec![
            Value::Null,
            Value::Bool(true),
            Value::Int(-3),
            Value::Float(-0.0),
            Value::Decimal(-12345678901234567890123),
            Value::Bytes("größer\0".as_bytes().to_vec()),
        ];
        let mut bytes = Vec::new();
        for v in &values {
            encode(v, &mut bytes);
        }
        let mut input = bytes.as_slice();
        for v in &values {
            let got = decode(&mut input).unwrap();
            match (v, &got) {
                (Value::Float(a), Value::Float(b)) => assert_eq!(a.to_bits(), b.to_bits()),
                _ => assert_eq!(&got, v),
            }
        }
        assert!(input.is_empty());
        // A count field holding anything but an integer is corruption, not zero.
        let mut null = [TAG_NULL].as_slice();
        assert!(matches!(decode_count(&mut null), Err(Error::State(_))));
        let mut cut = &bytes[..bytes.len() - 1];
        let err = (0..values.len()).try_for_each(|_| decode(&mut cut).map(drop));
        assert!(matches!(err, Err(Error::State(_))));
    }
}
