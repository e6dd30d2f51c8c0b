package org.streamfusion.golden;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

/**
 * Hand-written JSON output, so the file does not depend on a JSON library's formatting choices.
 * Non-ASCII text is written as-is (the file is UTF-8); only '"', '\\' and chars below 0x20 are
 * escaped, the latter always as six-character u-escapes.
 */
final class Json {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Json() {}

    static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '"' || ch == '\\') {
                out.append('\\').append(ch);
            } else if (ch < 0x20) {
                out.append("\\u00").append(HEX[ch >> 4]).append(HEX[ch & 0xf]);
            } else {
                out.append(ch);
            }
        }
        out.append('"');
    }

    static String hex(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }

    /** Zero-padded lowercase hex of the low `digits` nibbles of v. */
    static String hexBits(long v, int digits) {
        char[] out = new char[digits];
        for (int i = digits - 1; i >= 0; i--) {
            out[i] = HEX[(int) (v & 0xf)];
            v >>>= 4;
        }
        return new String(out);
    }

    /** One field of "v", encoded as the file format specifies for its type. */
    static void value(StringBuilder out, Col c, Object v) {
        if (v == null) {
            out.append("null");
            return;
        }
        switch (c.kind) {
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INT:
            case DATE:
            case TIME:
            case INTERVAL_YM:
                out.append(v); // Boolean / Byte / Short / Integer print as JSON literals
                break;
            case BIGINT:
            case INTERVAL_DT:
                string(out, Long.toString((Long) v)); // strings: i64 does not survive f64 parsers
                break;
            case FLOAT:
                string(out, hexBits(Float.floatToRawIntBits((Float) v) & 0xffffffffL, 8));
                break;
            case DOUBLE:
                string(out, hexBits(Double.doubleToRawLongBits((Double) v), 16));
                break;
            case DECIMAL:
                string(out, ((DecimalData) v).toBigDecimal().unscaledValue().toString());
                break;
            case CHAR:
            case VARCHAR:
                string(out, ((StringData) v).toString());
                break;
            case BINARY:
            case VARBINARY:
                string(out, hex((byte[]) v));
                break;
            case TIMESTAMP:
            case TIMESTAMP_LTZ:
                TimestampData t = (TimestampData) v;
                string(out, t.getMillisecond() + ":" + t.getNanoOfMillisecond());
                break;
            case ROW:
                // A nested row is the list of its field values.
                GenericRowData row = (GenericRowData) v;
                out.append('[');
                for (int i = 0; i < c.children.length; i++) {
                    out.append(i == 0 ? "" : ",");
                    value(out, c.children[i], row.getField(i));
                }
                out.append(']');
                break;
            default:
                throw new IllegalArgumentException(c.token);
        }
    }
}
