//! A counting global allocator for allocation probes.
//!
//! [`CountingAllocator`] wraps another [`GlobalAlloc`] (the system allocator by default,
//! mimalloc with the `mimalloc` feature; see [`DefaultInner`]) and counts, per thread,
//! allocation requests, zeroed-allocation requests, reallocation requests and requested
//! bytes. A reallocation counts the whole new size, not its growth.
//!
//! Counting is off unless [`probe`] turns it on for the current thread, so timed iterations
//! and other threads are never counted: the hot path costs one thread-local flag load.
//! What is counted is allocation *traffic* on the probing thread: not peak memory, not copied
//! bytes, and not C/C++ allocations (RocksDB) or work on other threads.
//!
//! A suite binary installs the allocator with [`counting_allocator!`](crate::counting_allocator).

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

/// Allocation requests seen on one thread while counting was on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocationCounts {
    /// `alloc` requests.
    pub calls: u64,
    /// `alloc_zeroed` requests.
    pub zeroed_calls: u64,
    /// `realloc` requests.
    pub realloc_calls: u64,
    /// Bytes requested by all three (a realloc counts its whole new size).
    pub requested_bytes: u64,
}

impl AllocationCounts {
    /// Every request, whatever its kind.
    pub fn total_requests(&self) -> u64 {
        self.calls + self.zeroed_calls + self.realloc_calls
    }
}

#[derive(Clone, Copy)]
struct Counters {
    enabled: bool,
    counts: AllocationCounts,
}

thread_local! {
    // Const-initialised `Cell`s have no lazy initialisation and no destructor, so the
    // allocator may touch them at any point of a thread's life without recursing.
    static COUNTERS: Cell<Counters> = const {
        Cell::new(Counters {
            enabled: false,
            counts: AllocationCounts { calls: 0, zeroed_calls: 0, realloc_calls: 0, requested_bytes: 0 },
        })
    };
}

#[derive(Clone, Copy)]
enum Request {
    Alloc,
    Zeroed,
    Realloc,
}

#[inline]
fn record(request: Request, bytes: usize) {
    // `try_with` fails only while the thread is being torn down; such requests are not ours.
    let _ = COUNTERS.try_with(|cell| {
        let mut c = cell.get();
        if !c.enabled {
            return;
        }
        match request {
            Request::Alloc => c.counts.calls += 1,
            Request::Zeroed => c.counts.zeroed_calls += 1,
            Request::Realloc => c.counts.realloc_calls += 1,
        }
        c.counts.requested_bytes += bytes as u64;
        cell.set(c);
    });
}

/// The inner allocator used when none is named: the system allocator, or mimalloc with the
/// `mimalloc` feature.
#[cfg(not(feature = "mimalloc"))]
pub type DefaultInner = std::alloc::System;
/// The inner allocator used when none is named: the system allocator, or mimalloc with the
/// `mimalloc` feature.
#[cfg(feature = "mimalloc")]
pub type DefaultInner = mimalloc::MiMalloc;

/// The name of [`DefaultInner`], recorded with every run.
pub const DEFAULT_INNER_NAME: &str = if cfg!(feature = "mimalloc") {
    "mimalloc"
} else {
    "system"
};

/// A [`GlobalAlloc`] that delegates to `A` and counts requests on threads that enabled it.
#[derive(Debug)]
pub struct CountingAllocator<A: GlobalAlloc = DefaultInner> {
    inner: A,
}

impl<A: GlobalAlloc> CountingAllocator<A> {
    /// Wraps `inner`.
    pub const fn new(inner: A) -> Self {
        Self { inner }
    }
}

// SAFETY: every method forwards to `inner` with the caller's arguments unchanged, so `inner`'s
// guarantees hold; counting only touches a const-initialised thread-local `Cell`, which never
// allocates.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(Request::Alloc, layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract for `layout`.
        unsafe { self.inner.alloc(layout) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(Request::Zeroed, layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc_zeroed`'s contract for `layout`.
        unsafe { self.inner.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `inner` (all our allocations delegate) with `layout`.
        unsafe { self.inner.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(Request::Realloc, new_size);
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract; `ptr` came from `inner`.
        unsafe { self.inner.realloc(ptr, layout, new_size) }
    }
}

/// Declares the process's global allocator as a [`CountingAllocator`] over [`DefaultInner`].
/// Call it once at the top of a suite binary (or test binary that probes allocations).
#[macro_export]
macro_rules! counting_allocator {
    () => {
        #[global_allocator]
        static GLOBAL: $crate::alloc::CountingAllocator<$crate::alloc::DefaultInner> =
            $crate::alloc::CountingAllocator::new($crate::alloc::DefaultInner {});
    };
}

/// Why a probe could not count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// The process's global allocator is not a [`CountingAllocator`].
    #[error(
        "the global allocator does not count: declare `bench_support::counting_allocator!();` in the suite binary"
    )]
    NotInstalled,
    /// A probe is already counting on this thread.
    #[error("allocation probes do not nest")]
    Nested,
}

/// Runs `work` with counting enabled on the current thread and returns its result with the
/// requests it made. Dropping the result happens after counting stops; to count disposal,
/// drop inside `work`.
///
/// The probe proves the counter is live: it makes one sentinel allocation of its own inside
/// the counted window (excluded from the result), and fails with
/// [`ProbeError::NotInstalled`] if that was not seen.
pub fn probe<R>(work: impl FnOnce() -> R) -> Result<(R, AllocationCounts), ProbeError> {
    let before = COUNTERS.with(Cell::get);
    if before.enabled {
        return Err(ProbeError::Nested);
    }
    COUNTERS.with(|c| {
        c.set(Counters {
            enabled: true,
            counts: AllocationCounts::default(),
        })
    });
    let sentinel = std::hint::black_box(Box::new(0u64));
    drop(sentinel);
    // Disable counting even if `work` panics, so timed iterations never count.
    struct Disable;
    impl Drop for Disable {
        fn drop(&mut self) {
            let _ = COUNTERS.try_with(|c| {
                let mut v = c.get();
                v.enabled = false;
                c.set(v);
            });
        }
    }
    let guard = Disable;
    let result = work();
    drop(guard);
    let mut counts = COUNTERS.with(Cell::get).counts;
    if counts.calls == 0 {
        return Err(ProbeError::NotInstalled);
    }
    counts.calls -= 1;
    counts.requested_bytes -= std::mem::size_of::<u64>() as u64;
    Ok((result, counts))
}

/// Whether a probe is counting on the current thread.
pub fn is_counting() -> bool {
    COUNTERS.with(Cell::get).enabled
}

#[cfg(test)]
mod tests {
    use super::*;

    // Unit tests run under the test harness's allocator; the calibration test lives in
    // `tests/calibration.rs`, which installs the counting allocator.
    #[test]
    fn probe_without_a_counting_allocator_says_so() {
        assert_eq!(
            probe(|| vec![1u8; 16]).unwrap_err(),
            ProbeError::NotInstalled
        );
        assert!(!is_counting());
    }
}
