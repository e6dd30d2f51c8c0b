//! Parquet files as Flink 2.3.0 writes and reads them.
//!
//! Oracles: the schema strings Flink's `ParquetSchemaConverter` builds (written by hand from
//! its source and parquet-mr's `MessageType.toString`), INT96 vectors worked by hand from
//! the Parquet spec (Julian day + nanoseconds of the day; the Julian day numbers of
//! 0001-01-01 = 1,721,426 and 2000-01-01 = 2,451,545 are the standard ones), parquet-rs's
//! own plain reader/writer (raw INT96 values, INT64 values, files written by `ArrowWriter`),
//! a midpoint model of split selection, and read-after-write identity.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int8Array, Int16Array, Int32Array, Int64Array, ListArray, RecordBatch,
    StringArray, StructArray, Time32MillisecondArray, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{DataType, Field, Schema};
use chrono::{FixedOffset, NaiveDateTime};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{ConvertedType, LogicalType as PqLogical, Repetition, TimeUnit as PqUnit};
use parquet::column::reader::ColumnReader;
use parquet::data_type::Int96Type;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use streamfusion_core::types::{LogicalType, RowField, row_arrow_fields};
use streamfusion_formats::FormatError;
use streamfusion_formats::parquet::{
    FlinkParquetReader, FlinkParquetWriter, LocalFile, MemoryFile, ParquetReadOptions,
    ParquetWriteOptions, TimestampUnit, min_bytes_for_decimal_precision, row_groups_in_range,
};

fn fields(spec: &[(&str, &str)]) -> Vec<RowField> {
    spec.iter()
        .map(|(name, ty)| RowField::new(*name, ty.parse::<LogicalType>().expect("type")))
        .collect()
}

fn write(fields: &[RowField], batches: &[RecordBatch], options: &ParquetWriteOptions) -> Vec<u8> {
    let mut writer = FlinkParquetWriter::try_new(fields, Vec::new(), options).expect("writer");
    for batch in batches {
        writer.write(batch).expect("write");
    }
    writer.close().expect("close")
}

fn read_all(bytes: &[u8], fields: &[RowField], options: &ParquetReadOptions) -> Vec<RecordBatch> {
    FlinkParquetReader::try_new(MemoryFile::new(bytes.to_vec()), fields, options)
        .expect("reader")
        .collect::<Result<Vec<_>, _>>()
        .expect("read")
}

fn concat(fields: &[RowField], batches: &[RecordBatch]) -> RecordBatch {
    let schema = Arc::new(Schema::new(row_arrow_fields(fields)));
    arrow::compute::concat_batches(&schema, batches).expect("concat")
}

fn ts(text: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f").expect("timestamp literal")
}

/// Nanoseconds since the epoch of a wall clock, as i128 (no range limit).
fn epoch_nanos(t: NaiveDateTime) -> i128 {
    let utc = t.and_utc();
    i128::from(utc.timestamp()) * 1_000_000_000 + i128::from(utc.timestamp_subsec_nanos())
}

// ---------------------------------------------------------------------------------------
// Schema: the strings Flink's ParquetSchemaConverter produces.
// ---------------------------------------------------------------------------------------

/// parquet-mr's `MessageType.toString()` rendering of a parquet-rs schema.
fn render(ty: &Type, indent: usize, out: &mut String) {
    let info = ty.get_basic_info();
    let pad = "  ".repeat(indent);
    let repetition = if indent == 0 {
        String::new()
    } else {
        match info.repetition() {
            Repetition::REQUIRED => "required ".into(),
            Repetition::OPTIONAL => "optional ".into(),
            Repetition::REPEATED => "repeated ".into(),
        }
    };
    let annotation = match info.logical_type_ref() {
        Some(PqLogical::String) => " (STRING)".to_string(),
        Some(PqLogical::Integer {
            bit_width,
            is_signed,
        }) => format!(" (INTEGER({bit_width},{is_signed}))"),
        Some(PqLogical::Date) => " (DATE)".into(),
        Some(PqLogical::Time {
            is_adjusted_to_u_t_c,
            unit,
        }) => format!(" (TIME({},{is_adjusted_to_u_t_c}))", unit_name(unit)),
        Some(PqLogical::Timestamp {
            is_adjusted_to_u_t_c,
            unit,
        }) => {
            format!(" (TIMESTAMP({},{is_adjusted_to_u_t_c}))", unit_name(unit))
        }
        Some(PqLogical::Decimal { scale, precision }) => format!(" (DECIMAL({precision},{scale}))"),
        Some(PqLogical::List) => " (LIST)".into(),
        Some(PqLogical::Map) => " (MAP)".into(),
        None if info.converted_type() == ConvertedType::MAP_KEY_VALUE => " (MAP_KEY_VALUE)".into(),
        None => String::new(),
        Some(other) => format!(" ({other:?})"),
    };
    match ty {
        Type::PrimitiveType {
            physical_type,
            type_length,
            ..
        } => {
            let physical = match physical_type {
                parquet::basic::Type::FIXED_LEN_BYTE_ARRAY => {
                    format!("fixed_len_byte_array({type_length})")
                }
                parquet::basic::Type::BYTE_ARRAY => "binary".into(),
                other => other.to_string().to_lowercase(),
            };
            out.push_str(&format!(
                "{pad}{repetition}{physical} {}{annotation};\n",
                info.name()
            ));
        }
        Type::GroupType { fields, .. } => {
            if indent == 0 {
                out.push_str(&format!("message {} {{\n", info.name()));
            } else {
                out.push_str(&format!(
                    "{pad}{repetition}group {}{annotation} {{\n",
                    info.name()
                ));
            }
            for field in fields {
                render(field, indent + 1, out);
            }
            out.push_str(&format!("{pad}}}\n"));
        }
    }
}

fn unit_name(unit: &PqUnit) -> &'static str {
    match unit {
        PqUnit::MILLIS => "MILLIS",
        PqUnit::MICROS => "MICROS",
        PqUnit::NANOS => "NANOS",
    }
}

