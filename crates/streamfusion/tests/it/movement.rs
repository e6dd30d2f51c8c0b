//! Row and column movement: `-U` dropping, EXPAND, UNNEST and IPC, against row models.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Int8Array, Int32Array, Int32Builder, ListBuilder, MapBuilder,
    RecordBatch, StringArray, StringBuilder, StructArray,
};
use arrow::datatypes::{DataType, Field, Int32Type, Int64Type};
use streamfusion::calc::{CalcProgram, Expr};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::movement::expand::Expand;
use streamfusion::movement::unnest::{UnnestJoin, unnest};
use streamfusion::movement::{ipc, update_before};
use streamfusion::types::LogicalType;

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

fn ints(a: &dyn Array) -> Vec<Option<i32>> {
    a.as_primitive::<Int32Type>().iter().collect()
}

fn strings(a: &dyn Array) -> Vec<Option<String>> {
    a.as_string::<i32>()
        .iter()
        .map(|s| s.map(str::to_owned))
        .collect()
}

fn kinds(b: &ChangelogBatch) -> Vec<i8> {
    (0..b.num_rows()).map(|i| b.kind(i).to_byte()).collect()
}

#[test]
fn update_before_rows_are_dropped_and_the_rest_kept_in_order() {
    let rows = batch(vec![(
        "v",
        Arc::new(Int32Array::from((0..12).collect::<Vec<_>>())) as _,
    )]);
    // Absent kinds: the batch itself comes back.
    let plain = ChangelogBatch::insert_only(rows.clone());
    let out = update_before::drop_update_before(&plain).unwrap();
    assert!(out.kinds().is_none());
    assert_eq!(
        out.batch().column(0).to_data().buffers()[0].as_ptr(),
        rows.column(0).to_data().buffers()[0].as_ptr(),
        "no copy when nothing is dropped"
    );
    for pattern in [
        vec![0i8, 2, 3, 0],
        vec![1, 2, 1, 2],
        vec![1, 1, 1, 1],
        vec![0, 1, 2, 3],
    ] {
        let k: Vec<i8> = (0..12).map(|i| pattern[i % 4]).collect();
        let input =
            ChangelogBatch::try_new(rows.clone(), Some(Int8Array::from(k.clone()))).unwrap();
        let out = update_before::drop_update_before(&input).unwrap();
        let expected: Vec<(i8, Option<i32>)> = k
            .iter()
            .zip(0..)
            .filter(|(kind, _)| **kind != 1)
            .map(|(kind, v)| (*kind, Some(v)))
            .collect();
        let got: Vec<(i8, Option<i32>)> = kinds(&out)
            .into_iter()
            .zip(ints(out.batch().column(0)))
            .collect();
        assert_eq!(got, expected, "{pattern:?}");
    }
}

#[test]
fn expand_emits_every_list_per_row_with_its_kind() {
    let input = ChangelogBatch::try_new(
        batch(vec![
            (
                "a",
                Arc::new(Int32Array::from(vec![Some(1), None, Some(3)])) as _,
            ),
            ("b", Arc::new(StringArray::from(vec!["x", "y", "z"])) as _),
        ]),
        Some(Int8Array::from(vec![0, 2, 3])),
    )
    .unwrap();
    let types = [LogicalType::Int, LogicalType::VarChar(1)];
    let id = |v: &str| Expr::lit(LogicalType::BigInt, v);
    // GROUPING SETS ((a, b), (a), ()).
    let lists = [
        CalcProgram::project(vec![Expr::input(0), Expr::input(1), id("0")]),
        CalcProgram::project(vec![
            Expr::input(0),
            Expr::null(LogicalType::VarChar(1)),
            id("1"),
        ]),
        CalcProgram::project(vec![
            Expr::null(LogicalType::Int),
            Expr::null(LogicalType::VarChar(1)),
            id("3"),
        ]),
    ];
    let expand = Expand::new(&lists, &types).unwrap();
    let out = expand.evaluate(&input).unwrap();
    let a = [Some(1), None, Some(3)];
    let b = ["x", "y", "z"];
    let k = [0i8, 2, 3];
    let mut expected = Vec::new();
    for row in 0..3 {
        expected.push((k[row], a[row], Some(b[row].to_string()), 0));
        expected.push((k[row], a[row], None, 1));
        expected.push((k[row], None, None, 3));
    }
    let c = out.batch().columns();
    let got: Vec<_> = (0..out.num_rows())
        .map(|i| {
            (
                kinds(&out)[i],
                ints(&c[0])[i],
                strings(&c[1])[i].clone(),
                c[2].as_primitive::<Int64Type>().value(i),
            )
        })
        .collect();
    assert_eq!(got, expected);

    let mismatched = [
        CalcProgram::project(vec![Expr::input(0)]),
        CalcProgram::project(vec![Expr::null(LogicalType::BigInt)]),
    ];
    let err = Expand::new(&mismatched, &types).unwrap_err().to_string();
    assert!(
        err.contains("list 1 produces [BIGINT] but list 0 produces [INT]"),
        "{err}"
    );
}

/// Rows `[1, 2]`, NULL, `[]`, `[NULL, 5, 6]`.
fn int_lists() -> ArrayRef {
    let mut b = ListBuilder::new(Int32Builder::new());
    b.append_value([Some(1), Some(2)]);
    b.append_null();
    b.append_value([] as [Option<i32>; 0]);
    b.append_value([None, Some(5), Some(6)]);
    Arc::new(b.finish())
}

