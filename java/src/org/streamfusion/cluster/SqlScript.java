package org.streamfusion.cluster;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a SQL script on a Flink cluster through {@code bin/flink run}: {@code bin/flink run
 * opt/streamfusion-sql-script.jar script.sql}. Flink's own {@code bin/sql-client.sh -f} needs
 * {@code opt/flink-sql-gateway-*.jar}, which the PyPI wheels a distribution assembled by
 * {@code cargo xtask flink} comes from do not carry; this is its stand-in for such a
 * distribution.
 *
 * <p>Statements end with {@code ;} at the end of a line; {@code --} comments are dropped.
 * {@code SET 'key' = 'value';} sets a table option for the statements after it; {@code INSERT}
 * submits a job and prints {@code Job ID: <id>} (and waits for it when {@code
 * 'table.dml-sync'} is {@code true}); anything else runs with {@code executeSql} and has its
 * result printed.
 */
public final class SqlScript {
    private static final Pattern SET =
            Pattern.compile("(?is)^SET\\s+'([^']+)'\\s*=\\s*'([^']*)'$");

    private SqlScript() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: bin/flink run streamfusion-sql-script.jar <script.sql>");
            System.exit(2);
        }
        String script = new String(Files.readAllBytes(Paths.get(args[0])), StandardCharsets.UTF_8);
        StreamTableEnvironment tableEnv =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
        for (String statement : statements(script)) {
            Matcher set = SET.matcher(statement);
            if (set.matches()) {
                tableEnv.getConfig().getConfiguration().setString(set.group(1), set.group(2));
                System.out.println("[SET] " + set.group(1) + " = " + set.group(2));
                continue;
            }
            TableResult result = tableEnv.executeSql(statement);
            if (result.getJobClient().isPresent()) {
                System.out.println("Job ID: " + result.getJobClient().get().getJobID());
                System.out.flush();
                if (tableEnv.getConfig().getConfiguration().toMap().getOrDefault(
                                "table.dml-sync", "false")
                        .equals("true")) {
                    result.await();
                }
            } else {
                result.print();
            }
        }
    }

    /** The script's statements, comments dropped, without their terminating semicolons. */
    static List<String> statements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            String trimmed = line.trim();
            if (trimmed.startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                String statement = current.toString().trim();
                statement = statement.substring(0, statement.length() - 1).trim();
                if (!statement.isEmpty()) {
                    statements.add(statement);
                }
                current.setLength(0);
            }
        }
        if (!current.toString().trim().isEmpty()) {
            statements.add(current.toString().trim());
        }
        return statements;
    }
}