fn written_schema(fields: &[RowField], options: &ParquetWriteOptions) -> String {
    let bytes = write(fields, &[], options);
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).expect("footer");
    let mut out = String::new();
    render(reader.metadata().file_metadata().schema(), 0, &mut out);
    out
}

#[test]
fn scalar_schema_matches_flinks_converter() {
    let fields = fields(&[
        ("a", "VARCHAR(2147483647)"),
        ("b", "BOOLEAN"),
        ("c", "VARBINARY(2147483647)"),
        ("d", "DECIMAL(5, 2)"),
        ("e", "DECIMAL(20, 0)"),
        ("f", "TINYINT"),
        ("g", "SMALLINT"),
        ("h", "INT"),
        ("i", "BIGINT"),
        ("j", "FLOAT"),
        ("k", "DOUBLE"),
        ("l", "DATE"),
        ("m", "TIME(0)"),
        ("n", "TIMESTAMP(9)"),
        ("o", "TIMESTAMP_LTZ(3)"),
        ("p", "CHAR(3)"),
        ("q", "BINARY(4)"),
        ("r", "DECIMAL(18, 4)"),
        ("s", "DECIMAL(38, 10)"),
    ]);
    let expected = "\
message flink_schema {
  optional binary a (STRING);
  optional boolean b;
  optional binary c;
  optional fixed_len_byte_array(3) d (DECIMAL(5,2));
  optional fixed_len_byte_array(9) e (DECIMAL(20,0));
  optional int32 f (INTEGER(8,true));
  optional int32 g (INTEGER(16,true));
  optional int32 h;
  optional int64 i;
  optional float j;
  optional double k;
  optional int32 l (DATE);
  optional int32 m (TIME(MILLIS,true));
  optional int96 n;
  optional int96 o;
  optional binary p (STRING);
  optional binary q;
  optional fixed_len_byte_array(8) r (DECIMAL(18,4));
  optional fixed_len_byte_array(16) s (DECIMAL(38,10));
}
";
    assert_eq!(
        written_schema(&fields, &ParquetWriteOptions::utc()),
        expected
    );
}

#[test]
fn nested_schema_matches_flinks_converter() {
    let fields = fields(&[
        ("id", "INT"),
        ("tags", "ARRAY<VARCHAR(2147483647)>"),
        ("attrs", "MAP<VARCHAR(2147483647), BIGINT>"),
        ("r", "ROW<x INT, y ARRAY<ROW<z TIMESTAMP(3)>>>"),
        ("nested", "ARRAY<MAP<INT, ARRAY<INT>>>"),
    ]);
    let expected = "\
message flink_schema {
  optional int32 id;
  optional group tags (LIST) {
    repeated group list {
      optional binary element (STRING);
    }
  }
  optional group attrs (MAP) {
    repeated group key_value (MAP_KEY_VALUE) {
      optional binary key (STRING);
      optional int64 value;
    }
  }
  optional group r {
    optional int32 x;
    optional group y (LIST) {
      repeated group list {
        optional group element {
          optional int96 z;
        }
      }
    }
  }
  optional group nested (LIST) {
    repeated group list {
      optional group element (MAP) {
        repeated group key_value (MAP_KEY_VALUE) {
          optional int32 key;
          optional group value (LIST) {
            repeated group list {
              optional int32 element;
            }
          }
        }
      }
    }
  }
}
";
    assert_eq!(
        written_schema(&fields, &ParquetWriteOptions::utc()),
        expected
    );
}

#[test]
fn int64_timestamp_schema_carries_the_configured_unit() {
    let fields = fields(&[("t", "TIMESTAMP(3)"), ("l", "TIMESTAMP_LTZ(9)")]);
    for (unit, name) in [
        (TimestampUnit::Millis, "MILLIS"),
        (TimestampUnit::Micros, "MICROS"),
        (TimestampUnit::Nanos, "NANOS"),
    ] {
        let options = ParquetWriteOptions {
            write_int64_timestamp: true,
            timestamp_unit: unit,
            ..ParquetWriteOptions::utc()
        };
        let expected = format!(
            "message flink_schema {{\n  optional int64 t (TIMESTAMP({name},true));\n  \
             optional int64 l (TIMESTAMP({name},true));\n}}\n"
        );
        assert_eq!(written_schema(&fields, &options), expected);
    }
}

#[test]
fn decimal_byte_widths_follow_compute_min_bytes_for_decimal_precision() {
    // The known table (2^(8n-1) >= 10^p): 1-2 -> 1, 3-4 -> 2, 5-6 -> 3, 7-9 -> 4, ...
    let table: [(u8, u8, usize); 16] = [
        (1, 2, 1),
        (3, 4, 2),
        (5, 6, 3),
        (7, 9, 4),
        (10, 11, 5),
        (12, 14, 6),
        (15, 16, 7),
        (17, 18, 8),
        (19, 21, 9),
        (22, 23, 10),
        (24, 26, 11),
        (27, 28, 12),
        (29, 31, 13),
        (32, 33, 14),
        (34, 35, 15),
        (36, 38, 16),
    ];
    for (from, to, bytes) in table {
        for p in from..=to {
            assert_eq!(min_bytes_for_decimal_precision(p), bytes, "precision {p}");
        }
    }
}

#[test]
fn intervals_are_refused_as_flinks_converter_refuses_them() {
    let fields = fields(&[("i", "INTERVAL YEAR TO MONTH")]);
    let err =
        FlinkParquetWriter::try_new(&fields, Vec::new(), &ParquetWriteOptions::utc()).unwrap_err();
    assert!(matches!(err, FormatError::Unsupported { .. }), "{err}");
}

#[test]
fn local_time_zone_timestamps_need_a_fixed_zone() {
    let fields = fields(&[("t", "TIMESTAMP(3)")]);
    let err = FlinkParquetWriter::try_new(&fields, Vec::new(), &ParquetWriteOptions::default())
        .unwrap_err();
    assert!(matches!(err, FormatError::Unsupported { .. }), "{err}");
    let err = FlinkParquetReader::try_new(
        MemoryFile::new(Vec::new()),
        &fields,
        &ParquetReadOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, FormatError::Unsupported { .. }), "{err}");
    // Without a timestamp no zone is needed.
    let plain = self::fields(&[("i", "INT")]);
    FlinkParquetWriter::try_new(&plain, Vec::new(), &ParquetWriteOptions::default())
        .expect("no zone needed");
}

