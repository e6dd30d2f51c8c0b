//! Plain-text tables for the terminal: left-aligned text, right-aligned numbers.

#[derive(Debug)]
pub struct Table {
    headers: Vec<String>,
    numeric: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Columns whose header starts with `>` are right-aligned (the `>` is not printed).
    pub fn new(headers: &[&str]) -> Table {
        Table {
            headers: headers
                .iter()
                .map(|h| h.trim_start_matches('>').to_string())
                .collect(),
            numeric: headers.iter().map(|h| h.starts_with('>')).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let columns = self.headers.len();
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut out = String::new();
            for (i, width) in widths.iter().enumerate() {
                let cell = cells.get(i).map(String::as_str).unwrap_or("");
                if i > 0 {
                    out.push_str("  ");
                }
                if self.numeric[i] {
                    out.push_str(&format!("{cell:>width$}"));
                } else {
                    out.push_str(&format!("{cell:<width$}"));
                }
            }
            out.trim_end().to_string()
        };
        let mut out = line(&self.headers);
        out.push('\n');
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        out.push_str(&rule.join("  "));
        out.push('\n');
        for row in &self.rows {
            out.push_str(&line(row));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_align_right_and_text_aligns_left() {
        let mut table = Table::new(&["suite", ">cases"]);
        table.row(vec!["handoffs".into(), "128".into()]);
        table.row(vec!["state".into(), "4".into()]);
        assert_eq!(
            table.render(),
            "suite     cases\n\
             --------  -----\n\
             handoffs    128\n\
             state         4\n"
        );
    }
}
