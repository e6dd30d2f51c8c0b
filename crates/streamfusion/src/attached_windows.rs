//! Rows of windows attached upstream (a `window_end` column, as a window TVF or a window
//! aggregate emits it) in keyed state: what the window Top-N, deduplication and join share.
//! A row's state key is `[key group][key row][window end]` (the end as the window aggregates'
//! namespace), and a window's event-time timer fires at its clock's `window_end - 1`.

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::TimestampMillisecondType;

use crate::aggregate::window::{NAMESPACE_BYTES, end_of, namespace};
use crate::binary_row::BinaryRows;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::keys::layout::KEY_GROUP_BYTES;
use crate::ops::keyed::Keyed;
use crate::state::rows::{Groups, hash_of};
use crate::window_clock::WindowClock;

/// A batch's rows whose windows had not fired, grouped by key and window.
pub(crate) struct WindowedRows {
    /// The distinct `[key group][key row][window end]` state keys.
    pub groups: Groups,
    /// Each kept row's group.
    pub row_group: Vec<u32>,
    /// The kept rows (input row indices), in input order.
    pub kept: Vec<usize>,
    /// The rows dropped because their window had fired (`isWindowFired`).
    pub late: u64,
}

/// Groups the rows of `batch` by their `keys` columns and the window ending at column
/// `window_end`, dropping the rows whose window has fired on `clock` at the watermark; `None`
/// when no row is kept. A NULL window end is an error.
pub(crate) fn group_by_window(
    keyed: &Keyed,
    hasher: &KeyHasher,
    batch: &RecordBatch,
    keys: &[usize],
    window_end: usize,
    clock: &WindowClock,
) -> Result<WindowedRows> {
    let n = batch.num_rows();
    let ends = batch
        .column(window_end)
        .as_primitive::<TimestampMillisecondType>();
    if let Some(row) = (0..n).find(|&r| ends.is_null(r)) {
        return Err(Error::InvalidShape(format!(
            "row {row} has a NULL window end"
        )));
    }
    let key_columns: Vec<ArrayRef> = keys.iter().map(|&k| batch.column(k).clone()).collect();
    let (key_rows, _) = keyed.state_keys(hasher, &key_columns, n)?;
    let watermark = keyed.watermark();
    let (mut data, mut offsets, mut hashes, mut kept) =
        (Vec::new(), vec![0], Vec::new(), Vec::new());
    let mut late = 0;
    for row in 0..n {
        let end = ends.value(row);
        if clock.is_fired(end, watermark) {
            late += 1;
            continue;
        }
        let start = data.len();
        data.extend_from_slice(key_rows.prefixed_row(row));
        data.extend_from_slice(&namespace(end));
        offsets.push(data.len());
        hashes.push(hash_of(&data[start..]));
        kept.push(row);
    }
    let (groups, row_group) = Groups::of(BinaryRows::from_parts(data, offsets), hashes);
    Ok(WindowedRows {
        groups,
        row_group,
        kept,
        late,
    })
}

/// An event-time timer to register: key group, time, key row, namespace.
pub(crate) type WindowTimer<'g> = (u16, i64, &'g [u8], &'g [u8]);

/// The event-time timers of the windows `slots` of `groups` (`registerEventTimeWindowTimer`),
/// each at its clock's `window_end - 1`.
pub(crate) fn window_timers<'g>(
    groups: &'g Groups,
    slots: impl Iterator<Item = usize>,
    clock: &WindowClock,
) -> Result<Vec<WindowTimer<'g>>> {
    slots
        .map(|s| {
            let key = groups.key(s);
            let (key_row, ns) =
                key[KEY_GROUP_BYTES..].split_at(key.len() - KEY_GROUP_BYTES - NAMESPACE_BYTES);
            let key_group = u16::from_be_bytes([key[0], key[1]]);
            Ok((key_group, clock.window_timer(end_of(ns)?), key_row, ns))
        })
        .collect()
}

/// The key row of a window's state key `[key group][key row][window end]`.
pub(crate) fn key_row(state_key: &[u8]) -> &[u8] {
    &state_key[KEY_GROUP_BYTES..state_key.len() - NAMESPACE_BYTES]
}
