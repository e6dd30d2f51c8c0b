//! The engine's integration tests, one binary (one link of DataFusion and RocksDB instead
//! of one per file). Each module is one area; `common` holds the golden-vector helpers
//! and the drivers several modules share.

mod aggregate_calls;
mod binary_rows;
mod calc;
#[cfg(feature = "bench")]
mod calc_flink;
mod common;
mod deduplicate;
mod deduplicate_flink;
mod flink_parity;
mod golden_keys;
mod group_aggregate;
mod group_aggregate_flink;
mod interval_join_flink;
mod join;
mod join_flink;
mod local_global;
mod movement;
mod over;
mod over_flink;
mod rank;
mod rank_flink;
mod regex_flink;
mod session_window;
mod state;
mod temporal_join_flink;
mod temporal_sort;
mod window_aggregate;
mod window_flink;
mod window_join;
mod window_join_flink;
mod window_rank;
mod window_table;
