//! The join's partition caches and condition segments against runs without them.

use std::sync::Arc;

use arrow::array::{Int8Array, Int32Array, Int64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema};
use tempfile::tempdir;

use super::{InputState, Join, JoinInput, JoinSpec, JoinType, MAX_PAIRS};
use crate::calc::functions::comparison::GREATER_THAN;
use crate::calc::{CalcProgram, Expr};
use crate::changelog::{ChangelogBatch, RowKind};
use crate::ops::keyed::{Keyed, KeyedOperator};
use crate::ops::partition_cache::{CAPACITY_BYTES, PartitionCache};
use crate::ops::{Operator, Output, StateConfig};
use crate::state::checkpoint::Checkpoint;
use crate::types::LogicalType;

fn input(state: InputState) -> JoinInput {
    JoinInput {
        names: vec!["k".into(), "v".into()],
        types: vec![LogicalType::Int, LogicalType::BigInt],
        keys: vec![0],
        state,
        state_ttl: None,
    }
}

fn spec(join_type: JoinType, condition: bool) -> JoinSpec {
    JoinSpec {
        join_type,
        left: input(InputState::NoUniqueKey),
        right: input(InputState::UniqueKey { columns: vec![1] }),
        filter_nulls: vec![true],
        condition: condition.then(left_v_above_right_v),
        max_parallelism: 128,
        mini_batch_rows: None,
    }
}

/// `l.v > r.v` over joined rows `(l.k, l.v, r.k, r.v)`.
pub(super) fn left_v_above_right_v() -> CalcProgram {
    CalcProgram::project(vec![Expr::call(
        GREATER_THAN,
        vec![Expr::input(1), Expr::input(3)],
    )])
}

/// Rows `(k, v)` of `kind`: `k = key(i)`, `v = i`.
fn batch(rows: std::ops::Range<i64>, key: impl Fn(i64) -> i32, kind: RowKind) -> ChangelogBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int32, true),
        Field::new("v", DataType::Int64, true),
    ]));
    let n = rows.end - rows.start;
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int32Array::from_iter_values(rows.clone().map(key))),
            Arc::new(Int64Array::from_iter_values(rows)),
        ],
    )
    .unwrap();
    let kinds = Int8Array::from(vec![kind as i8; n as usize]);
    ChangelogBatch::try_new(batch, Some(kinds)).unwrap()
}

/// Left rows of 41 keys in batches of 19, right rows alternating, half of them retracted,
/// checkpointed and restored after the 9th batch, by a join whose caches hold `capacity`
/// bytes.
fn run(join_type: JoinType, capacity: usize) -> Vec<ChangelogBatch> {
    let config = StateConfig::memory();
    let open = |keyed| {
        let mut join = Join::open(spec(join_type, true), keyed).unwrap();
        join.caches = [PartitionCache::new(capacity), PartitionCache::new(capacity)];
        join
    };
    let mut join =
        open(Keyed::new(config.open("join").unwrap(), 128, config.clock.clone()).unwrap());
    let dir = tempdir().unwrap();
    let mut out = Output::new();
    let key = |i: i64| (i * 7 % 41) as i32;
    for (n, start) in (0..400).step_by(19).enumerate() {
        if n == 9 {
            let c = join.checkpoint(&dir.path().join("c")).unwrap();
            let restored = <Join as KeyedOperator>::restore(
                spec(join_type, true),
                &config,
                0..=127,
                &[Checkpoint::open(c.path()).unwrap()],
            )
            .unwrap();
            join = open(restored.keyed);
        }
        let end = (start + 19).min(400);
        let port = n % 2;
        join.process(port, &batch(start..end, key, RowKind::Insert), &mut out)
            .unwrap();
        if n % 3 == 2 {
            let retract = batch(start..(start + end) / 2, key, RowKind::Delete);
            join.process(port, &retract, &mut out).unwrap();
        }
    }
    out.take()
}

#[test]
fn evicting_and_checkpointing_sides_changes_no_output() {
    for join_type in [JoinType::Full, JoinType::Semi, JoinType::Anti] {
        let through = run(join_type, 0);
        let rows: usize = through.iter().map(ChangelogBatch::num_rows).sum();
        assert!(rows > 50, "{join_type:?}: {rows} rows");
        // 300 bytes hold a few sides: most batches evict changed ones.
        for capacity in [300, CAPACITY_BYTES] {
            assert_eq!(
                run(join_type, capacity),
                through,
                "{join_type:?}, {capacity}"
            );
        }
    }
}

#[test]
fn a_hot_keys_condition_is_evaluated_in_segments_with_the_same_output() {
    // One key: 400 stored right rows, then 400 left rows in one batch (160,000 pairs) and
    // one at a time.
    let stored = 400;
    assert!(stored * stored > MAX_PAIRS);
    let outputs: Vec<Vec<ChangelogBatch>> = [stored, 1]
        .into_iter()
        .map(|size| {
            let plan = crate::ops::OperatorPlan::Join(spec(JoinType::Left, true));
            let mut op = plan.build(&StateConfig::memory(), None).unwrap();
            let mut out = Output::new();
            op.process(
                1,
                &batch(0..stored as i64, |_| 1, RowKind::Insert),
                &mut out,
            )
            .unwrap();
            for start in (0..stored).step_by(size) {
                let rows = (start as i64)..((start + size) as i64);
                op.process(0, &batch(rows, |_| 1, RowKind::Insert), &mut out)
                    .unwrap();
            }
            out.take()
        })
        .collect();
    let rows = |out: &[ChangelogBatch]| out.iter().map(ChangelogBatch::num_rows).sum::<usize>();
    // Left row v joins the right rows w < v; v = 0 is padded.
    assert_eq!(rows(&outputs[0]), stored * (stored - 1) / 2 + 1);
    let concat = |out: &[ChangelogBatch]| {
        let batches: Vec<RecordBatch> = out.iter().map(|b| b.batch().clone()).collect();
        arrow::compute::concat_batches(&batches[0].schema(), &batches).unwrap()
    };
    assert_eq!(concat(&outputs[0]), concat(&outputs[1]));
}
