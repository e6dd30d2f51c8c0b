//! A GROUP BY's accumulators as rows of a typed state table: one [`Acc`] per call, encoded
//! back to back as byte tables (RocksDB, TTL tables, checkpoints) store them. Where the
//! rows live (decoded on the heap, decision 0020, or encoded) is the state layer's choice
//! ([`crate::state::rows::RowTable`]).

use super::function::Acc;
use crate::error::{Error, Result};
use crate::state::rows::RowCodec;

/// The accumulators of a plan's calls, shaped like `templates` (fresh accumulators).
#[derive(Debug, Clone)]
pub(super) struct AccCodec {
    templates: Vec<Acc>,
}

impl AccCodec {
    pub(super) fn new(templates: Vec<Acc>) -> Self {
        Self { templates }
    }
}

impl RowCodec for AccCodec {
    type Item = Acc;

    fn fresh(&self) -> &[Acc] {
        &self.templates
    }

    fn encode(&self, row: &[Acc], out: &mut Vec<u8>) {
        for acc in row {
            acc.encode(out);
        }
    }

    fn decode_into(&self, mut value: &[u8], row: &mut [Acc]) -> Result<()> {
        for (acc, template) in row.iter_mut().zip(&self.templates) {
            *acc = Acc::decode(template, &mut value)?;
        }
        if !value.is_empty() {
            return Err(Error::State(format!(
                "{} bytes left over after a group's accumulators",
                value.len()
            )));
        }
        Ok(())
    }

    fn placeholder(&self) -> Acc {
        Acc::Count(0)
    }
}

/// `COUNT` and `SUM` accumulators, for tests of what stores them.
#[cfg(test)]
pub(super) fn count_and_sum() -> AccCodec {
    AccCodec::new(vec![
        Acc::Count(0),
        Acc::Sum {
            sum: super::value::Value::Null,
            count: 0,
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::value::Value;

    fn codec() -> AccCodec {
        count_and_sum()
    }

    #[test]
    fn rows_round_trip_and_truncated_or_padded_values_are_refused() {
        let codec = codec();
        let row = [
            Acc::Count(3),
            Acc::Sum {
                sum: Value::Int(-7),
                count: 3,
            },
        ];
        let mut bytes = Vec::new();
        codec.encode(&row, &mut bytes);
        let mut decoded = codec.fresh().to_vec();
        codec.decode_into(&bytes, &mut decoded).unwrap();
        assert_eq!(decoded, row);
        let padded = [bytes.as_slice(), &[0]].concat();
        for bad in [&bytes[..bytes.len() - 1], &padded[..], &[]] {
            let mut out = codec.fresh().to_vec();
            assert!(codec.decode_into(bad, &mut out).is_err(), "{bad:?}");
        }
    }
}
