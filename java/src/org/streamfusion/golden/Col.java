package org.streamfusion.golden;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DayTimeIntervalType;
import org.apache.flink.table.types.logical.DayTimeIntervalType.DayTimeResolution;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.YearMonthIntervalType;
import org.apache.flink.table.types.logical.YearMonthIntervalType.YearMonthResolution;

import java.util.ArrayList;
import java.util.List;

/**
 * One key column: the released Flink LogicalType (always nullable) plus the exact type token the
 * Rust test parses. The token is spelled by hand rather than taken from asSerializableString(),
 * because Flink spells several types differently (e.g. "TIMESTAMP(3) WITH LOCAL TIME ZONE",
 * "INTERVAL DAY(2) TO SECOND(3)") and the golden file format is fixed.
 */
final class Col {
    enum Kind {
        BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, CHAR, VARCHAR, BINARY,
        VARBINARY, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, INTERVAL_YM, INTERVAL_DT, ROW
    }

    static final int MAX_LEN = Integer.MAX_VALUE;

    final Kind kind;
    final LogicalType type;
    final String token;
    /** Precision for DECIMAL/TIME/TIMESTAMP*, length n for CHAR/VARCHAR/BINARY/VARBINARY. */
    final int p;
    /** Scale for DECIMAL, else 0. */
    final int s;
    /** The fields of a ROW, else empty. */
    final Col[] children;

    private Col(Kind kind, LogicalType type, String token, int p, int s) {
        this(kind, type, token, p, s, new Col[0]);
    }

    private Col(Kind kind, LogicalType type, String token, int p, int s, Col[] children) {
        this.kind = kind;
        this.type = type;
        this.token = token;
        this.p = p;
        this.s = s;
        this.children = children;
    }

    /**
     * ROW&lt;name type, ...&gt; (a released RowType, every field nullable). The token quotes a
     * name in backticks unless it is a plain identifier, as the Rust type parser expects.
     */
    static Col row(String[] names, Col... fields) {
        List<RowType.RowField> rowFields = new ArrayList<>();
        StringBuilder token = new StringBuilder("ROW<");
        for (int i = 0; i < fields.length; i++) {
            rowFields.add(new RowType.RowField(names[i], fields[i].type));
            token.append(i == 0 ? "" : ", ");
            if (names[i].matches("[A-Za-z_][A-Za-z0-9_]*")) {
                token.append(names[i]);
            } else {
                token.append('`').append(names[i].replace("`", "``")).append('`');
            }
            token.append(' ').append(fields[i].token);
        }
        token.append('>');
        return new Col(Kind.ROW, new RowType(rowFields), token.toString(), 0, 0, fields);
    }

    /** ROW&lt;f0 ..., f1 ..., ...&gt;. */
    static Col row(Col... fields) {
        String[] names = new String[fields.length];
        for (int i = 0; i < fields.length; i++) {
            names[i] = "f" + i;
        }
        return row(names, fields);
    }

    static Col bool() { return new Col(Kind.BOOLEAN, new BooleanType(), "BOOLEAN", 0, 0); }
    static Col tinyint() { return new Col(Kind.TINYINT, new TinyIntType(), "TINYINT", 0, 0); }
    static Col smallint() { return new Col(Kind.SMALLINT, new SmallIntType(), "SMALLINT", 0, 0); }
    static Col integer() { return new Col(Kind.INT, new IntType(), "INT", 0, 0); }
    static Col bigint() { return new Col(Kind.BIGINT, new BigIntType(), "BIGINT", 0, 0); }
    static Col float32() { return new Col(Kind.FLOAT, new FloatType(), "FLOAT", 0, 0); }
    static Col float64() { return new Col(Kind.DOUBLE, new DoubleType(), "DOUBLE", 0, 0); }
    static Col date() { return new Col(Kind.DATE, new DateType(), "DATE", 0, 0); }

    static Col decimal(int p, int s) {
        return new Col(Kind.DECIMAL, new DecimalType(p, s), "DECIMAL(" + p + ", " + s + ")", p, s);
    }

    static Col chr(int n) { return new Col(Kind.CHAR, new CharType(n), "CHAR(" + n + ")", n, 0); }

    static Col varchar(int n) {
        return new Col(Kind.VARCHAR, new VarCharType(n), "VARCHAR(" + n + ")", n, 0);
    }

    static Col binary(int n) {
        return new Col(Kind.BINARY, new BinaryType(n), "BINARY(" + n + ")", n, 0);
    }

    static Col varbinary(int n) {
        return new Col(Kind.VARBINARY, new VarBinaryType(n), "VARBINARY(" + n + ")", n, 0);
    }

    static Col time(int p) { return new Col(Kind.TIME, new TimeType(p), "TIME(" + p + ")", p, 0); }

    static Col timestamp(int p) {
        return new Col(Kind.TIMESTAMP, new TimestampType(p), "TIMESTAMP(" + p + ")", p, 0);
    }

    static Col timestampLtz(int p) {
        return new Col(
                Kind.TIMESTAMP_LTZ, new LocalZonedTimestampType(p), "TIMESTAMP_LTZ(" + p + ")", p, 0);
    }

    static Col intervalYm() {
        return new Col(
                Kind.INTERVAL_YM,
                new YearMonthIntervalType(YearMonthResolution.YEAR_TO_MONTH),
                "INTERVAL YEAR TO MONTH",
                0,
                0);
    }

    /**
     * The one-argument constructor defaults to fractional precision 6, which is not SECOND(3);
     * so day precision stays the default (2) and fractional precision is set to 3 explicitly.
     * The binary layout (a long of millis) does not depend on either precision.
     */
    static Col intervalDt() {
        return new Col(
                Kind.INTERVAL_DT,
                new DayTimeIntervalType(
                        DayTimeResolution.DAY_TO_SECOND, DayTimeIntervalType.DEFAULT_DAY_PRECISION, 3),
                "INTERVAL DAY TO SECOND(3)",
                3,
                0);
    }

    /** True when Flink stores this column's NULL by reserving variable-part bytes. */
    boolean reservesOnNull() {
        switch (kind) {
            case DECIMAL:
                return p > 18;
            case TIMESTAMP:
            case TIMESTAMP_LTZ:
                return p > 3;
            default:
                return false;
        }
    }
}