// ---------------------------------------------------------------------------------------
// Round trips.
// ---------------------------------------------------------------------------------------

fn all_scalars() -> (Vec<RowField>, RecordBatch) {
    let fields = fields(&[
        ("s", "VARCHAR(2147483647)"),
        ("b", "BOOLEAN"),
        ("bin", "VARBINARY(2147483647)"),
        ("d5", "DECIMAL(5, 2)"),
        ("d18", "DECIMAL(18, 4)"),
        ("d38", "DECIMAL(38, 0)"),
        ("ti", "TINYINT"),
        ("si", "SMALLINT"),
        ("i", "INT"),
        ("bi", "BIGINT"),
        ("f", "FLOAT"),
        ("db", "DOUBLE"),
        ("dt", "DATE"),
        ("tm", "TIME(3)"),
        ("t3", "TIMESTAMP(3)"),
        ("t6", "TIMESTAMP(6)"),
        ("t9", "TIMESTAMP(9)"),
        ("l3", "TIMESTAMP_LTZ(3)"),
    ]);
    let n = 6;
    let valid = |i: usize| i % 3 != 2;
    let nulls = NullBuffer::from((0..n).map(valid).collect::<Vec<_>>());
    let ms = |t: &str| (epoch_nanos(ts(t)) / 1_000_000) as i64;
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![
            Some("a"),
            Some("ünï"),
            None,
            Some(""),
            Some("x\0y"),
            None,
        ])),
        Arc::new(BooleanArray::from(vec![
            Some(true),
            Some(false),
            None,
            Some(true),
            Some(false),
            None,
        ])),
        Arc::new(BinaryArray::from(vec![
            Some(&b"\x00\xff"[..]),
            Some(b""),
            None,
            Some(b"abc"),
            Some(b"z"),
            None,
        ])),
        Arc::new(
            Decimal128Array::new(vec![12345, -99999, 0, 1, -1, 7].into(), Some(nulls.clone()))
                .with_precision_and_scale(5, 2)
                .unwrap(),
        ),
        Arc::new(
            Decimal128Array::new(
                vec![
                    999_999_999_999_999_999,
                    -999_999_999_999_999_999,
                    0,
                    1,
                    -1,
                    7,
                ]
                .into(),
                Some(nulls.clone()),
            )
            .with_precision_and_scale(18, 4)
            .unwrap(),
        ),
        Arc::new(
            Decimal128Array::new(
                vec![10i128.pow(38) - 1, -(10i128.pow(38) - 1), 0, 1, -1, 7].into(),
                Some(nulls.clone()),
            )
            .with_precision_and_scale(38, 0)
            .unwrap(),
        ),
        Arc::new(Int8Array::new(
            vec![i8::MIN, i8::MAX, 0, -1, 1, 0].into(),
            Some(nulls.clone()),
        )),
        Arc::new(Int16Array::new(
            vec![i16::MIN, i16::MAX, 0, -1, 1, 0].into(),
            Some(nulls.clone()),
        )),
        Arc::new(Int32Array::new(
            vec![i32::MIN, i32::MAX, 0, -1, 1, 0].into(),
            Some(nulls.clone()),
        )),
        Arc::new(Int64Array::new(
            vec![i64::MIN, i64::MAX, 0, -1, 1, 0].into(),
            Some(nulls.clone()),
        )),
        Arc::new(Float32Array::new(
            vec![f32::MIN, f32::INFINITY, 0.0, -0.0, f32::NAN, 1.5].into(),
            Some(nulls.clone()),
        )),
        Arc::new(Float64Array::new(
            vec![f64::MAX, f64::NEG_INFINITY, 0.0, -0.0, f64::NAN, 1.5].into(),
            Some(nulls.clone()),
        )),
        Arc::new(Date32Array::new(
            vec![-719_162, 2_932_896, 0, -1, 11_016, 0].into(),
            Some(nulls.clone()),
        )),
        Arc::new(Time32MillisecondArray::new(
            vec![0, 86_399_999, 0, 1, 45_296_123, 0].into(),
            Some(nulls.clone()),
        )),
        Arc::new(TimestampMillisecondArray::new(
            vec![
                ms("0001-01-01T00:00:00"),
                ms("9999-12-31T23:59:59.999"),
                0,
                -1,
                ms("1969-12-31T12:00:00"),
                0,
            ]
            .into(),
            Some(nulls.clone()),
        )),
        Arc::new(TimestampMicrosecondArray::new(
            vec![
                (epoch_nanos(ts("0001-01-01T00:00:00.000001")) / 1000) as i64,
                (epoch_nanos(ts("9999-12-31T23:59:59.999999")) / 1000) as i64,
                0,
                -1000,
                1,
                0,
            ]
            .into(),
            Some(nulls.clone()),
        )),
        Arc::new(TimestampNanosecondArray::new(
            vec![
                i64::MIN / 1_000_000 * 1_000_000,
                (epoch_nanos(ts("2000-02-29T12:34:56.123456789"))) as i64,
                0,
                -86_400_000_000_000,
                i64::MAX,
                0,
            ]
            .into(),
            Some(nulls.clone()),
        )),
        Arc::new(
            TimestampMillisecondArray::new(
                vec![ms("2000-02-29T12:34:56.123"), -86_400_000, 0, 0, 1, 0].into(),
                Some(nulls),
            )
            .with_timezone("UTC"),
        ),
    ];
    let batch = RecordBatch::try_new(Arc::new(Schema::new(row_arrow_fields(&fields))), columns)
        .expect("batch");
    (fields, batch)
}

