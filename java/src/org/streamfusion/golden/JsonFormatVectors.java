package org.streamfusion.golden;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

/**
 * Golden vectors for {@code 'format' = 'json'}: released Flink 2.3.0's
 * {@code JsonParserRowDataDeserializationSchema} (the default decoder) on hand-written messages
 * and {@code JsonRowDataSerializationSchema} on rows built here, on the JVM running this
 * generator (JDK 17).
 *
 * <p>Output (JSON lines after the header), one line per case:
 *
 * <ul>
 *   <li>{@code {"kind":"decode","schema":S,"options":{...},"message":HEX|null,"rows":[ROW|null,...]}}
 *       for a message Flink decodes (the rows its collector received, {@code null} for a
 *       {@code null} it collected), or with {@code "error":{"class":C,"cause_class":C2,"cause":M}}
 *       instead of {@code rows} for one it refuses ({@code cause} is the message of the
 *       exception's cause, e.g. {@code Fail to deserialize at field: a.}).
 *   <li>{@code {"kind":"encode","schema":S,"options":{...},"rows":[ROW,...],"out":[TEXT|{"error":M},...]}}:
 *       the rows serialized in order by one serializer instance (it reuses its JSON tree).
 * </ul>
 *
 * <p>{@code S} is the table's row type in Flink SQL spelling; {@code options} are the format's
 * DDL options without the {@code json.} prefix. A value ({@link #canon}) is {@code null} for
 * NULL; BOOLEAN a JSON boolean; TINYINT..BIGINT, DATE (epoch days), TIME (milliseconds of the
 * day) and both INTERVALs a JSON number; FLOAT and DOUBLE {@code "f32:XXXXXXXX"} /
 * {@code "f64:XXXXXXXXXXXXXXXX"} (raw IEEE bits in hex); DECIMAL the unscaled value as a
 * decimal string; CHAR/VARCHAR a JSON string; BINARY/VARBINARY lowercase hex in a string;
 * TIMESTAMP and TIMESTAMP_LTZ {@code "MILLIS:NANO_OF_MILLI"} (TimestampData's two parts); ROW
 * and ARRAY a JSON array of values; MAP a JSON array of {@code [key, value]} pairs sorted by
 * key (Flink's decoded map is a HashMap) in decode cases, in entry order in encode cases.
 */
