//! State time-to-live as Flink SQL configures it (`table.exec.state.ttl`):
//! `UpdateType.OnCreateAndWrite`, `StateVisibility.NeverReturnExpired`, processing time.
//!
//! A TTL table stores `[expires at: i64 big-endian][value]`, where
//! `expires at = write time + ttl` (saturating, like Flink's `TtlUtils.getExpirationTimestamp`).
//! A value is expired once `expires at <= now` (`TtlUtils.expired`). Writes set the expiry;
//! reads never refresh it; an expired value reads as absent. On RocksDB, a compaction filter
//! also drops expired entries physically (Flink's `cleanupInRocksdbCompactFilter`), so
//! expired state does not accumulate on disk.
//!
//! TTL tables are named with [`TTL_TABLE_PREFIX`], so a reopened or restored store knows
//! which column families carry expiry headers.

use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};

/// Names of tables whose values carry an expiry header start with this.
pub const TTL_TABLE_PREFIX: &str = "ttl:";
const HEADER: usize = 8;

/// A processing-time clock, in epoch milliseconds. Injectable for tests.
pub trait Clock: Send + Sync + Debug {
    /// The current time in milliseconds since the epoch.
    fn now_millis(&self) -> i64;
}

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_millis(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    }
}

/// A clock that moves only when told to.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    /// A clock reading `millis`.
    pub fn new(millis: i64) -> Self {
        Self(AtomicI64::new(millis))
    }

    /// Sets the time.
    pub fn set(&self, millis: i64) {
        self.0.store(millis, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The TTL of one table.
#[derive(Debug, Clone)]
pub struct StateTtl {
    ttl_millis: i64,
    clock: Arc<dyn Clock>,
}

impl StateTtl {
    /// A TTL of `ttl` (at least one millisecond) on `clock`.
    pub fn new(ttl: Duration, clock: Arc<dyn Clock>) -> Result<Self> {
        let ttl_millis = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        if ttl_millis < 1 {
            return Err(Error::State(format!(
                "state TTL must be at least 1 ms, got {ttl:?}"
            )));
        }
        Ok(Self { ttl_millis, clock })
    }

    /// The stored form of `value` written now.
    pub fn wrap(&self, value: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + value.len());
        self.wrap_into(value, &mut out);
        out
    }

    /// [`StateTtl::wrap`] into a reused buffer (cleared first).
    pub fn wrap_into(&self, value: &[u8], out: &mut Vec<u8>) {
        let expires = expiration(self.clock.now_millis(), self.ttl_millis);
        out.clear();
        out.extend_from_slice(&expires.to_be_bytes());
        out.extend_from_slice(value);
    }

    /// The value of a stored entry, or `None` if it has expired.
    pub fn unwrap<'a>(&self, stored: &'a [u8]) -> Result<Option<&'a [u8]>> {
        let expires = expires_at(stored)?;
        Ok((expires > self.clock.now_millis()).then(|| &stored[HEADER..]))
    }
}

/// `TtlUtils.getExpirationTimestamp`: `ts + ttl`, saturating at `i64::MAX`.
fn expiration(ts: i64, ttl: i64) -> i64 {
    ts.saturating_add(ttl)
}

/// The expiry header of a stored TTL value.
pub fn expires_at(stored: &[u8]) -> Result<i64> {
    stored
        .get(..HEADER)
        .map(|h| i64::from_be_bytes(h.try_into().expect("8 bytes")))
        .ok_or_else(|| {
            Error::State(format!(
                "a TTL value needs an {HEADER}-byte header, got {} bytes",
                stored.len()
            ))
        })
}

/// Whether a stored TTL value has expired at `now` (malformed values are kept: dropping
/// data is never the answer to a surprise).
pub(crate) fn is_expired(stored: &[u8], now: i64) -> bool {
    expires_at(stored).is_ok_and(|expires| expires <= now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_expire_at_write_time_plus_ttl_and_reads_do_not_refresh() {
        let clock = Arc::new(ManualClock::new(1_000));
        let ttl = StateTtl::new(Duration::from_millis(100), clock.clone()).unwrap();
        let stored = ttl.wrap(b"v");
        clock.set(1_050);
        assert_eq!(ttl.unwrap(&stored).unwrap(), Some(&b"v"[..]));
        clock.set(1_099);
        assert_eq!(ttl.unwrap(&stored).unwrap(), Some(&b"v"[..]));
        clock.set(1_100);
        assert_eq!(ttl.unwrap(&stored).unwrap(), None);
        // A write refreshes: written at 1_100, visible until 1_200.
        let rewritten = ttl.wrap(b"w");
        clock.set(1_199);
        assert_eq!(ttl.unwrap(&rewritten).unwrap(), Some(&b"w"[..]));
    }

    #[test]
    fn expiry_saturates_and_bad_values_are_errors() {
        assert_eq!(expiration(i64::MAX - 1, 10), i64::MAX);
        let clock = Arc::new(ManualClock::new(0));
        let ttl = StateTtl::new(Duration::from_millis(5), clock).unwrap();
        assert!(ttl.unwrap(&[1, 2]).is_err());
        assert!(StateTtl::new(Duration::ZERO, Arc::new(SystemClock)).is_err());
        assert!(!is_expired(&[1], i64::MAX));
    }
}