#[test]
fn every_scalar_type_round_trips_with_nulls() {
    let (fields, batch) = all_scalars();
    let bytes = write(
        &fields,
        std::slice::from_ref(&batch),
        &ParquetWriteOptions::utc(),
    );
    let back = concat(
        &fields,
        &read_all(&bytes, &fields, &ParquetReadOptions::utc()),
    );
    assert_eq!(back, batch);
    // INT64 timestamps in nanoseconds cannot hold year 1 or 9999: the writer refuses.
    let options = ParquetWriteOptions {
        write_int64_timestamp: true,
        timestamp_unit: TimestampUnit::Nanos,
        ..ParquetWriteOptions::utc()
    };
    let mut writer = FlinkParquetWriter::try_new(&fields, Vec::new(), &options).unwrap();
    assert!(matches!(
        writer.write(&batch),
        Err(FormatError::Unencodable { .. })
    ));
    // In microseconds they fit: every value round trips (t9's sub-microsecond digits are
    // floored by the unit, so compare only the others).
    let options = ParquetWriteOptions {
        write_int64_timestamp: true,
        timestamp_unit: TimestampUnit::Micros,
        ..ParquetWriteOptions::utc()
    };
    let bytes = write(&fields, std::slice::from_ref(&batch), &options);
    let back = concat(
        &fields,
        &read_all(&bytes, &fields, &ParquetReadOptions::utc()),
    );
    for (i, field) in fields.iter().enumerate() {
        if field.name != "t9" {
            assert_eq!(
                back.column(i).as_ref(),
                batch.column(i).as_ref(),
                "{}",
                field.name
            );
        }
    }
}

#[test]
fn written_scalars_read_the_same_through_plain_parquet_rs() {
    let (fields, batch) = all_scalars();
    let bytes = write(
        &fields,
        std::slice::from_ref(&batch),
        &ParquetWriteOptions::utc(),
    );
    let plain = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let plain = &plain[0];
    for name in [
        "s", "b", "bin", "d5", "d18", "d38", "si", "i", "bi", "f", "db", "dt", "tm",
    ] {
        let ours = batch.column_by_name(name).unwrap();
        let theirs = plain.column_by_name(name).unwrap();
        let theirs = arrow::compute::cast(theirs, ours.data_type()).unwrap();
        assert_eq!(theirs.as_ref(), ours.as_ref(), "{name}");
    }
}

fn nested() -> (Vec<RowField>, RecordBatch) {
    let fields = fields(&[
        ("id", "INT"),
        ("tags", "ARRAY<VARCHAR(2147483647)>"),
        ("attrs", "MAP<VARCHAR(2147483647), TIMESTAMP(9)>"),
        (
            "r",
            "ROW<x INT, y ARRAY<ROW<z TIMESTAMP(3), w DECIMAL(20, 2)>>>",
        ),
    ]);
    // tags: [a, NULL], NULL, [], [b]
    let tags = ListArray::new(
        Arc::new(Field::new("element", DataType::Utf8, true)),
        OffsetBuffer::new(vec![0, 2, 2, 2, 3].into()),
        Arc::new(StringArray::from(vec![Some("a"), None, Some("b")])),
        Some(NullBuffer::from(vec![true, false, true, true])),
    );
    // attrs: {k1: t, k2: NULL}, {}, NULL, {k3: t}
    let entry_fields = streamfusion_core::types::map_entry_fields(
        &"VARCHAR(2147483647)".parse().unwrap(),
        &"TIMESTAMP(9)".parse().unwrap(),
    );
    let entries = StructArray::new(
        entry_fields.clone(),
        vec![
            Arc::new(StringArray::from(vec!["k1", "k2", "k3"])),
            Arc::new(TimestampNanosecondArray::from(vec![
                Some(1_500_000_001),
                None,
                Some(-86_400_000_000_000),
            ])),
        ],
        None,
    );
    let attrs = ListArray::new(
        Arc::new(Field::new("entries", DataType::Struct(entry_fields), false)),
        OffsetBuffer::new(vec![0, 2, 2, 2, 3].into()),
        Arc::new(entries),
        Some(NullBuffer::from(vec![true, true, false, true])),
    );
    let LogicalType::Row(r_fields) = &fields[3].ty else {
        unreachable!()
    };
    let LogicalType::Array(inner) = &r_fields[1].ty else {
        unreachable!()
    };
    let LogicalType::Row(inner_fields) = inner.as_ref() else {
        unreachable!()
    };
    let inner_rows = StructArray::new(
        row_arrow_fields(inner_fields),
        vec![
            Arc::new(TimestampMillisecondArray::from(vec![
                Some(-1),
                None,
                Some(0),
            ])),
            Arc::new(
                Decimal128Array::from(vec![Some(-123456789012345678), Some(5), None])
                    .with_precision_and_scale(20, 2)
                    .unwrap(),
            ),
        ],
        Some(NullBuffer::from(vec![true, true, false])),
    );
    let y = ListArray::new(
        Arc::new(Field::new("element", inner.to_arrow(), true)),
        OffsetBuffer::new(vec![0, 2, 2, 3, 3].into()),
        Arc::new(inner_rows),
        Some(NullBuffer::from(vec![true, false, true, true])),
    );
    let r = StructArray::new(
        row_arrow_fields(r_fields),
        vec![
            Arc::new(Int32Array::from(vec![Some(1), None, Some(3), Some(4)])),
            Arc::new(y),
        ],
        Some(NullBuffer::from(vec![true, true, true, false])),
    );
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![Some(0), Some(1), None, Some(3)])),
        Arc::new(tags),
        Arc::new(attrs),
        Arc::new(r),
    ];
    let batch =
        RecordBatch::try_new(Arc::new(Schema::new(row_arrow_fields(&fields))), columns).unwrap();
    (fields, batch)
}

