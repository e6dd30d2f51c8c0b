//! The process-wide registry of live operators, and the only place a `jlong` handle is turned
//! into an operator ([`lookup`]).
//!
//! A handle is an opaque id, never a pointer: Java can pass any `long`, so a handle is only
//! ever looked up in a map, never dereferenced. Ids are the registration counter scrambled by
//! a bijection of the 63-bit non-negative `long`s (multiply by an odd constant, then XOR a key
//! drawn once per process), so they are positive, never repeat within a process, and a handle
//! from another process (or an id made up by hand) is very unlikely to name a live operator.
//! A closed handle is removed from the map, so using it again is rejected like a forged one.
//!
//! Each operator sits behind its own mutex: calls on one handle are serialised, calls on
//! different handles run in parallel. A panic while an operator is locked poisons it; later
//! calls on that handle fail with [`NativeError::Poisoned`] until it is closed.

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};

use jni::sys::jlong;

use crate::error::{NativeError, Result};
use crate::operator::HostedOperator;

const ID_BITS: u32 = 63;
const ID_MASK: u64 = (1 << ID_BITS) - 1;
/// Odd, so multiplication by it is a bijection modulo 2^63.
const SCRAMBLE: u64 = 0x9E37_79B9_7F4A_7C15;

/// A shared, individually locked operator.
pub type SharedOperator = Arc<Mutex<HostedOperator>>;

// Operators move between the JVM threads that call them: the registry needs them `Send`.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<HostedOperator>();
};

#[derive(Debug)]
struct Registry {
    key: u64,
    registered: u64,
    live: HashMap<jlong, SharedOperator>,
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(|| {
    Mutex::new(Registry {
        key: RandomState::new().hash_one(0x5F_u64) & ID_MASK,
        registered: 0,
        live: HashMap::new(),
    })
});

/// The registry. Its critical sections only touch the map, so a poisoned lock (impossible
/// short of an allocation failure) still holds a consistent map and is used as is.
fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Registers `operator` and returns its new handle.
pub fn insert(operator: HostedOperator) -> jlong {
    let mut registry = registry();
    loop {
        registry.registered += 1;
        let scrambled = (registry.registered.wrapping_mul(SCRAMBLE) ^ registry.key) & ID_MASK;
        // 63-bit values are non-negative `long`s; 0 is kept free as Java's "no handle".
        let id = scrambled as jlong;
        if id != 0 && !registry.live.contains_key(&id) {
            registry.live.insert(id, Arc::new(Mutex::new(operator)));
            return id;
        }
    }
}

/// The operator named by `handle`: the one place a handle becomes an operator. Unknown, closed
/// and forged handles are rejected without being dereferenced.
pub fn lookup(handle: jlong) -> Result<SharedOperator> {
    registry()
        .live
        .get(&handle)
        .cloned()
        .ok_or(NativeError::UnknownHandle(handle))
}

/// Runs `f` on the operator named by `handle`, with the operator locked.
pub fn with_operator<T>(
    handle: jlong,
    f: impl FnOnce(&mut HostedOperator) -> Result<T>,
) -> Result<T> {
    let operator = lookup(handle)?;
    let mut operator = operator.lock().map_err(|_| NativeError::Poisoned(handle))?;
    f(&mut operator)
}

/// Closes `handle`: removes its operator, which is dropped (its store closed, an owned
/// working directory removed) once no call still uses it.
pub fn remove(handle: jlong) -> Result<()> {
    registry()
        .live
        .remove(&handle)
        .map(drop)
        .ok_or(NativeError::UnknownHandle(handle))
}

/// How many operators are open.
pub fn live() -> usize {
    registry().live.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operator() -> HostedOperator {
        HostedOperator::create(
            r#"{"operator": "calc", "input": ["BIGINT"], "calc": {"projection": [{"input": 0}]}}"#,
            None,
        )
        .unwrap()
    }

    #[test]
    fn handles_are_positive_distinct_and_rejected_once_closed() {
        let a = insert(operator());
        let b = insert(operator());
        assert!(a > 0 && b > 0 && a != b);
        assert!(lookup(a).is_ok());
        remove(a).unwrap();
        assert!(matches!(lookup(a), Err(NativeError::UnknownHandle(h)) if h == a));
        assert!(matches!(remove(a), Err(NativeError::UnknownHandle(_))));
        assert!(lookup(b).is_ok());
        remove(b).unwrap();
    }

    #[test]
    fn forged_handles_are_rejected_without_dereferencing() {
        for forged in [0, -1, 1, 12345, jlong::MAX, jlong::MIN] {
            if lookup(forged).is_ok() {
                continue; // a live id by coincidence: nothing forged about it
            }
            assert!(matches!(
                with_operator(forged, |_| Ok(())),
                Err(NativeError::UnknownHandle(h)) if h == forged
            ));
        }
    }
}
