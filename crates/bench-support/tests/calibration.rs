//! Calibration: the probe must see one deliberately injected extra copy of a 1 MiB payload,
//! and nothing while counting is off.

use std::hint::black_box;

use bench_support::alloc::{is_counting, probe};

bench_support::counting_allocator!();

const MIB: usize = 1 << 20;

fn payload() -> Vec<u8> {
    (0..MIB).map(|i| (i % 251) as u8).collect()
}

/// The work under test: a checksum over a payload, optionally with one extra copy.
fn work(payload: &[u8], extra_copy: bool) -> u64 {
    let owned;
    let data = if extra_copy {
        owned = black_box(payload.to_vec());
        &owned[..]
    } else {
        payload
    };
    data.iter().map(|&b| u64::from(b)).sum()
}

#[test]
fn probe_sees_one_injected_copy_of_a_one_mebibyte_payload() {
    let data = payload();
    let (plain_sum, plain) = probe(|| work(&data, false)).unwrap();
    let (copy_sum, copied) = probe(|| work(&data, true)).unwrap();
    assert_eq!(plain_sum, copy_sum);
    assert_eq!(copied.calls, plain.calls + 1, "{plain:?} vs {copied:?}");
    assert!(
        copied.requested_bytes >= plain.requested_bytes + MIB as u64,
        "{plain:?} vs {copied:?}"
    );
    assert_eq!(copied.realloc_calls, plain.realloc_calls);
}

#[test]
fn probe_counts_zeroed_and_realloc_requests_with_their_whole_size() {
    let ((), counts) = probe(|| {
        let zeroed = black_box(vec![0u8; 4096]);
        let mut grown: Vec<u8> = black_box(Vec::with_capacity(16));
        grown.reserve_exact(1000);
        drop((zeroed, grown));
    })
    .unwrap();
    assert_eq!(counts.zeroed_calls, 1);
    assert_eq!(counts.calls, 1);
    assert_eq!(counts.realloc_calls, 1);
    // 4096 zeroed + 16 initial + the whole reallocated size (at least 1000).
    assert!(counts.requested_bytes >= 4096 + 16 + 1000, "{counts:?}");
}

#[test]
fn nothing_is_counted_while_counting_is_off() {
    assert!(!is_counting());
    // Allocations outside a probe are invisible to the next probe.
    let before = black_box(payload());
    let ((), counts) = probe(|| ()).unwrap();
    assert_eq!(counts, Default::default());
    assert!(!is_counting());
    let after = black_box(payload());
    assert_eq!(before, after);
}

#[test]
fn other_threads_are_not_counted() {
    let ((), counts) = probe(|| {
        std::thread::scope(|s| {
            s.spawn(|| black_box(payload())).join().unwrap();
        });
    })
    .unwrap();
    // Spawning a thread allocates a little on this thread, but never the 1 MiB payload.
    assert!(counts.requested_bytes < MIB as u64, "{counts:?}");
}

#[test]
fn probes_do_not_nest_and_a_panicking_probe_stops_counting() {
    let nested = probe(|| probe(|| ()).map(|_| ()));
    assert!(nested.unwrap().0.is_err());
    let r = std::panic::catch_unwind(|| probe(|| panic!("inside a probe")));
    assert!(r.is_err());
    assert!(!is_counting());
}