/// Compares two arrays by their values as Flink sees them (a NULL parent hides its
/// children's slots), through Arrow's logical equality.
#[test]
fn nested_types_round_trip_with_nulls() {
    let (fields, batch) = nested();
    let bytes = write(
        &fields,
        std::slice::from_ref(&batch),
        &ParquetWriteOptions::utc(),
    );
    let back = concat(
        &fields,
        &read_all(&bytes, &fields, &ParquetReadOptions::utc()),
    );
    // Row 3's struct is NULL: its children are read back as NULL, so compare the row
    // column only where it is valid, and its validity.
    for (i, field) in fields.iter().enumerate().take(3) {
        assert_eq!(
            back.column(i).as_ref(),
            batch.column(i).as_ref(),
            "{}",
            field.name
        );
    }
    let (ours, theirs) = (back.column(3), batch.column(3));
    assert_eq!(ours.logical_nulls(), theirs.logical_nulls());
    assert_eq!(ours.slice(0, 3).as_ref(), theirs.slice(0, 3).as_ref());
    // Also INT64 timestamps nested.
    let options = ParquetWriteOptions {
        write_int64_timestamp: true,
        timestamp_unit: TimestampUnit::Nanos,
        ..ParquetWriteOptions::utc()
    };
    let bytes = write(&fields, std::slice::from_ref(&batch), &options);
    let back = concat(
        &fields,
        &read_all(&bytes, &fields, &ParquetReadOptions::utc()),
    );
    for (i, field) in fields.iter().enumerate().take(3) {
        assert_eq!(
            back.column(i).as_ref(),
            batch.column(i).as_ref(),
            "{}",
            field.name
        );
    }
}

#[test]
fn a_null_map_key_drops_its_value_as_flinks_map_writer_does() {
    let fields = fields(&[("m", "MAP<INT, VARCHAR(2147483647)>")]);
    let entry_fields = streamfusion_core::types::map_entry_fields(
        &LogicalType::Int,
        &LogicalType::VarChar(i32::MAX as u32),
    );
    let entries = StructArray::new(
        entry_fields.clone(),
        vec![
            Arc::new(Int32Array::from(vec![Some(1), None, Some(3)])),
            Arc::new(StringArray::from(vec![Some("v1"), Some("v2"), None])),
        ],
        None,
    );
    let m = ListArray::new(
        Arc::new(Field::new(
            "entries",
            DataType::Struct(entry_fields.clone()),
            false,
        )),
        OffsetBuffer::new(vec![0, 3].into()),
        Arc::new(entries),
        None,
    );
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(row_arrow_fields(&fields))),
        vec![Arc::new(m)],
    )
    .unwrap();
    let bytes = write(&fields, &[batch], &ParquetWriteOptions::utc());
    let back = concat(
        &fields,
        &read_all(&bytes, &fields, &ParquetReadOptions::utc()),
    );
    let list = back.column(0).as_any().downcast_ref::<ListArray>().unwrap();
    let entries = list
        .values()
        .as_any()
        .downcast_ref::<StructArray>()
        .unwrap();
    let keys = entries
        .column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    let values = entries
        .column(1)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(
        keys.iter().collect::<Vec<_>>(),
        vec![Some(1), None, Some(3)]
    );
    assert_eq!(
        values.iter().collect::<Vec<_>>(),
        vec![Some("v1"), None, None]
    );
}

// ---------------------------------------------------------------------------------------
// INT96.
// ---------------------------------------------------------------------------------------

/// The raw (julian day, nanos of day) of column 0 through parquet-rs's low-level reader.
fn raw_int96(bytes: &[u8]) -> Vec<(i32, i64)> {
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes.to_vec())).unwrap();
    let mut out = Vec::new();
    for g in 0..reader.num_row_groups() {
        let group = reader.get_row_group(g).unwrap();
        let ColumnReader::Int96ColumnReader(mut column) = group.get_column_reader(0).unwrap()
        else {
            panic!("not INT96");
        };
        let mut values = Vec::new();
        let mut defs = Vec::new();
        column
            .read_records(10_000, Some(&mut defs), None, &mut values)
            .unwrap();
        for v in values {
            let d = v.data();
            out.push((d[2] as i32, ((i64::from(d[1])) << 32) | i64::from(d[0])));
        }
    }
    out
}

/// Flink's writer arithmetic (`timestampToInt96`, UTC), modelled on i128 with Java's
/// truncating division, from the wall clock's epoch nanoseconds.
fn model_int96_utc(nanos: i128) -> (i32, i64) {
    let millis = nanos.div_euclid(1_000_000);
    let nano_of_milli = nanos.rem_euclid(1_000_000);
    let day = millis / 86_400_000; // Rust's `/` truncates, as Java's
    (
        (day + 2_440_588) as i32,
        ((millis % 86_400_000) * 1_000_000 + nano_of_milli) as i64,
    )
}

#[test]
fn int96_vectors_are_written_as_worked_by_hand() {
    // (wall clock, TIMESTAMP precision, julian day, nanos of day) worked by hand:
    // 1970-01-01 is day 2,440,588; 2000-02-29 is 2,451,545 (2000-01-01) + 59; 0001-01-01 is
    // 1,721,426; 9999-12-31 is 2,440,588 + 2,932,896. Pre-epoch times off a day boundary
    // keep Java's truncation: a negative nanos-of-day on the epoch day.
    let vectors: [(&str, u8, i32, i64); 8] = [
        ("1970-01-01T00:00:00", 9, 2_440_588, 0),
        (
            "2000-02-29T12:34:56.123456789",
            9,
            2_451_604,
            45_296_123_456_789,
        ),
        ("0001-01-01T00:00:00", 3, 1_721_426, 0),
        (
            "9999-12-31T23:59:59.999999",
            6,
            5_373_484,
            86_399_999_999_000,
        ),
        ("1969-12-31T23:59:59.999", 3, 2_440_588, -1_000_000),
        ("1969-12-31T00:00:00", 3, 2_440_587, 0),
        ("1969-12-31T12:00:00", 6, 2_440_588, -43_200_000_000_000),
        ("1969-12-31T23:59:59.999000500", 9, 2_440_588, -999_500),
    ];
    for (text, precision, day, nanos) in vectors {
        let wall = ts(text);
        assert_eq!(
            model_int96_utc(epoch_nanos(wall)),
            (day, nanos),
            "model of {text}"
        );
        let fields = vec![RowField::new("t", LogicalType::Timestamp(precision))];
        let unit_nanos: i128 = match precision {
            0..=3 => 1_000_000,
            4..=6 => 1_000,
            _ => 1,
        };
        let value = (epoch_nanos(wall) / unit_nanos) as i64;
        let array: ArrayRef = match precision {
            0..=3 => Arc::new(TimestampMillisecondArray::from(vec![value])),
            4..=6 => Arc::new(TimestampMicrosecondArray::from(vec![value])),
            _ => Arc::new(TimestampNanosecondArray::from(vec![value])),
        };
        let batch = RecordBatch::try_new(
            Arc::new(Schema::new(row_arrow_fields(&fields))),
            vec![array.clone()],
        )
        .unwrap();
        let bytes = write(
            &fields,
            std::slice::from_ref(&batch),
            &ParquetWriteOptions::utc(),
        );
        assert_eq!(raw_int96(&bytes), vec![(day, nanos)], "{text}");
        // Read back: Flink's reader rejects a negative sub-millisecond remainder.
        let result = FlinkParquetReader::try_new(
            MemoryFile::new(bytes),
            &fields,
            &ParquetReadOptions::utc(),
        )
        .unwrap()
        .collect::<Result<Vec<_>, _>>();
        if nanos < 0 && nanos % 1_000_000 != 0 {
            assert!(
                matches!(result, Err(FormatError::Malformed { .. })),
                "{text}"
            );
        } else {
            assert_eq!(concat(&fields, &result.unwrap()), batch, "{text}");
        }
    }
}