public final class JsonFormatVectors {
    static final String GENERATOR = "java/src/org/streamfusion/golden/JsonFormatVectors.java";

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: JsonFormatVectors OUT.jsonl");
            System.exit(2);
        }
        StringBuilder out = new StringBuilder();
        out.append("{\"generator\":");
        Json.string(out, GENERATOR);
        out.append(",\"flink\":\"2.3.0\",\"java\":");
        Json.string(out, System.getProperty("java.specification.version"));
        out.append("}\n");
        decodeCases(out);
        encodeCases(out);
        Files.write(Path.of(args[0]), out.toString().getBytes(StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------- decode

    static final String[] DEFAULT = {};
    static final String[] IGNORE = {"ignore-parse-errors", "true"};
    static final String[] MISSING = {"fail-on-missing-field", "true"};
    static final String[] ISO = {"timestamp-format.standard", "ISO-8601"};
    static final String[] ISO_IGNORE = {
        "timestamp-format.standard", "ISO-8601", "ignore-parse-errors", "true"
    };

    static void decodeCases(StringBuilder out) throws Exception {
        single(out, "BOOLEAN", "true", "false", "\"true\"", "\" TRUE \"", "\"yes\"", "1", "0",
                "null", "{}", "[]", "\"false\"", "1.5");
        single(out, "TINYINT", "1", "-128", "127", "128", "-129", "\"12\"", "\" 7 \"", "\"+5\"",
                "\"1.5\"", "1.5", "1e2", "\"abc\"", "true", "3000000000", "null", "\"007\"");
        single(out, "SMALLINT", "32767", "32768", "-32768", "\"123\"", "1.0", "\"x\"", "-0");
        single(out, "INT", "2147483647", "2147483648", "1.9", "-1.9", "2147483647.5", "1e9",
                "1e10", "\"42\"", "\" -42 \"", "\"4.2\"", "\"0x10\"", "true", "[1]",
                "{\"a\":1}", "12345678901234567890123", "-2147483648.9", "-0.5", "1E2",
                "\"\\t5\"", "\"\"");
        single(out, "BIGINT", "9223372036854775807", "9223372036854775808",
                "-9223372036854775808", "1.5e18", "9.3e18", "\"-5\"", "1e400", "-1.9",
                "9.223372036854775807e18", "\"9223372036854775808\"");
        single(out, "FLOAT", "1.5", "1", "\"1.5\"", "\"NaN\"", "\"Infinity\"", "\"-Infinity\"",
                "1e50", "\"1e50\"", "3.4028235e38", "1e-50", "\"  2.5  \"", "\"1f\"", "\"abc\"",
                "0.1", "16777217", "1.00000017881393432617187499", "true", "-0.0", "1e400");
        single(out, "DOUBLE", "1.5", "1", "\"NaN\"", "1e308", "1e309", "-0.0", "\"1d\"",
                "4.9e-324", "2.5e-324", "12345678901234567890", "\"abc\"", "[1]", "0.1",
                "\" -7.25e3 \"", "123456789012345678901234567890");
        single(out, "DECIMAL(10, 2)", "1.234", "1.235", "-1.235", "12345678.99",
                "123456789.99", "\"3.14159\"", "\" 2 \"", "1e2", "1E-3", "\"1e5\"", "0",
                "-0.0", "\"abc\"", "true", "99999999.995", "1e400", "\"+.5\"", "\"5.\"",
                "0.005", "-0.005", "0.0049", "{}");
        single(out, "DECIMAL(38, 18)", "12345678901234567890.123456789012345678",
                "0.0000000000000000005", "99999999999999999999.999999999999999999",
                "100000000000000000000", "-1.5", "\"1e-19\"", "1");
        single(out, "STRING", "\"abc\"", "\"\"", "\"h\u00e9llo\"", "\"\\u00e9\\ud83d\\ude00\"",
                "\"a\\nb\"", "\"tab\t\u0001\"", "123", "1.50", "-0", "1e5", "true", "false",
                "{\"a\":1,\"b\":[1,2.5,\"x\"]}", "[1,{\"c\":null}]", "{\"a\":1,\"a\":2}",
                "{\"k\":\"\\u0001\\\"/\\/\u007f\u2028\"}", "{\"f\":1.0}",
                "{\"big\":12345678901234567890}", "{\"n\":-0}", "{\"e\":1e400}",
                "{\"x\":0.00001,\"y\":1e7,\"z\":123.456}", "[]", "{}", "[true,false,null]",
                "\"\\\"q\\\\\"", "\"\\b\\f\\r\\/\"", "\"\\q\"", "\"\\u12\"", "\"\\ud800\"",
                "-12.50e-1");
        single(out, "CHAR(3)", "\"abcdef\"", "\"a\"");
        single(out, "BYTES", "\"AQID\"", "\"AQI=\"", "\"AQ==\"", "\"AQ\"", "\"AQI\"", "\"\"",
                "\" AQID\"", "\"AQ ID\"", "\"A===\"", "\"!!!!\"", "5", "\"AQIDBA==\"",
                "\"YWJj\\n\"", "\"YWJj \"", "\"YW==\"", "\"YR==\"", "\"AQID AQID\"", "{}",
                "\"-_8=\"");
        single(out, "DATE", "\"2024-02-29\"", "\"2023-02-29\"", "\"2024-13-01\"",
                "\"0000-01-01\"", "\"-0001-12-31\"", "\"+10000-01-01\"", "\"10000-01-01\"",
                "\"2024-1-01\"", "\" 2024-01-01\"", "\"2024-01-01T00:00\"", "20240101",
                "\"1970-01-01\"", "\"+2024-01-01\"", "\"-0000-01-01\"", "\"2024-04-31\"",
                "\"2024-00-10\"", "\"2024-01-00\"", "\"1969-12-31\"");
        single(out, "TIME(3)", "\"12:34:56\"", "\"12:34:56.789\"", "\"12:34:56.7891\"",
                "\"12:34:56.\"", "\"24:00:00\"", "\"23:59:60\"", "\"12:34\"", "\"1:02:03\"",
                "\"12:34:56.123456789\"", "\"12:34:56.1234567891\"", "\"24:00:01\"",
                "\"00:00:00.0009\"", "\"12:60:00\"", "5");
        for (String[] options : new String[][] {DEFAULT, ISO}) {
            singleWith(out, "TIMESTAMP(3)", options, "\"2024-01-02 03:04:05\"",
                    "\"2024-01-02 03:04:05.123456789\"", "\"2024-01-02T03:04:05\"",
                    "\"2024-02-30 00:00:00\"", "\"2024-02-30T00:00:00\"",
                    "\"2024-01-01 24:00:00\"", "\"2024-01-01T24:00:00\"",
                    "\"2024-01-02 03:04\"", "\"2024-01-02T03:04\"",
                    "\"1969-12-31 23:59:59.999\"", "\"1969-12-31T23:59:59.9999\"",
                    "\"2024-01-02 03:04:05Z\"", "\"2024-01-02T03:04:05Z\"",
                    "\"2024-01-02T03:04:05.5\"", "\"2024-02-31 00:00:00\"",
                    "\"2024-01-02 03:04:05.\"", "\"2024-01-02T03:04:05.\"",
                    "\"2024-04-31T00:00\"");
            singleWith(out, "TIMESTAMP(6)", options, "\"2024-01-02 03:04:05.123456789\"",
                    "\"2024-01-02T03:04:05.123456789\"", "\"0001-01-01 00:00:00\"");
            singleWith(out, "TIMESTAMP(9)", options, "\"2024-01-02 03:04:05.123456789\"",
                    "\"2024-01-02T03:04:05.123456789\"", "\"1969-12-31 23:59:59.999999999\"",
                    "\"1969-12-31T23:59:59.999999999\"");
            singleWith(out, "TIMESTAMP_LTZ(3)", options, "\"2024-01-02 03:04:05Z\"",
                    "\"2024-01-02 03:04:05.5Z\"", "\"2024-01-02 03:04:05\"",
                    "\"2024-01-02T03:04:05Z\"", "\"2024-01-02T03:04Z\"",
                    "\"2024-01-02T03:04:05.123Z\"", "\"2024-02-30T00:00:00Z\"",
                    "\"2024-02-30 00:00:00Z\"", "\"2024-01-01T24:00Z\"",
                    "\"2024-01-01 24:00:00Z\"", "\"2024-01-02 03:04:05+01:00\"");
        }
        single(out, "INTERVAL YEAR TO MONTH", "14", "\"14\"", "1.5", "\"x\"");
        single(out, "INTERVAL DAY TO SECOND(3)", "86400000", "\"5\"", "2.5");
        single(out, "ROW<x INT, y STRING>", "{\"x\":1,\"y\":\"a\"}", "{\"y\":\"b\"}", "{}",
                "{\"x\":\"bad\"}", "{\"x\":\"bad\",\"y\":\"after\"}", "5", "[1]",
                "{\"x\":1,\"x\":2,\"y\":\"c\"}", "{\"z\":1,\"x\":3}", "{\"y\":\"b\",\"x\":4}",
                "{\"x\":1,\"y\":\"a\",\"z\":[1,{\"q\":2}]}", "\"str\"");
        single(out, "ARRAY<INT>", "[1,2,null,3]", "[]", "[\"4\",\" 5 \"]", "[1,\"x\",3]", "5",
                "{\"a\":1}", "[[1],2]", "[1.7]", "[{\"x\":1},7]", "\"[1]\"");
        single(out, "ARRAY<ROW<a INT>>", "[{\"a\":1},null,{\"b\":2}]", "[{\"a\":\"x\"},{\"a\":2}]");
        single(out, "MAP<STRING, INT>", "{\"a\":1,\"b\":null}", "{}", "{\"a\":1,\"a\":2}",
                "{\"a\":\"x\",\"b\":2}", "[1]", "{\"a\":{\"b\":1},\"c\":3}", "{\"\":0}");
        single(out, "MAP<STRING, ARRAY<STRING>>", "{\"k\":[\"a\",null,1]}", "{\"k\":null}");
        single(out, "MAP<STRING, DECIMAL(5, 1)>", "{\"p\":1.25,\"q\":\"x\"}");
        // A STRING field holding nested floats when the schema has a DECIMAL (Jackson then
        // reads floats as BigDecimal and keeps their digits).
        decodeMany(out, "ROW<s STRING, d DECIMAL(5, 2)>", DEFAULT,
                "{\"s\":{\"x\":1.50,\"y\":100.0,\"z\":1e2,\"w\":0.0,\"v\":-1.2E-8}}",
                "{\"s\":[1.0, 0.00001, 12345678901234567890.5]}");

        String wide = "ROW<a INT, b STRING, flag BOOLEAN, c ROW<x INT, y ARRAY<STRING>>, "
                + "d MAP<STRING, DOUBLE>, e DECIMAL(10, 2)>";
        String[] messages = {
            "{\"a\":1,\"b\":\"x\",\"flag\":true,\"c\":{\"x\":2,\"y\":[\"p\",\"q\"]},"
                    + "\"d\":{\"k\":1.5},\"e\":3.14}",
            "{\"e\":1,\"d\":{},\"c\":null,\"flag\":false,\"b\":\"rev\",\"a\":7}",
            "{\"a\":1,\"a\":2,\"b\":\"dup\"}",
            "{\"a\":1,\"a\":2,\"a\":3,\"a\":4,\"a\":5,\"a\":6,\"b\":\"lost\"}",
            "{\"a\":1}",
            "{}",
            "{\"zz\":{\"deep\":[1,2,{\"x\":[]}]},\"a\":5,\"yy\":\"skip\",\"b\":\"kept\"}",
            "{\"a\":1}xyz",
            "{\"a\":1} {\"b\":\"second\"}",
            "   ",
            "",
            "null",
            "1",
            "\"str\"",
            "[]",
            "[{\"a\":1},{\"a\":2,\"b\":\"two\"}]",
            "[{\"a\":1},null,{\"a\":3}]",
            "[{\"a\":1},5,{\"a\":3}]",
            "[{\"a\":1},{\"a\":\"bad\"},{\"a\":3}]",
            "[{\"a\":1},{\"a\":",
            "[[{\"a\":1}]]",
            "{",
            "{\"a\":1",
            "{\"a\":1,}",
            "{\"a\":01}",
            "{\"a\":-}",
            "{'a':1}",
            "{a:1}",
            "{\"a\":NaN}",
            "{\"a\":1,\"zz\":tru}",
            "{\"a\":1,\"zz\":\"\\q\"}",
            "{\"a\":\"bad\",\"b\":\"after\"}",
            "{\"b\":\"before\",\"a\":\"bad\"}",
            "{\"c\":{\"x\":\"bad\",\"y\":[\"k\"]},\"a\":9}",
            "{\"c\":{\"y\":5},\"a\":9}",
            "{\"flag\":{},\"a\":1,\"b\":\"after\"}",
            "{\"flag\":[1,2],\"a\":1}",
            "{\"a\":[1,2],\"b\":\"after\"}",
            "{\"a\":{\"q\":1,\"b\":\"inner\"},\"b\":\"outer\"}",
            "{\"e\":123456789.99,\"a\":1}",
            "{\"d\":{\"k\":\"NaN\",\"j\":\"x\"},\"a\":1}",
            "{\"b\":{\"n\":[1,2,{\"m\":null}]},\"a\":1}",
            "{\"a\":1,\"b\":\"x\",\"flag\":true,\"c\":{},\"d\":{},\"e\":1,\"extra\":[}",
            "{\"a\":1,\"b\":\"x\",\"flag\":true,\"c\":{},\"d\":{},\"e\":1,\"extra\":1}garbage",
            "\uFEFF{\"a\":1}",
            "{\"a\":1 , \"b\" : \"sp\" }",
            "{\"a\":1}\n",
            "\n{\"a\":2}",
            "{\"a\":1,\"b\":\"x\"}]",
            "{\"a\":1e2}",
            "{\"a\":\"\"}",
            "{\"b\":\"\\ud83d\"}",
            "{\"a\":1,\"b\":\"\\u0000\"}",
            "{\"a\":1,\"b\":\"x\",\"flag\":true,\"c\":{\"x\":1,\"y\":[]},\"d\":{\"z\":2},"
                    + "\"e\":1,\"a\":99}",
            "{\"a\":2,\"b\":null,\"flag\":null,\"c\":{\"x\":null,\"y\":null},\"d\":null,"
                    + "\"e\":null}",
            "{\"c\":{\"y\":[\"a\",{\"o\":1},[2]]}}",
            "{\"d\":{\"k\":[1]},\"a\":3}",
        };
        for (String[] options : new String[][] {DEFAULT, IGNORE, MISSING}) {
            decodeMany(out, wide, options, messages);
            decodeBytes(out, wide, options, null);
            decodeBytes(out, wide, options, new byte[] {'{', '"', 'b', '"', ':', '"', (byte) 0xff, '"', '}'});
            decodeBytes(out, wide, options, new byte[] {'{', '"', 'b', '"', ':', '"', (byte) 0xc3, '"', '}'});
            decodeBytes(out, wide, options, new byte[] {'{', '"', 'b', '"', ':', '"', (byte) 0xe2, (byte) 0x82, (byte) 0xac, '"', '}'});
            decodeBytes(out, wide, options, new byte[] {'{', '"', 'z', '"', ':', '"', (byte) 0xff, '"', ',', '"', 'a', '"', ':', '1', '}'});
            decodeBytes(out, wide, options, new byte[] {'{', '"', 'a', '"', ':', '1', '}', (byte) 0xff});
        }
        // Deep nesting: Jackson's default limit is 1000 levels (the message's object is one).
        decodeMany(out, wide, DEFAULT, nest("zz", 998), nest("zz", 999), nest("zz", 1000),
                nest("b", 999), nest("b", 1000));
        decodeMany(out, wide, IGNORE, nest("zz", 999), nest("b", 1000));
        // A table schema with fewer fields than the message (a projection).
        decodeMany(out, "ROW<b STRING>", DEFAULT, messages[0], messages[6]);
        decodeMany(out, "ROW<b STRING>", MISSING, "{\"a\":1}");
    }

    /** {"key":[[[...]]]} with `levels` nested arrays. */
    static String nest(String key, int levels) {
        return "{\"" + key + "\":" + "[".repeat(levels) + "]".repeat(levels) + ",\"a\":1}";
    }

    static void single(StringBuilder out, String type, String... values) throws Exception {
        singleWith(out, type, DEFAULT, values);
        singleWith(out, type, IGNORE, values);
    }

    static void singleWith(StringBuilder out, String type, String[] options, String... values)
            throws Exception {
        String[] messages = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            messages[i] = "{\"v\":" + values[i] + "}";
        }
        decodeMany(out, "ROW<v " + type + ">", options, messages);
        if (options == DEFAULT) {
            // Present but NULL, and absent.
            decodeMany(out, "ROW<v " + type + ">", MISSING, "{\"v\":null}", "{\"w\":1}");
        }
    }

    static void decodeMany(StringBuilder out, String schema, String[] options, String... messages)
            throws Exception {
        for (String m : messages) {
            decodeBytes(out, schema, options, m.getBytes(StandardCharsets.UTF_8));
        }
    }

    static void decodeBytes(StringBuilder out, String schema, String[] options, byte[] message)
            throws Exception {
        RowType rowType = (RowType) LogicalTypeParser.parse(schema, JsonFormatVectors.class.getClassLoader());
        boolean failOnMissing = has(options, "fail-on-missing-field");
        boolean ignore = has(options, "ignore-parse-errors");
        TimestampFormat format = has(options, "timestamp-format.standard")
                ? TimestampFormat.ISO_8601
                : TimestampFormat.SQL;
        JsonParserRowDataDeserializationSchema schemaImpl = new JsonParserRowDataDeserializationSchema(
                rowType, InternalTypeInfo.of(rowType), failOnMissing, ignore, format);
        schemaImpl.open(null);
        List<RowData> rows = new ArrayList<>();
        out.append("{\"kind\":\"decode\",\"schema\":");
        Json.string(out, schema);
        out.append(",\"options\":");
        options(out, options);
        out.append(",\"message\":");
        if (message == null) {
            out.append("null");
        } else {
            Json.string(out, Json.hex(message));
        }
        try {
            schemaImpl.deserialize(message, new ListCollector<>(rows));
            out.append(",\"rows\":[");
            for (int i = 0; i < rows.size(); i++) {
                out.append(i == 0 ? "" : ",");
                canon(out, rows.get(i), rowType);
            }
            out.append("]}\n");
        } catch (Throwable t) {
            out.append(",\"error\":{\"class\":");
            Json.string(out, t.getClass().getName());
            Throwable cause = t.getCause();
            out.append(",\"cause_class\":");
            Json.string(out, cause == null ? "" : cause.getClass().getName());
            out.append(",\"cause\":");
            Json.string(out, cause == null || cause.getMessage() == null ? "" : cause.getMessage());
            out.append("}}\n");
        }
    }

    static boolean has(String[] options, String key) {
        for (int i = 0; i < options.length; i += 2) {
            if (options[i].equals(key)) {
                return true;
            }
        }
        return false;
    }

    static String get(String[] options, String key, String dflt) {
        for (int i = 0; i < options.length; i += 2) {
            if (options[i].equals(key)) {
                return options[i + 1];
            }
        }
        return dflt;
    }

    static void options(StringBuilder out, String[] options) {
        out.append('{');
        for (int i = 0; i < options.length; i += 2) {
            out.append(i == 0 ? "" : ",");
            Json.string(out, options[i]);
            out.append(':');
            Json.string(out, options[i + 1]);
        }
        out.append('}');
    }

    // ---------------------------------------------------------------- canonical values

    /** Whether {@link #canon} sorts map entries by key (decoded maps) or keeps their order. */
    static boolean sortMaps = true;

    static void canon(StringBuilder out, Object v, LogicalType type) {
        if (v == null) {
            out.append("null");
            return;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
            case INTERVAL_YEAR_MONTH:
            case INTERVAL_DAY_TIME:
                out.append(v);
                return;
            case FLOAT:
                out.append("\"f32:").append(Json.hexBits(Float.floatToRawIntBits((Float) v), 8)).append('"');
                return;
            case DOUBLE:
                out.append("\"f64:").append(Json.hexBits(Double.doubleToRawLongBits((Double) v), 16)).append('"');
                return;
            case DECIMAL:
                Json.string(out, ((DecimalData) v).toBigDecimal().unscaledValue().toString());
                return;
            case CHAR:
            case VARCHAR:
                Json.string(out, v.toString());
                return;
            case BINARY:
            case VARBINARY:
                Json.string(out, Json.hex((byte[]) v));
                return;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                TimestampData ts = (TimestampData) v;
                out.append('"').append(ts.getMillisecond()).append(':').append(ts.getNanoOfMillisecond()).append('"');
                return;
            case ROW:
                RowType rowType = (RowType) type;
                RowData row = (RowData) v;
                out.append('[');
                for (int i = 0; i < rowType.getFieldCount(); i++) {
                    out.append(i == 0 ? "" : ",");
                    canon(out, RowData.createFieldGetter(rowType.getTypeAt(i), i).getFieldOrNull(row), rowType.getTypeAt(i));
                }
                out.append(']');
                return;
            case ARRAY:
                LogicalType element = ((ArrayType) type).getElementType();
                ArrayData array = (ArrayData) v;
                ArrayData.ElementGetter getter = ArrayData.createElementGetter(element);
                out.append('[');
                for (int i = 0; i < array.size(); i++) {
                    out.append(i == 0 ? "" : ",");
                    canon(out, getter.getElementOrNull(array, i), element);
                }
                out.append(']');
                return;
            case MAP:
                MapType mapType = (MapType) type;
                MapData map = (MapData) v;
                ArrayData.ElementGetter kg = ArrayData.createElementGetter(mapType.getKeyType());
                ArrayData.ElementGetter vg = ArrayData.createElementGetter(mapType.getValueType());
                // Decoded maps (HashMaps) sorted by key; encoder input in its entry order.
                Map<String, String> entries = sortMaps ? new TreeMap<>() : new LinkedHashMap<>();
                for (int i = 0; i < map.size(); i++) {
                    StringBuilder k = new StringBuilder();
                    canon(k, kg.getElementOrNull(map.keyArray(), i), mapType.getKeyType());
                    StringBuilder e = new StringBuilder("[").append(k).append(',');
                    canon(e, vg.getElementOrNull(map.valueArray(), i), mapType.getValueType());
                    entries.put(k.toString(), e.append(']').toString());
                }
                out.append('[').append(String.join(",", entries.values())).append(']');
                return;
            default:
                throw new IllegalArgumentException("type " + type);
        }
    }

    // ---------------------------------------------------------------- encode

    static final String ENC_SCHEMA = "ROW<b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, "
            + "f FLOAT, d DOUBLE, dm DECIMAL(10, 2), dm38 DECIMAL(38, 18), s STRING, c CHAR(3), "
            + "bin BYTES, dt DATE, tm TIME(3), ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), "
            + "ts9 TIMESTAMP(9), ltz TIMESTAMP_LTZ(3), iym INTERVAL YEAR TO MONTH, "
            + "idt INTERVAL DAY TO SECOND(3), r ROW<x INT, y STRING>, arr ARRAY<INT>, "
            + "m MAP<STRING, BIGINT>>";

    static StringData str(String s) {
        return StringData.fromString(s);
    }

    static TimestampData ts(String iso) {
        return TimestampData.fromLocalDateTime(LocalDateTime.parse(iso));
    }

    static GenericMapData map(Object... kv) {
        Map<Object, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i] == null ? null : str((String) kv[i]), kv[i + 1]);
        }
        return new GenericMapData(m);
    }

    static List<GenericRowData> encodeRows() {
        List<GenericRowData> rows = new ArrayList<>();
        rows.add(GenericRowData.of(true, (byte) 1, (short) 2, 3, 4L, 1.5f, 2.25d,
                DecimalData.fromBigDecimal(new BigDecimal("12.30"), 10, 2),
                DecimalData.fromBigDecimal(new BigDecimal("1.5"), 38, 18),
                str("hello"), str("abc"), new byte[] {1, 2, 3}, 19723, 45296789,
                ts("2024-01-02T03:04:05.123"), ts("2024-01-02T03:04:05.123456"),
                ts("2024-01-02T03:04:05.123456789"), ts("2024-01-02T03:04:05.120"), 14, 86400000L,
                GenericRowData.of(7, str("in")), new GenericArrayData(new Object[] {1, null, 3}),
                map("k", 1L, "n", null)));
        rows.add(new GenericRowData(23));
        rows.add(GenericRowData.of(false, Byte.MIN_VALUE, Short.MAX_VALUE, Integer.MIN_VALUE,
                Long.MAX_VALUE, Float.NaN, Double.POSITIVE_INFINITY,
                DecimalData.fromBigDecimal(new BigDecimal("-0.01"), 10, 2),
                DecimalData.fromBigDecimal(new BigDecimal("0.00000001"), 38, 18),
                str("q\"b\\s/\n\t\r\b\f\u0001\u001f\u007f é \u2028 😀"), str(""), new byte[0], -1,
                0, ts("1969-12-31T23:59:59.999"), ts("1970-01-01T00:00:00"),
                ts("1969-12-31T23:59:59.999999999"), ts("1970-01-01T00:00:00.001"), -3, -1L,
                GenericRowData.of(null, null), new GenericArrayData(new Object[0]), map()));
        rows.add(GenericRowData.of(null, null, null, null, null, -0.0f, Double.NEGATIVE_INFINITY,
                DecimalData.fromBigDecimal(new BigDecimal("0"), 10, 2),
                DecimalData.fromBigDecimal(new BigDecimal("-12345678901234567890.123456789012345678"), 38, 18),
                str("x"), null, new byte[] {(byte) 0xff, (byte) 0xfe, 0x00, 0x7f}, 2932896,
                86399999, ts("+10000-01-01T00:00:00"), ts("0001-01-01T00:00:00.000001"),
                ts("2262-04-11T23:47:16.854775807"), ts("2024-02-29T12:00:00.5"), 0, 123456789L,
                null, null, map("only", -5L)));
        rows.add(GenericRowData.of(true, null, null, 5, null, 1.0E10f, 1.0E-5d,
                DecimalData.fromBigDecimal(new BigDecimal("99999999.99"), 10, 2),
                DecimalData.fromBigDecimal(new BigDecimal("1E+19"), 38, 18), null, null, null,
                null, 1000, null, null, null, null, null, null,
                GenericRowData.of(1, str("x")), new GenericArrayData(new Object[] {null}),
                map("b", 2L, "a", 1L)));
        rows.add(GenericRowData.of(null, null, null, null, null, 0.1f, 123.456d,
                DecimalData.fromBigDecimal(new BigDecimal("0.5"), 10, 2),
                DecimalData.fromBigDecimal(new BigDecimal("0.000001"), 38, 18), str("\u0000"),
                null, null, -719162, 1, null, null, null, null, null, null, null, null,
                map(null, 9L, "z", 8L)));
        rows.add(GenericRowData.of(null, null, null, null, null, 3.4028235e38f, 4.9e-324,
                null, DecimalData.fromBigDecimal(new BigDecimal("123.456"), 38, 18), null, null,
                null, null, null, null, null, null, null, null, null, null, null,
                map("z", 1L, null, null)));
        rows.add(GenericRowData.of(null, null, null, null, null, 1.0E-5f, 1.0E7d, null, null,
                null, null, null, null, null, null, null, null, null, null, null, null, null,
                null));
        return rows;
    }

    static void encodeCases(StringBuilder out) throws Exception {
        String[][] optionSets = {
            {},
            {"timestamp-format.standard", "ISO-8601"},
            {"encode.decimal-as-plain-number", "true"},
            {"encode.ignore-null-fields", "true"},
            {"map-null-key.mode", "DROP"},
            {"map-null-key.mode", "LITERAL", "map-null-key.literal", "nk"},
            {"map-null-key.mode", "LITERAL"},
        };
        RowType rowType = (RowType) LogicalTypeParser.parse(ENC_SCHEMA, JsonFormatVectors.class.getClassLoader());
        for (String[] options : optionSets) {
            encode(out, ENC_SCHEMA, rowType, options, encodeRows());
        }
        // Reuse of the serializer's tree across rows with ignore-null-fields: a field NULL in
        // one row and set in the next.
        String small = "ROW<a INT, b STRING, c ROW<x INT, y INT>, d ARRAY<INT>>";
        RowType smallType = (RowType) LogicalTypeParser.parse(small, JsonFormatVectors.class.getClassLoader());
        List<GenericRowData> rows = new ArrayList<>();
        rows.add(GenericRowData.of(1, str("x"), GenericRowData.of(1, 2), new GenericArrayData(new Object[] {1, 2})));
        rows.add(GenericRowData.of(2, null, GenericRowData.of(null, 3), new GenericArrayData(new Object[] {3})));
        rows.add(GenericRowData.of(null, str("y"), null, null));
        rows.add(GenericRowData.of(4, str("z"), GenericRowData.of(5, null), new GenericArrayData(new Object[0])));
        rows.add(new GenericRowData(4));
        for (String[] options : new String[][] {{}, {"encode.ignore-null-fields", "true"}}) {
            encode(out, small, smallType, options, rows);
        }
    }

    static void encode(StringBuilder out, String schema, RowType rowType, String[] options,
            List<GenericRowData> rows) throws Exception {
        TimestampFormat format = has(options, "timestamp-format.standard")
                ? TimestampFormat.ISO_8601
                : TimestampFormat.SQL;
        JsonFormatOptions.MapNullKeyMode mode = JsonFormatOptions.MapNullKeyMode.valueOf(
                get(options, "map-null-key.mode", "FAIL"));
        JsonRowDataSerializationSchema ser = new JsonRowDataSerializationSchema(rowType, format,
                mode, get(options, "map-null-key.literal", "null"),
                Boolean.parseBoolean(get(options, "encode.decimal-as-plain-number", "false")),
                Boolean.parseBoolean(get(options, "encode.ignore-null-fields", "false")));
        ser.open(null);
        out.append("{\"kind\":\"encode\",\"schema\":");
        Json.string(out, schema);
        out.append(",\"options\":");
        options(out, options);
        out.append(",\"rows\":[");
        sortMaps = false;
        for (int i = 0; i < rows.size(); i++) {
            out.append(i == 0 ? "" : ",");
            canon(out, rows.get(i), rowType);
        }
        sortMaps = true;
        out.append("],\"out\":[");
        for (int i = 0; i < rows.size(); i++) {
            out.append(i == 0 ? "" : ",");
            try {
                Json.string(out, new String(ser.serialize(rows.get(i)), StandardCharsets.UTF_8));
            } catch (Throwable t) {
                Throwable root = t;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                out.append("{\"error\":");
                Json.string(out, String.valueOf(root.getMessage()));
                out.append('}');
            }
        }
        out.append("]}\n");
    }
}
