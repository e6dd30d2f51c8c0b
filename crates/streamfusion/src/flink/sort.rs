//! `stream-exec-temporal-sort_1` as a native [`OperatorPlan::TemporalSort`].
//!
//! The node's `orderBy` fields (`{"index", "isAscending", "nullIsLast"}`): the first is the
//! time attribute, ascending (Flink's translator requires it); the others sort each time's
//! rows. A rowtime first field runs natively (`RowTimeSortOperator`); a processing-time one
//! (`ProcTimeSortOperator`) is refused, and so is a FLOAT/DOUBLE field among the others (the
//! native operator's own check, see [`crate::sort`]).

use serde_json::Value;

use super::aggregate::{compare, max_parallelism};
use super::rank::sort_keys;
use super::types::row_type;
use super::{FlinkConfig, NodeFields, Result, Unsupported, time_kind};
use crate::ops::{OperatorPlan, StateConfig};
use crate::sort::TemporalSortSpec;
use crate::types::RowField;

const NODE: &str = "stream-exec-temporal-sort_1";

/// The plan of a temporal sort `node` over `inputs`.
pub fn plan(
    node: &Value,
    inputs: &[Vec<RowField>],
    raw_inputs: &[Value],
    config: &FlinkConfig,
) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, NODE);
    let (input, raw_input) = fields.one_input(inputs, raw_inputs)?;
    let order = fields
        .field("orderBy")?
        .get("fields")
        .and_then(Value::as_array)
        .ok_or_else(|| Unsupported::Malformed(format!("a {NODE} without orderBy fields")))?;
    let mut keys = sort_keys(order, input.len())?;
    if keys.is_empty() {
        return Err(Unsupported::Malformed(format!(
            "a {NODE} sorting by nothing"
        )));
    }
    let time = keys.remove(0);
    match time_kind(raw_input, time.column) {
        Some("ROWTIME") if time.ascending => {}
        Some("PROCTIME") => {
            return Err(Unsupported::Feature(
                "a sort on processing time (not native yet)".into(),
            ));
        }
        _ => {
            return Err(Unsupported::Malformed(format!(
                "a {NODE} whose first sort field is not an ascending time attribute"
            )));
        }
    }
    let output = row_type(fields.field("outputType")?)?;
    let plan = OperatorPlan::TemporalSort(TemporalSortSpec {
        input_names: input.iter().map(|f| f.name.clone()).collect(),
        input_types: input.iter().map(|f| f.ty.clone()).collect(),
        time_column: time.column,
        sort: keys,
        max_parallelism: max_parallelism(config)?,
    });
    let operator = plan
        .build(&StateConfig::memory(), None)
        .map_err(|e| Unsupported::Operator(e.to_string()))?;
    compare("input", operator.input_types(0), input)?;
    compare("output", operator.output_types(), &output)?;
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::super::plan_node;
    use super::*;
    use crate::rank::SortKey;

    fn fixture(name: &str) -> Result<OperatorPlan> {
        let path = format!(
            "{}/tests/flink-2.3.0-nodes/sort-{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let value: Value = serde_json::from_str(&text).unwrap();
        plan_node(&text, Some(&value["config"].to_string()))
    }

    #[test]
    fn released_flinks_sort_nodes_plan_or_are_refused_as_expected() {
        let spec = |name: &str| match fixture(name).unwrap_or_else(|e| panic!("{name}: {e}")) {
            OperatorPlan::TemporalSort(spec) => spec,
            other => panic!("{other:?}"),
        };
        // `ORDER BY ts`.
        let plain = spec("rowtime");
        assert_eq!(plain.time_column, 2);
        assert!(plain.sort.is_empty());
        // `ORDER BY ts, v DESC, s`: Flink's default NULL placement per direction.
        let secondary = spec("rowtime_secondary");
        assert_eq!(secondary.time_column, 3);
        assert_eq!(
            secondary.sort,
            [
                SortKey {
                    column: 1,
                    ascending: false,
                    nulls_last: true
                },
                SortKey {
                    column: 2,
                    ascending: true,
                    nulls_last: false
                }
            ]
        );
        let err = fixture("proctime").unwrap_err().to_string();
        assert!(err.contains("processing time"), "{err}");
    }
}