#[test]
fn unnest_arrays_inner_and_left_with_ordinality() {
    let input = ChangelogBatch::try_new(
        batch(vec![
            ("id", Arc::new(Int32Array::from(vec![10, 20, 30, 40])) as _),
            ("xs", int_lists()),
        ]),
        Some(Int8Array::from(vec![0, 1, 2, 3])),
    )
    .unwrap();
    type Row = (i8, Option<i32>, Option<i32>, Option<i32>);
    let model = |left: bool| -> Vec<Row> {
        type Input = (i8, i32, Option<Vec<Option<i32>>>);
        let lists: [Input; 4] = [
            (0, 10, Some(vec![Some(1), Some(2)])),
            (1, 20, None),
            (2, 30, Some(vec![])),
            (3, 40, Some(vec![None, Some(5), Some(6)])),
        ];
        let mut out = Vec::new();
        for (kind, id, list) in lists {
            match list {
                Some(l) if !l.is_empty() => {
                    for (i, v) in l.into_iter().enumerate() {
                        out.push((kind, Some(id), v, Some(i as i32 + 1)));
                    }
                }
                _ if left => out.push((kind, Some(id), None, None)),
                _ => {}
            }
        }
        out
    };
    for (join, left) in [(UnnestJoin::Inner, false), (UnnestJoin::Left, true)] {
        let out = unnest(&input, 1, &[0, 1], join, true).unwrap();
        let c = out.batch().columns();
        let got: Vec<Row> = (0..out.num_rows())
            .map(|i| {
                (
                    kinds(&out)[i],
                    ints(&c[0])[i],
                    ints(&c[2])[i],
                    ints(&c[3])[i],
                )
            })
            .collect();
        assert_eq!(got, model(left), "{join:?}");
        assert_eq!(out.batch().schema().field(3).name(), "ordinality");
    }
    let err = unnest(&input, 0, &[0], UnnestJoin::Inner, false).unwrap_err();
    assert!(
        err.to_string().contains("Int32 is not an ARRAY or MAP"),
        "{err}"
    );
}

#[test]
fn unnest_maps_and_arrays_of_rows() {
    let mut m = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    m.keys().append_value("a");
    m.values().append_value(1);
    m.keys().append_value("b");
    m.values().append_null();
    m.append(true).unwrap();
    m.append(false).unwrap();
    let maps = Arc::new(m.finish()) as ArrayRef;
    let input = ChangelogBatch::insert_only(batch(vec![
        ("id", Arc::new(Int32Array::from(vec![1, 2])) as _),
        ("m", maps),
    ]));
    let out = unnest(&input, 1, &[0, 1], UnnestJoin::Left, false).unwrap();
    let c = out.batch().columns();
    assert_eq!(ints(&c[0]), [Some(1), Some(1), Some(2)]);
    assert_eq!(strings(&c[2]), [Some("a".into()), Some("b".into()), None]);
    assert_eq!(ints(&c[3]), [Some(1), None, None]);
    assert_eq!(out.batch().schema().field(2).name(), "key");

    // ARRAY<ROW<f INT>>: [ROW(7), NULL], the NULL row's field is NULL.
    let field = Arc::new(Field::new("f", DataType::Int32, true));
    let rows = StructArray::new(
        vec![field.clone()].into(),
        vec![Arc::new(Int32Array::from(vec![7, 8])) as ArrayRef],
        Some(vec![true, false].into()),
    );
    let item = Arc::new(Field::new("item", rows.data_type().clone(), true));
    let list = arrow::array::ListArray::new(
        item,
        arrow::buffer::OffsetBuffer::new(vec![0, 2].into()),
        Arc::new(rows),
        None,
    );
    let input = ChangelogBatch::insert_only(batch(vec![("rs", Arc::new(list) as _)]));
    let out = unnest(&input, 0, &[0], UnnestJoin::Inner, false).unwrap();
    assert_eq!(out.batch().schema().field(1).name(), "f");
    assert_eq!(ints(out.batch().column(1)), [Some(7), None]);
}

#[test]
fn ipc_round_trips_rows_and_kinds_and_rejects_bad_kinds() {
    let rows = batch(vec![
        (
            "a",
            Arc::new(Int32Array::from(vec![Some(1), None, Some(3)])) as _,
        ),
        (
            "s",
            Arc::new(StringArray::from(vec![Some("ü"), Some(""), None])) as _,
        ),
    ]);
    let with = ChangelogBatch::try_new(rows.clone(), Some(Int8Array::from(vec![0, 1, 3]))).unwrap();
    let bytes = ipc::encode(&[with.clone(), with.slice(1, 2)]).unwrap();
    let back = ipc::decode(&bytes).unwrap();
    assert_eq!(back, vec![with.clone(), with.slice(1, 2)]);
    let plain = ChangelogBatch::insert_only(rows.clone());
    assert_eq!(
        ipc::decode(&ipc::encode(std::slice::from_ref(&plain)).unwrap()).unwrap(),
        vec![plain.clone()]
    );
    assert!(
        ipc::encode(&[with, plain]).is_err(),
        "mixed kinds in one stream"
    );

    // A stream whose kind column holds a byte that is no row kind.
    let forged = RecordBatch::try_from_iter([
        ("a", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
        ("$row_kind", Arc::new(Int8Array::from(vec![9])) as ArrayRef),
    ])
    .unwrap();
    let mut bytes = Vec::new();
    let mut w = arrow::ipc::writer::StreamWriter::try_new(&mut bytes, &forged.schema()).unwrap();
    w.write(&forged).unwrap();
    w.finish().unwrap();
    drop(w);
    let err = ipc::decode(&bytes).unwrap_err();
    assert!(err.to_string().contains("invalid row kind byte 9"), "{err}");
    assert!(ipc::decode(b"not ipc").is_err());
}
