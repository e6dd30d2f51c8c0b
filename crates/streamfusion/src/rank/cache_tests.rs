//! The Top-N's partition cache (decision 0034) against a write-through operator.

use std::sync::Arc;

use arrow::array::{Int32Array, Int64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema};
use tempfile::tempdir;

use super::{Rank, RankFunction, RankSpec, SortKey};
use crate::changelog::{ChangelogBatch, RowKind};
use crate::ops::keyed::{Keyed, KeyedOperator};
use crate::ops::partition_cache::{CAPACITY_BYTES, PartitionCache};
use crate::ops::{Operator, Output, StateConfig};
use crate::state::checkpoint::Checkpoint;
use crate::types::LogicalType;

fn spec(function: RankFunction) -> RankSpec {
    RankSpec {
        input_names: vec!["k".into(), "id".into(), "s".into()],
        input_types: vec![LogicalType::Int, LogicalType::Int, LogicalType::BigInt],
        partition_keys: vec![0],
        sort: vec![SortKey {
            column: 2,
            ascending: false,
            nulls_last: true,
        }],
        function,
        rank_start: 1,
        rank_end: 3,
        rank_name: Some("rn".into()),
        generate_update_before: true,
        input_updates: function == RankFunction::Update,
        unique_key: if function == RankFunction::Update {
            vec![0, 1]
        } else {
            Vec::new()
        },
        state_ttl: None,
        max_parallelism: 128,
    }
}

/// Rows `(k, id, s)`: 37 partitions, 150 ids, each id's sort key growing.
fn batch(rows: std::ops::Range<i32>, kind: RowKind) -> ChangelogBatch {
    let ids: Vec<i32> = rows.clone().map(|i| (i * 7) % 150).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int32, true),
        Field::new("id", DataType::Int32, true),
        Field::new("s", DataType::Int64, true),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int32Array::from_iter_values(ids.iter().map(|id| id % 37))),
            Arc::new(Int32Array::from_iter_values(ids.iter().copied())),
            Arc::new(Int64Array::from_iter_values(rows.map(i64::from))),
        ],
    )
    .unwrap();
    let kinds = arrow::array::Int8Array::from(vec![kind as i8; batch.num_rows()]);
    ChangelogBatch::try_new(batch, Some(kinds)).unwrap()
}

/// The changelog of 600 rows in batches of 23, checkpointed and restored after the
/// 10th batch, by an operator whose cache holds `capacity` bytes (`None`: none).
fn run(function: RankFunction, capacity: Option<usize>) -> Vec<ChangelogBatch> {
    let config = StateConfig::memory();
    let open = |keyed| {
        let mut rank = Rank::open(spec(function), keyed).unwrap();
        rank.cache = capacity.map(PartitionCache::new);
        rank
    };
    let mut rank =
        open(Keyed::new(config.open("rank").unwrap(), 128, config.clock.clone()).unwrap());
    let kind = match function {
        RankFunction::Update => RowKind::UpdateAfter,
        _ => RowKind::Insert,
    };
    let dir = tempdir().unwrap();
    let mut out = Output::new();
    for (n, start) in (0..600).step_by(23).enumerate() {
        if n == 10 {
            let c = rank.checkpoint(&dir.path().join("c")).unwrap();
            let restored = <Rank as KeyedOperator>::restore(
                spec(function),
                &config,
                0..=127,
                &[Checkpoint::open(c.path()).unwrap()],
            )
            .unwrap();
            rank = open(restored.keyed);
        }
        rank.process(0, &batch(start..(start + 23).min(600), kind), &mut out)
            .unwrap();
    }
    out.take()
}

#[test]
fn evicting_and_checkpointing_partitions_changes_no_output() {
    for function in [
        RankFunction::TopN,
        RankFunction::Update,
        RankFunction::Retract,
    ] {
        let through = run(function, None);
        assert!(through.iter().map(ChangelogBatch::num_rows).sum::<usize>() > 100);
        // 200 bytes hold a few partitions: most batches evict changed ones.
        for capacity in [200, CAPACITY_BYTES] {
            assert_eq!(
                run(function, Some(capacity)),
                through,
                "{function:?}, {capacity}"
            );
        }
    }
}
