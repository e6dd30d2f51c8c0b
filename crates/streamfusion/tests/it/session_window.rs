//! SESSION window aggregation against a model that knows only what a session is: a row at
//! `t` covers `[t, t + gap]`; rows of a key whose covers touch are one session, which fires
//! once when the watermark reaches its `end - 1`; a row whose cover is late (`t + gap - 1`
//! at or before the watermark) and touches no open session is dropped. The model joins
//! covers by brute force, never through the operator's merge bookkeeping, and is checked
//! over NULL keys and values, out-of-order rows that bridge two sessions, late rows,
//! chunked input, and restores (aligned and rescaled 1 -> 2 -> 1) on both backends.

use std::collections::BTreeMap;

use streamfusion::aggregate::session::SessionWindowAggSpec;
use streamfusion::aggregate::{AggCall, AggFunction};
use streamfusion::ops::{OperatorPlan, StateConfig};
use streamfusion::types::LogicalType;

use super::common::Backend;
use super::window_aggregate::{
    Event, Out, aggregate, behind_the_old_watermark, events, properties,
    restored_before_the_late_row, run_plan,
};

fn plan(gap: i64) -> OperatorPlan {
    legacy_or_not(gap, false)
}

fn legacy_or_not(gap: i64, legacy: bool) -> OperatorPlan {
    OperatorPlan::SessionWindowAggregate(SessionWindowAggSpec {
        aggregate: aggregate(),
        gap,
        time_column: 2,
        properties: properties(),
        legacy,
        time_zone: None,
    })
}

/// One open session of the model: its bounds and values.
struct Open {
    start: i64,
    end: i64,
    values: Vec<Option<i64>>,
}

/// The model: each watermark's emissions, as a sorted multiset.
fn model(gap: i64, events: &[Event]) -> Vec<Vec<Out>> {
    model_at_offset(gap, events, 0)
}

/// The model in a session time zone a fixed `offset` ahead of UTC: sessions cover local
/// times (`ts + offset`) and fire, and are late, at the instant of their last local
/// millisecond (`end - 1 - offset`), which is also `window_time`.
fn model_at_offset(gap: i64, events: &[Event], offset: i64) -> Vec<Vec<Out>> {
    let mut watermark = i64::MIN;
    let mut open: BTreeMap<Option<i32>, Vec<Open>> = BTreeMap::new();
    let mut out = Vec::new();
    for event in events {
        match *event {
            Event::Row { key, ts, v } => {
                let sessions = open.entry(key).or_default();
                let ts = ts + offset;
                let mut cur = Open {
                    start: ts,
                    end: ts + gap,
                    values: vec![v],
                };
                let touches = |o: &Open, c: &Open| o.start <= c.end && c.start <= o.end;
                if !sessions.iter().any(|o| touches(o, &cur)) && cur.end - 1 - offset <= watermark {
                    continue;
                }
                while let Some(i) = sessions.iter().position(|o| touches(o, &cur)) {
                    let o = sessions.remove(i);
                    cur.start = cur.start.min(o.start);
                    cur.end = cur.end.max(o.end);
                    cur.values.extend(o.values);
                }
                sessions.push(cur);
            }
            Event::Watermark(w) => {
                if w <= watermark {
                    out.push(Vec::new());
                    continue;
                }
                watermark = w;
                let mut emitted = Vec::new();
                for (key, sessions) in &mut open {
                    let (due, kept): (Vec<Open>, Vec<Open>) =
                        sessions.drain(..).partition(|o| o.end - 1 - offset <= w);
                    *sessions = kept;
                    for o in due {
                        let present: Vec<i64> = o.values.iter().flatten().copied().collect();
                        emitted.push((
                            *key,
                            o.start,
                            o.end,
                            o.values.len() as i64,
                            present.len() as i64,
                            present.iter().copied().reduce(i64::wrapping_add),
                            present.iter().copied().min(),
                            present.iter().copied().max(),
                            o.end - 1 - offset,
                        ));
                    }
                }
                emitted.sort();
                out.push(emitted);
            }
        }
    }
    out
}

/// Gaps from shorter than a key's row spacing (many sessions, many bridged by out-of-order
/// rows) to longer than the whole stream's jitter (few, long sessions).
const GAPS: [i64; 4] = [90, 400, 1_500, 6_000];

#[test]
fn sessions_match_the_model_on_both_backends_whole_and_chunked() {
    for (n, gap) in GAPS.into_iter().enumerate() {
        let events = events(0x5E55 + n as u64, 1_500, 12, -4_000);
        let expected = model(gap, &events);
        assert!(
            expected.iter().map(Vec::len).sum::<usize>() > 12,
            "gap {gap}: too few sessions to prove anything"
        );
        for backend in [Backend::Memory, Backend::Rocks] {
            for chunk in [1, 17, 5_000] {
                let got = run_plan(None, &plan(gap), backend, &events, &[], chunk);
                assert_eq!(
                    got, expected,
                    "gap {gap} on {backend:?} in {chunk}-row batches"
                );
            }
        }
    }
}