#[test]
fn local_zone_int96_shifts_the_wall_clock_into_the_instant() {
    let plus8 = FixedOffset::east_opt(8 * 3600).unwrap();
    let fields = vec![RowField::new("t", LogicalType::Timestamp(9))];
    // 2000-02-29T12:34:56.123456789 at +08:00 is 04:34:56.123456789Z.
    let wall = epoch_nanos(ts("2000-02-29T12:34:56.123456789")) as i64;
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(row_arrow_fields(&fields))),
        vec![Arc::new(TimestampNanosecondArray::from(vec![
            Some(wall),
            None,
        ]))],
    )
    .unwrap();
    let write_options = ParquetWriteOptions {
        local_time_zone: Some(plus8),
        ..ParquetWriteOptions::default()
    };
    let bytes = write(&fields, std::slice::from_ref(&batch), &write_options);
    assert_eq!(
        raw_int96(&bytes),
        vec![(
            2_451_604,
            (4 * 3600 + 34 * 60 + 56) * 1_000_000_000 + 123_456_789
        )]
    );
    let read_options = ParquetReadOptions {
        local_time_zone: Some(plus8),
        ..ParquetReadOptions::default()
    };
    assert_eq!(
        concat(&fields, &read_all(&bytes, &fields, &read_options)),
        batch
    );
    // Read as UTC it is the instant's wall clock, eight hours earlier.
    let utc = concat(
        &fields,
        &read_all(&bytes, &fields, &ParquetReadOptions::utc()),
    );
    let t = utc
        .column(0)
        .as_any()
        .downcast_ref::<TimestampNanosecondArray>()
        .unwrap();
    assert_eq!(t.value(0), wall - 8 * 3_600_000_000_000);
    // Before 1583 the legacy calendar is not reproduced: a typed error.
    let old = RecordBatch::try_new(
        Arc::new(Schema::new(row_arrow_fields(&fields))),
        vec![Arc::new(TimestampNanosecondArray::from(vec![
            epoch_nanos(ts("1500-01-01T00:00:00")) as i64,
        ]))],
    );
    // 1500 does not fit nanoseconds; use milliseconds for the pre-1583 case.
    assert!(old.is_ok());
    let ms_fields = vec![RowField::new("t", LogicalType::Timestamp(3))];
    let old = RecordBatch::try_new(
        Arc::new(Schema::new(row_arrow_fields(&ms_fields))),
        vec![Arc::new(TimestampMillisecondArray::from(vec![
            (epoch_nanos(ts("1500-01-01T00:00:00")) / 1_000_000) as i64,
        ]))],
    )
    .unwrap();
    let mut writer = FlinkParquetWriter::try_new(&ms_fields, Vec::new(), &write_options).unwrap();
    assert!(matches!(
        writer.write(&old),
        Err(FormatError::Unencodable { .. })
    ));
}

/// A file with hand-made INT96 values written by parquet-rs's low-level writer.
fn int96_file(values: &[(i32, i64)]) -> Vec<u8> {
    let schema = Arc::new(
        parquet::schema::parser::parse_message_type("message m { optional int96 t; }").unwrap(),
    );
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, schema, Default::default()).unwrap();
    let mut group = writer.next_row_group().unwrap();
    let mut column = group.next_column().unwrap().unwrap();
    let data: Vec<parquet::data_type::Int96> = values
        .iter()
        .map(|&(day, nanos)| {
            let mut v = parquet::data_type::Int96::new();
            v.set_data(nanos as u32, ((nanos as u64) >> 32) as u32, day as u32);
            v
        })
        .collect();
    column
        .typed::<Int96Type>()
        .write_batch(&data, Some(&vec![1; values.len()]), None)
        .unwrap();
    column.close().unwrap();
    group.close().unwrap();
    writer.close().unwrap();
    out
}

