//! Dropping `-U` rows (Flink's `DropUpdateBeforeFunction`).

use arrow::array::{AsArray, BooleanArray};
use arrow::compute::{filter, filter_record_batch};

use crate::changelog::{ChangelogBatch, RowKind};
use crate::error::Result;

/// `batch` without its `-U` rows. A batch with none is returned as is (no copy).
pub fn drop_update_before(batch: &ChangelogBatch) -> Result<ChangelogBatch> {
    let Some(kinds) = batch.kinds() else {
        return Ok(batch.clone());
    };
    let before = RowKind::UpdateBefore.to_byte();
    let keep: BooleanArray = kinds.values().iter().map(|&k| Some(k != before)).collect();
    if keep.true_count() == keep.len() {
        return Ok(batch.clone());
    }
    let rows = filter_record_batch(batch.batch(), &keep)?;
    let kinds = filter(kinds, &keep)?.as_primitive().clone();
    ChangelogBatch::try_new(rows, Some(kinds))
}
