//! What the updating Top-N functions share: the row a walk carries down, where its
//! emissions go, and the reader of their stored values.

use bytes::Bytes;

use super::{RankSpec, Ranked};
use crate::changelog::RowKind;
use crate::error::{Error, Result};

/// The row a walk carries down: the input row or a stored one.
#[derive(Debug, Clone)]
pub(super) enum Carried {
    Input,
    Stored(Bytes),
}

/// Where one row's emissions go: the plan's range and `-U` setting, and the input row.
pub(super) struct Emit<'a> {
    pub(super) spec: &'a RankSpec,
    pub(super) out: &'a mut Ranked,
    pub(super) input: usize,
}

impl Emit<'_> {
    /// `collect*(out, row, rank)`: only a rank in range; `-U` only when generated.
    pub(super) fn ranked(&mut self, kind: RowKind, row: &Carried, rank: i64) {
        if !self.spec.in_range(rank)
            || (kind == RowKind::UpdateBefore && !self.spec.generate_update_before)
        {
            return;
        }
        self.plain(kind, row, rank);
    }

    /// `collectInsert(out, row)`, `collectDelete(out, row)`, `collectUpdateAfter(out, row)`:
    /// whatever the rank.
    pub(super) fn plain(&mut self, kind: RowKind, row: &Carried, rank: i64) {
        match row {
            Carried::Input => self.out.input(kind, self.input, rank),
            Carried::Stored(bytes) => self.out.stored(kind, bytes, rank),
        }
    }

    /// `collectUpdateBefore(out, row)`: whatever the rank, when `-U` is generated.
    pub(super) fn plain_update_before(&mut self, row: &Carried) {
        if self.spec.generate_update_before {
            self.plain(RowKind::UpdateBefore, row, 0);
        }
    }
}

/// Reads a state value front to back, as slices of it (no copy and no allocation each).
pub(super) struct Cursor {
    bytes: Bytes,
    at: usize,
    what: &'static str,
}

impl Cursor {
    /// A reader of `value`, which errors name as `what`.
    pub(super) fn new(value: Vec<u8>, what: &'static str) -> Self {
        Self {
            bytes: Bytes::from(value),
            at: 0,
            what,
        }
    }

    pub(super) fn take(&mut self, n: usize) -> Result<Bytes> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| {
                Error::State(format!(
                    "{} ends after {} bytes",
                    self.what,
                    self.bytes.len()
                ))
            })?;
        let part = self.bytes.slice(self.at..end);
        self.at = end;
        Ok(part)
    }

    pub(super) fn u32(&mut self) -> Result<usize> {
        Ok(u32::from_le_bytes(self.take(4)?[..].try_into().expect("4 bytes")) as usize)
    }

    /// A length-prefixed part.
    pub(super) fn part(&mut self) -> Result<Bytes> {
        let n = self.u32()?;
        self.take(n)
    }

    /// The end of the value: an error when bytes follow what was read.
    pub(super) fn finish(self) -> Result<()> {
        let len = self.bytes.len();
        if self.at != len {
            return Err(Error::State(format!(
                "{} of {len} bytes has {} bytes after its end",
                self.what,
                len - self.at
            )));
        }
        Ok(())
    }
}

/// Appends `part` with its `u32` length.
pub(super) fn put_part(out: &mut Vec<u8>, part: &[u8]) {
    out.extend_from_slice(&(part.len() as u32).to_le_bytes());
    out.extend_from_slice(part);
}