#[test]
fn int96_values_from_other_writers_read_with_flinks_arithmetic() {
    // millisecond = (day - 2440588) * 86_400_000 + nanos / 1e6 (truncating); nanos % 1e6
    // must not be negative. A nanos-of-day past a day carries into the next day.
    let cases: [(i32, i64, Option<i64>); 5] = [
        (2_440_588, 86_400_000_000_001, Some(86_400_000_000_001)),
        (2_440_589, -1_000_000, Some(86_399_999_000_000)),
        (2_440_588, -1, None),
        (2_440_587, 86_399_999_999_999, Some(-1)),
        (1_721_426, 0, None), // year 1 does not fit TIMESTAMP(9)'s nanoseconds
    ];
    let fields = vec![RowField::new("t", LogicalType::Timestamp(9))];
    for (day, nanos, expected) in cases {
        let bytes = int96_file(&[(day, nanos)]);
        let result = FlinkParquetReader::try_new(
            MemoryFile::new(bytes),
            &fields,
            &ParquetReadOptions::utc(),
        )
        .unwrap()
        .collect::<Result<Vec<_>, _>>();
        match expected {
            Some(value) => {
                let batch = concat(&fields, &result.unwrap());
                let t = batch
                    .column(0)
                    .as_any()
                    .downcast_ref::<TimestampNanosecondArray>()
                    .unwrap();
                assert_eq!(t.value(0), value, "({day}, {nanos})");
            }
            None => assert!(
                matches!(result, Err(FormatError::Malformed { .. })),
                "({day}, {nanos})"
            ),
        }
    }
    // Year 1 reads into TIMESTAMP(3).
    let fields = vec![RowField::new("t", LogicalType::Timestamp(3))];
    let batch = concat(
        &fields,
        &read_all(
            &int96_file(&[(1_721_426, 0)]),
            &fields,
            &ParquetReadOptions::utc(),
        ),
    );
    let t = batch
        .column(0)
        .as_any()
        .downcast_ref::<TimestampMillisecondArray>()
        .unwrap();
    assert_eq!(t.value(0), -62_135_596_800_000);
}

#[test]
fn int64_millis_floors_pre_epoch_sub_millisecond_values() {
    let fields = vec![RowField::new("t", LogicalType::Timestamp(6))];
    let micros = (epoch_nanos(ts("1969-12-31T23:59:59.998500")) / 1000) as i64;
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(row_arrow_fields(&fields))),
        vec![Arc::new(TimestampMicrosecondArray::from(vec![micros]))],
    )
    .unwrap();
    let options = ParquetWriteOptions {
        write_int64_timestamp: true,
        timestamp_unit: TimestampUnit::Millis,
        ..ParquetWriteOptions::utc()
    };
    let bytes = write(&fields, &[batch], &options);
    let plain = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))
        .unwrap()
        .build()
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let t = plain
        .column(0)
        .as_any()
        .downcast_ref::<TimestampMillisecondArray>()
        .unwrap();
    assert_eq!(t.value(0), -2);
}

// ---------------------------------------------------------------------------------------
// Projection, splits, other writers, corrupt files.
// ---------------------------------------------------------------------------------------

fn numbered(rows: i64) -> (Vec<RowField>, RecordBatch) {
    let fields = fields(&[
        ("a", "BIGINT"),
        ("b", "VARCHAR(2147483647)"),
        ("c", "TIMESTAMP(3)"),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(row_arrow_fields(&fields))),
        vec![
            Arc::new(Int64Array::from_iter_values(0..rows)),
            Arc::new(StringArray::from_iter(
                (0..rows).map(|i| (i % 5 != 0).then(|| format!("row {i}"))),
            )),
            Arc::new(TimestampMillisecondArray::from_iter(
                (0..rows).map(|i| (i % 7 != 0).then_some(i * 1_000 - 5_000)),
            )),
        ],
    )
    .unwrap();
    (fields, batch)
}

#[test]
fn projection_selects_fields_by_name_and_fills_missing_ones_with_null() {
    let (fields, batch) = numbered(50);
    let bytes = write(
        &fields,
        std::slice::from_ref(&batch),
        &ParquetWriteOptions::utc(),
    );
    let wanted = self::fields(&[
        ("c", "TIMESTAMP(3)"),
        ("zz", "INT"),
        ("a", "BIGINT"),
        ("A", "BIGINT"),
    ]);
    let back = concat(
        &wanted,
        &read_all(
            &bytes,
            &wanted,
            &ParquetReadOptions {
                batch_size: 7,
                ..ParquetReadOptions::utc()
            },
        ),
    );
    assert_eq!(back.num_rows(), 50);
    assert_eq!(back.column(0).as_ref(), batch.column(2).as_ref());
    assert_eq!(back.column(1).null_count(), 50);
    assert_eq!(back.column(2).as_ref(), batch.column(0).as_ref());
    assert_eq!(back.column(3).null_count(), 50, "names are case-sensitive");
    // A type the file cannot give is refused at construction.
    let wrong = self::fields(&[("b", "INT")]);
    let err =
        FlinkParquetReader::try_new(MemoryFile::new(bytes), &wrong, &ParquetReadOptions::utc())
            .unwrap_err();
    assert!(matches!(err, FormatError::Unsupported { .. }), "{err}");
}

#[test]
fn splits_read_the_row_groups_whose_midpoint_they_contain() {
    let (fields, batch) = numbered(95);
    let options = ParquetWriteOptions {
        max_row_group_rows: 10,
        ..ParquetWriteOptions::utc()
    };
    let bytes = write(
        &fields,
        &[batch.slice(0, 33), batch.slice(33, 62)],
        &options,
    );
    let metadata = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes.clone()))
        .unwrap()
        .metadata()
        .clone();
    assert_eq!(metadata.num_row_groups(), 10);
    // The model: midpoint = first page offset + total compressed size / 2.
    let midpoints: Vec<u64> = metadata
        .row_groups()
        .iter()
        .map(|g| {
            let first = &g.columns()[0];
            let start = first
                .dictionary_page_offset()
                .unwrap_or(first.data_page_offset())
                .min(first.data_page_offset());
            (start + g.columns().iter().map(|c| c.compressed_size()).sum::<i64>() / 2) as u64
        })
        .collect();
    let len = bytes.len() as u64;
    for split in [1u64, 2, 3, 7] {
        let step = len.div_ceil(split);
        let mut seen = Vec::new();
        for k in 0..split {
            let (start, length) = (k * step, step);
            let model: Vec<usize> = (0..midpoints.len())
                .filter(|&i| midpoints[i] >= start && midpoints[i] < start + length)
                .collect();
            assert_eq!(row_groups_in_range(&metadata, start, length), model);
            let back = read_all(
                &bytes,
                &fields,
                &ParquetReadOptions {
                    range: Some((start, length)),
                    ..ParquetReadOptions::utc()
                },
            );
            let ids: Vec<i64> = back
                .iter()
                .flat_map(|b| {
                    b.column(0)
                        .as_any()
                        .downcast_ref::<Int64Array>()
                        .unwrap()
                        .values()
                        .to_vec()
                })
                .collect();
            let expected: Vec<i64> = model
                .iter()
                .flat_map(|&g| (g as i64 * 10)..(g as i64 * 10 + 10).min(95))
                .collect();
            assert_eq!(ids, expected, "split {k} of {split}");
            seen.extend(ids);
        }
        assert_eq!(
            seen,
            (0..95).collect::<Vec<_>>(),
            "{split} splits read every row once"
        );
    }
}

