//! Column statistics against a row-by-row model, on seeded batches with edge values.

#[path = "support/generate.rs"]
mod generate;
#[path = "support/stats_model.rs"]
mod stats_model;

use streamfusion_fluss::statistics::{batch_statistics, column_statistics};

use stats_model::{model_statistics, same_statistics};

#[test]
fn statistics_equal_the_row_by_row_model_on_seeded_batches() {
    for seed in 0..40 {
        let rows = [0, 1, 2, 7, 64, 300][seed as usize % 6];
        let null_every = [0, 2, 5, 1][seed as usize % 4];
        let batch = generate::batch(rows, seed, 0, null_every);
        let stats = batch_statistics(&batch);
        assert_eq!(stats.len(), batch.num_columns());
        for (c, column) in batch.columns().iter().enumerate() {
            let want = model_statistics(column.as_ref());
            assert!(
                same_statistics(&stats[c], &want),
                "seed {seed} column {}: {:?} != model {want:?}",
                generate::COLUMNS[c],
                stats[c]
            );
        }
    }
}

#[test]
fn statistics_of_a_slice_cover_only_its_rows() {
    let batch = generate::batch(500, 99, 0, 3);
    for (offset, len) in [(0, 0), (3, 1), (17, 200), (499, 1), (1, 499)] {
        let sliced = batch.slice(offset, len);
        for (c, column) in sliced.columns().iter().enumerate() {
            let got = column_statistics(column.as_ref());
            assert!(
                same_statistics(&got, &model_statistics(column.as_ref())),
                "slice {offset}+{len} column {}",
                generate::COLUMNS[c]
            );
        }
    }
}