/// In Asia/Shanghai (UTC+8 throughout), sessions are cut on local time and fire, and judge
/// rows late, at the instant of their last local millisecond, for the TVF and the legacy
/// group window alike.
#[test]
fn sessions_in_a_session_time_zone_are_local_and_fire_at_their_instants() {
    const SHANGHAI: i64 = 8 * 3_600_000;
    for (n, gap) in GAPS.into_iter().enumerate() {
        let events = events(0x5A_5E55 + n as u64, 900, 10, -3_000);
        let expected = model_at_offset(gap, &events, SHANGHAI);
        for (legacy, backend) in [(false, Backend::Rocks), (true, Backend::Memory)] {
            let OperatorPlan::SessionWindowAggregate(mut spec) = legacy_or_not(gap, legacy) else {
                unreachable!("a session plan");
            };
            spec.aggregate.input_types[2] = LogicalType::TimestampLtz(3);
            spec.time_zone = Some("Asia/Shanghai".into());
            let plan = OperatorPlan::SessionWindowAggregate(spec);
            let restores = [(events.len() / 2, 2)];
            let got = run_plan(None, &plan, backend, &events, &restores, 17);
            assert_eq!(got, expected, "gap {gap}, legacy {legacy} on {backend:?}");
        }
    }
}

#[test]
fn restores_aligned_and_rescaled_fire_every_session_once() {
    for (n, gap) in GAPS.into_iter().enumerate() {
        let events = events(0xC0DE5 + n as u64, 900, 10, 2_000);
        let expected = model(gap, &events);
        let third = events.len() / 3;
        for backend in [Backend::Memory, Backend::Rocks] {
            let got = run_plan(
                None,
                &plan(gap),
                backend,
                &events,
                &[(third / 2, 1), (third, 2), (2 * third, 1)],
                29,
            );
            assert_eq!(got, expected, "gap {gap} on {backend:?}");
        }
    }
}

#[test]
fn a_late_row_extends_a_live_session_but_alone_is_dropped() {
    let row = |ts, v| Event::Row {
        key: Some(1),
        ts,
        v: Some(v),
    };
    let events = [
        row(1_000, 1),
        Event::Watermark(1_000),
        // Late ([500, 1000) ends at the watermark) but touching [1000, 1500): joins it.
        row(500, 10),
        // Late and alone ([-100, 400)): dropped.
        row(-100, 100),
        // Bridges [500, 1500) and [1600, 2100) (added next) once it arrives.
        row(1_600, 1_000),
        row(1_400, 10_000),
        Event::Watermark(i64::MAX),
    ];
    let expected = model(500, &events);
    assert_eq!(
        expected[1]
            .iter()
            .map(|r| (r.1, r.2, r.3, r.5))
            .collect::<Vec<_>>(),
        [(500, 2_100, 4, Some(11_011))]
    );
    assert_eq!(
        run_plan(None, &plan(500), Backend::Memory, &events, &[], 1),
        expected
    );
}

#[test]
fn plans_that_cannot_run_are_refused() {
    let refused = |spec: SessionWindowAggSpec| {
        OperatorPlan::SessionWindowAggregate(spec)
            .build(&StateConfig::memory(), None)
            .unwrap_err()
            .to_string()
    };
    let base = || SessionWindowAggSpec {
        aggregate: aggregate(),
        gap: 1_000,
        time_column: 2,
        properties: properties(),
        legacy: false,
        time_zone: None,
    };
    let mut zero = base();
    zero.gap = 0;
    assert!(refused(zero).contains("gap"));
    let mut first = base();
    first.aggregate.calls = vec![AggCall::new(AggFunction::FirstValue, Some(1), "f")];
    assert!(refused(first).contains("cannot merge sessions"));
    let mut retracting = base();
    retracting.aggregate.input_retracts = true;
    assert!(refused(retracting).contains("retracting"));
}

/// Flink's legacy `WindowOperator` keeps no watermark across a restore (its timer service
/// restarts at `Long.MIN_VALUE`, decision 0030) while the TVF's `WindowAggOperator` restores
/// the lowest: after a restore, a row behind the old watermark is late for the TVF operator
/// only.
#[test]
fn a_restored_legacy_group_window_starts_without_a_watermark() {
    let (events, without_old_watermark) = behind_the_old_watermark();
    let restored = |legacy| restored_before_the_late_row(&legacy_or_not(500, legacy), &events);
    assert_eq!(restored(false), model(500, &events).concat());
    let legacy = restored(true);
    assert_eq!(legacy, model(500, &without_old_watermark).concat());
    assert_eq!(legacy.len(), 3, "the row at 100 opens its own session");
}
