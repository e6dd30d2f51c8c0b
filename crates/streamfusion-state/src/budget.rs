//! The memory budget a task's operators share.
//!
//! Every holder (an operator's working set, a memory backend, RocksDB's block cache and
//! write buffers) reserves bytes before it uses them and releases them afterwards. A
//! reservation that would exceed the limit fails with [`Error::BudgetExceeded`] and
//! changes nothing. [`MemoryBudget::report`] says what each holder has reserved.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{Error, Result};

/// A byte budget shared by the holders of one task. Cloning shares it.
#[derive(Debug, Clone)]
pub struct MemoryBudget {
    inner: Arc<Mutex<Ledger>>,
}

#[derive(Debug)]
struct Ledger {
    limit: u64,
    reserved: u64,
    holders: BTreeMap<String, u64>,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Ledger {
                limit,
                reserved: 0,
                holders: BTreeMap::new(),
            })),
        }
    }

    fn ledger(&self) -> MutexGuard<'_, Ledger> {
        // A holder that panicked mid-update cannot leave the ledger half-written: every
        // update below is a single assignment after its checks.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.ledger().limit
    }

    /// Bytes reserved by all holders.
    pub fn reserved(&self) -> u64 {
        self.ledger().reserved
    }

    /// Bytes still available.
    pub fn available(&self) -> u64 {
        let ledger = self.ledger();
        ledger.limit - ledger.reserved
    }

    /// Reserves `bytes` for `holder`, or fails without reserving anything.
    pub fn reserve(&self, holder: &str, bytes: u64) -> Result<()> {
        let mut ledger = self.ledger();
        let total = ledger
            .reserved
            .checked_add(bytes)
            .filter(|&t| t <= ledger.limit);
        let Some(total) = total else {
            return Err(Error::BudgetExceeded {
                holder: holder.to_string(),
                requested: bytes,
                reserved: ledger.reserved,
                limit: ledger.limit,
            });
        };
        ledger.reserved = total;
        *ledger.holders.entry(holder.to_string()).or_default() += bytes;
        Ok(())
    }

    /// Releases `bytes` that `holder` reserved; releasing more than it holds is an error.
    pub fn release(&self, holder: &str, bytes: u64) -> Result<()> {
        let mut ledger = self.ledger();
        let held = ledger.holders.get(holder).copied().unwrap_or(0);
        if bytes > held {
            return Err(Error::State(format!(
                "{holder} releases {bytes} bytes but holds {held}"
            )));
        }
        ledger.reserved -= bytes;
        if held == bytes {
            ledger.holders.remove(holder);
        } else {
            ledger.holders.insert(holder.to_string(), held - bytes);
        }
        Ok(())
    }

    /// What each holder has reserved, by name.
    pub fn report(&self) -> Vec<(String, u64)> {
        self.ledger()
            .holders
            .iter()
            .map(|(h, b)| (h.clone(), *b))
            .collect()
    }
}

/// Bytes one holder has reserved, released when dropped. Grows and shrinks with its holder.
#[derive(Debug)]
pub struct Reservation {
    budget: MemoryBudget,
    holder: String,
    bytes: u64,
}

impl MemoryBudget {
    /// Reserves `bytes` for `holder` as a [`Reservation`] that releases them when dropped.
    pub fn reservation(&self, holder: &str, bytes: u64) -> Result<Reservation> {
        self.reserve(holder, bytes)?;
        Ok(Reservation {
            budget: self.clone(),
            holder: holder.to_string(),
            bytes,
        })
    }
}

impl Reservation {
    /// The bytes held.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Reserves `bytes` more, or fails without reserving anything.
    pub fn grow(&mut self, bytes: u64) -> Result<()> {
        self.budget.reserve(&self.holder, bytes)?;
        self.bytes += bytes;
        Ok(())
    }

    /// Releases `bytes` (at most what is held).
    pub fn shrink(&mut self, bytes: u64) -> Result<()> {
        self.budget.release(&self.holder, bytes)?;
        self.bytes -= bytes;
        Ok(())
    }

    /// Grows by `delta` bytes, or shrinks when it is negative: [`Reservation::grow`] and
    /// [`Reservation::shrink`] for a signed change in a holder's estimate.
    pub fn resize_by(&mut self, delta: i128) -> Result<()> {
        let bytes = u64::try_from(delta.unsigned_abs())
            .map_err(|_| Error::OutOfRange(format!("a reservation change of {delta} bytes")))?;
        if delta >= 0 {
            self.grow(bytes)
        } else {
            self.shrink(bytes)
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // Releasing exactly what this reservation holds cannot fail.
        let _ = self.budget.release(&self.holder, self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_are_shared_reported_and_bounded() {
        let budget = MemoryBudget::new(1_000);
        let shared = budget.clone();
        budget.reserve("group-agg", 600).unwrap();
        shared.reserve("rocksdb", 300).unwrap();
        let err = shared.reserve("top-n", 200).unwrap_err();
        assert_eq!(
            err.to_string(),
            "memory budget exceeded: top-n asked for 200 bytes with 900 of 1000 reserved"
        );
        assert_eq!(
            budget.report(),
            vec![("group-agg".into(), 600), ("rocksdb".into(), 300)]
        );
        budget.release("group-agg", 600).unwrap();
        assert_eq!(budget.available(), 700);
        assert!(budget.release("rocksdb", 301).is_err());
        assert_eq!(budget.report(), vec![("rocksdb".into(), 300)]);
    }
}