#[test]
fn files_written_by_plain_parquet_rs_are_read() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int32, false),
        Field::new("name", DataType::Utf8, true),
        Field::new(
            "t",
            DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, None),
            true,
        ),
        Field::new(
            "xs",
            DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
            true,
        ),
    ]));
    let xs = ListArray::from_iter_primitive::<arrow::datatypes::Int64Type, _, _>(vec![
        Some(vec![Some(1), None]),
        None,
        Some(vec![]),
    ]);
    let batch = RecordBatch::try_new(
        Arc::clone(&schema),
        vec![
            Arc::new(Int32Array::from(vec![1, 2, 3])),
            Arc::new(StringArray::from(vec![Some("x"), None, Some("z")])),
            Arc::new(TimestampMicrosecondArray::from(vec![
                Some(-1),
                None,
                Some(1_000_001),
            ])),
            Arc::new(xs),
        ],
    )
    .unwrap();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let fields = fields(&[
        ("xs", "ARRAY<BIGINT>"),
        ("t", "TIMESTAMP(3)"),
        ("id", "INT"),
        ("name", "STRING"),
    ]);
    let back = concat(
        &fields,
        &read_all(&out, &fields, &ParquetReadOptions::utc()),
    );
    assert_eq!(back.column(2).as_ref(), batch.column(0).as_ref());
    assert_eq!(back.column(3).as_ref(), batch.column(1).as_ref());
    let t = back
        .column(1)
        .as_any()
        .downcast_ref::<TimestampMillisecondArray>()
        .unwrap();
    assert_eq!(
        (t.value(0), t.is_null(1), t.value(2)),
        (-1, true, 1_000),
        "floored to milliseconds"
    );
    let xs = back.column(0).as_any().downcast_ref::<ListArray>().unwrap();
    assert_eq!(
        xs.value(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        vec![Some(1), None]
    );
    assert!(xs.is_null(1));
    assert_eq!(xs.value(2).len(), 0);
}

#[test]
fn local_files_are_read_through_positional_reads() {
    let (fields, batch) = numbered(40);
    let bytes = write(
        &fields,
        std::slice::from_ref(&batch),
        &ParquetWriteOptions::utc(),
    );
    let path = std::env::temp_dir().join(format!("sf-parquet-{}.parquet", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let back = FlinkParquetReader::try_new(
        LocalFile::open(&path).unwrap(),
        &fields,
        &ParquetReadOptions::utc(),
    )
    .unwrap()
    .collect::<Result<Vec<_>, _>>()
    .unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(concat(&fields, &back), batch);
}

fn read_result(bytes: Vec<u8>, fields: &[RowField]) -> Result<usize, FormatError> {
    let reader =
        FlinkParquetReader::try_new(MemoryFile::new(bytes), fields, &ParquetReadOptions::utc())?;
    let mut rows = 0;
    for batch in reader {
        rows += batch?.num_rows();
    }
    Ok(rows)
}

#[test]
fn truncated_and_corrupt_files_are_typed_errors() {
    let (fields, batch) = numbered(200);
    let bytes = write(
        &fields,
        &[batch],
        &ParquetWriteOptions {
            compression: streamfusion_formats::parquet::ParquetCompression::Uncompressed,
            ..ParquetWriteOptions::utc()
        },
    );
    for cut in [
        0,
        1,
        4,
        8,
        bytes.len() / 2,
        bytes.len() - 9,
        bytes.len() - 1,
    ] {
        let err = read_result(bytes[..cut].to_vec(), &fields).unwrap_err();
        assert!(
            matches!(err, FormatError::Malformed { .. }),
            "cut {cut}: {err}"
        );
    }
    // Bad magic.
    let mut bad = bytes.clone();
    let n = bad.len();
    bad[n - 1] = b'X';
    assert!(matches!(
        read_result(bad, &fields),
        Err(FormatError::Malformed { .. })
    ));
    // Overwritten data pages: an error or a successful read, never a panic.
    for start in (4..bytes.len().saturating_sub(200)).step_by(97) {
        let mut corrupt = bytes.clone();
        for b in &mut corrupt[start..start + 16] {
            *b = !*b;
        }
        let _ = read_result(corrupt, &fields);
    }
}

mod int96_properties {
    use proptest::prelude::*;
    use streamfusion_formats::parquet::timestamp::{self, FlinkTimestamp, TimestampZone};

    use super::model_int96_utc;

    proptest! {
        /// Any nanosecond wall clock is written as the i128 model of Flink's arithmetic, and
        /// reads back exactly unless Flink's reader rejects it (a pre-epoch value off a day
        /// boundary with a sub-millisecond fraction, whose nanos-of-day remainder is negative).
        #[test]
        fn utc_int96_matches_the_model_and_round_trips(nanos in any::<i64>()) {
            let value = FlinkTimestamp::from_carrier(nanos, arrow::datatypes::TimeUnit::Nanosecond);
            let int96 = timestamp::to_int96(value, TimestampZone::Utc).unwrap();
            prop_assert_eq!((int96.julian_day, int96.nanos_of_day), model_int96_utc(i128::from(nanos)));
            prop_assert_eq!(timestamp::Int96::from_bytes(int96.to_bytes()), int96);
            let back = timestamp::from_int96(int96, TimestampZone::Utc);
            let millis = nanos.div_euclid(1_000_000);
            let rejected = millis < 0 && millis % 86_400_000 != 0 && nanos.rem_euclid(1_000_000) != 0;
            if rejected {
                prop_assert!(back.is_err());
            } else {
                prop_assert_eq!(back.unwrap().to_carrier(arrow::datatypes::TimeUnit::Nanosecond), Some(nanos));
            }
        }
    }
}
