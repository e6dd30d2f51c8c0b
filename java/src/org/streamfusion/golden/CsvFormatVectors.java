package org.streamfusion.golden;

import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.formats.csv.CsvFormatFactory;
import org.apache.flink.table.connector.format.ProjectableDecodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.table.types.utils.TypeConversions;

/**
 * Golden vectors for {@code 'format' = 'csv'}: messages decoded and rows encoded by the
 * released Flink 2.3.0 {@code flink-csv} schemas, built exactly as {@code CsvFormatFactory}
 * builds them from the DDL options (the factory itself is called, so option validation is
 * Flink's too).
 *
 * <p>Output lines after the header:
 *
 * <ul>
 *   <li>{@code {"case":"decode","schema","options","message","row","error"}}: {@code message}
 *       is the message text (UTF-8) or null; {@code row} is the decoded row (see {@link Values}),
 *       or null when Flink's deserializer returned null (no row); {@code error} is null or the
 *       exception Flink threw ({@code class}, {@code message}, {@code cause}).
 *   <li>{@code {"case":"encode","schema","options","row","bytes","error"}}: {@code row} is the
 *       row handed to the serializer (see {@link Values}); {@code bytes} the serialized message
 *       in lowercase hex.
 *   <li>{@code {"case":"construct","schema","options","error"}}: options or schemas the factory
 *       or the schema builder refuses ({@code error} null when accepted).
 * </ul>
 */
public final class CsvFormatVectors {
    static final String GENERATOR = "java/src/org/streamfusion/golden/CsvFormatVectors.java";

    static final String WIDE =
            "ROW<c0 BOOLEAN, c1 TINYINT, c2 SMALLINT, c3 INT, c4 BIGINT, c5 FLOAT, c6 DOUBLE,"
                    + " c7 DECIMAL(10, 2), c8 STRING, c9 BYTES, c10 DATE, c11 TIME(3),"
                    + " c12 TIMESTAMP(3), c13 TIMESTAMP_LTZ(6), c14 ARRAY<INT>,"
                    + " c15 ROW<x INT, y STRING>>";
    static final String SMALL = "ROW<a INT, b STRING, c DOUBLE>";

    static final StringBuilder OUT = new StringBuilder();

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: CsvFormatVectors OUT.jsonl");
            System.exit(2);
        }
        OUT.append("{\"generator\":");
        Json.string(OUT, GENERATOR);
        OUT.append(",\"flink\":\"2.3.0\",\"java\":");
        Json.string(OUT, System.getProperty("java.specification.version"));
        OUT.append("}\n");

        decodeCases();
        encodeCases();
        constructCases();
        Files.write(Path.of(args[0]), OUT.toString().getBytes(StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------- decode

    static void decodeCases() {
        Map<String, String> none = opts();
        decode(WIDE, none,
                "true,1,2,3,4,1.5,2.5,12.34,hello,aGVsbG8=,2020-01-02,12:34:56.789,"
                        + "2020-01-02 03:04:05.123,2020-01-02 03:04:05.123456,1;2;3,7;x",
                "false,-128,-32768,-2147483648,-9223372036854775808,-0.0,1e300,-99999999.99,"
                        + "\"a,b\",,1969-12-31,00:00:00,1969-12-31 23:59:59.999,"
                        + "1970-01-01 00:00:00Z,,",
                ",,,,,,,,,,,,,,,",
                "TRUE, 127 , 32767 , 2147483647 , 9223372036854775807 , NaN , -Infinity ,"
                        + " 1.005 , padded , AA== ,2020-02-29,23:59:59.999,"
                        + "2020-01-02T03:04:05,2020-01-02 03:04:05.1234567,;, ;",
                "yes,1,2,3,4,5,6,7,s,AA==,2020-01-01,00:00:01,2020-01-01 00:00:00,"
                        + "2020-01-01 00:00:00,1,2;3;extra");
        for (Map<String, String> o : List.of(none, opts("ignore-parse-errors", "true"))) {
            decode(WIDE, o,
                    "x,1,2,3,4,5,6,7,s,AA==,2020-01-01,00:00:01,2020-01-01 00:00:00,"
                            + "2020-01-01 00:00:00,1,2;y",
                    "true,1000,2,3,4,5,6,7,s,AA==,2020-01-01,00:00:01,2020-01-01 00:00:00,"
                            + "2020-01-01 00:00:00,1;x;3,2;y",
                    "true,1,2,3,4,5,6,7,s,@@,2020-13-01,25:00:00,2020-01-01,"
                            + "2020-01-01T00:00:00,1,2;y");
        }

        String[] structural = {
            "1,x,2.5", "1,\"x,y\",2.5", "1,\"say \"\"hi\"\"\",2", "1,\"multi\nline\",2",
            "1,x,2.5\n", "1,x,2.5\r\n", "1,x,2.5\r", "1,x", "1", "1,x,2.5,extra", "1,x,2.5,",
            "", "\n", "\r\n", " ", "# comment", "#c\n1,x,2", "1,x,2\n3,y,4", "1,x,2\n\n",
            "\n1,x,2", " 1 , x , 2.5 ", "1,,", ",,", "1,\"\",2", "1,\"unterminated,2",
            "1,x\"y,2", "1,\"x\"y,2", "1,x\\,y,2", "1,x\\\\y,2", "1,\"a\\\"b\",2", "1,'a,b',2",
            "1,'it''s',2", "1,n/a,2", "n/a,x,n/a", "1,\"n/a\",2", "1\tx\t2", "1|x|2",
            "1;x;2", "null,null,null", "1,null,2", " \"q\" ,x,2", "1, \"q\" ,2", "\"1\",\"x\",\"2\"",
            "1,é€😀,2", "1,x,2 # tail", "1,#x,2", "1,x,0x10", "+1,x,+2", "1_0,x,1d",
            "1,\"\"\"\",2", "1,\"\n\",2", "1,x,\"2.5\"",
        };
        List<Map<String, String>> optionSets = List.of(
                none,
                opts("ignore-parse-errors", "true"),
                opts("allow-comments", "true"),
                opts("null-literal", "n/a"),
                opts("quote-character", "'"),
                opts("disable-quote-character", "true"),
                opts("escape-character", "\\"),
                opts("field-delimiter", "\\t"),
                opts("field-delimiter", "|", "array-element-delimiter", ","));
        for (Map<String, String> o : optionSets) {
            decode(SMALL, o, structural);
        }
        decode(SMALL, none, (String) null);
        decode(SMALL, opts("ignore-parse-errors", "true"), (String) null);

        // One typed column (then an INT), many texts per type.
        typed("BOOLEAN", "true", "false", "TRUE", " true ", "yes", "1", "", "null", "\" false \"");
        typed("TINYINT", "0", "-128", "127", "128", " 5 ", "+5", "1.0", "", "0x1", "1e1");
        typed("SMALLINT", "-32768", "32767", "32768", "007", "");
        typed("INT", "2147483647", "-2147483648", "2147483648", " 42", "4_2", "", "٣");
        typed("BIGINT", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                "12 ", "");
        typed("FLOAT", "1.5", "3.4028235e38", "1e39", "1e-46", "NaN", "-Infinity", "0x1p3",
                "1f", "2d", " 1.25 ", "", ".5", "5.", "-0");
        typed("DOUBLE", "1.5", "1e308", "1e309", "4.9e-324", "Infinity", "+1", "1_000", "",
                "0.1", "123456789012345678901234567890");
        typed("DECIMAL(5, 2)", "1.5", "123.456", "123.455", "-123.455", "999.995", "1000",
                "1e2", "1E-3", " 1.5", "1.5 ", "", "+1.00", ".5", "-0", "abc", "1e400");
        typed("DECIMAL(38, 0)", "99999999999999999999999999999999999999",
                "100000000000000000000000000000000000000", "0.5", "-0.5", "1.5");
        typed("STRING", "", " a ", "\"\"", "\" a \"", "é", "n/a", "\"x\"\"y\"");
        typed("VARCHAR(3)", "abcdef");
        typed("CHAR(3)", "a");
        typed("BYTES", "", "AA==", "aGVsbG8=", "aGVsbG8", "a GVsbG8=", "@@@@", "AAA=",
                "aGVs\nbG8=", "-_8=", "+/8=", " AA==");
        typed("BINARY(2)", "AQID");
        typed("DATE", "2020-01-02", "2020-1-2", "0001-01-01", "9999-12-31", "2020-02-30",
                " 2020-01-02", "20200102", "", "-0001-01-01", "+10000-01-01");
        typed("TIME(0)", "12:34:56", "12:34:56.789", "12:34", "1:2:3", "24:00:00", "", " 12:00:00");
        typed("TIME(3)", "12:34:56.789", "12:34:56.7891", "12:34:56.1", "23:59:59.999999999");
        typed("TIMESTAMP(3)", "2020-01-02 03:04:05", "2020-01-02 03:04:05.123",
                "2020-01-02 03:04:05.1239", "2020-01-02T03:04:05", "2020-01-02 03:04",
                "2020-01-02", " 2020-01-02 03:04:05 ", "2020-1-2 3:4:5", "", "2020-01-02 03:04:05Z",
                "0001-01-01 00:00:00", "9999-12-31 23:59:59.999");
        typed("TIMESTAMP(9)", "2020-01-02 03:04:05.123456789", "2020-01-02 03:04:05.1",
                "1900-01-01 00:00:00.000000001", "2300-01-01 00:00:00");
        typed("TIMESTAMP_LTZ(3)", "2020-01-02 03:04:05.123Z", "2020-01-02 03:04:05.123",
                "2020-01-02 03:04:05Z", "2020-01-02T03:04:05Z", "2020-01-02 03:04:05+01:00", "");
        typed("ARRAY<INT>", "1;2;3", "", ";", "1;;3", "1; 2 ;3", "1;x", "\"1;2\"", "null",
                "1;null");
        typed("ARRAY<STRING>", "a;b", "a", "", ";", " a ; b ", "a;;b");
        typed("ARRAY<DOUBLE>", "1.5;NaN", "1;x");
        typed("ARRAY<DECIMAL(3, 1)>", "1.25;-1.25;1000");
        typed("ARRAY<BOOLEAN>", "true;false;maybe");
        typed("ARRAY<DATE>", "2020-01-01;1970-01-01");
        typed("ARRAY<TIMESTAMP(3)>", "2020-01-01 00:00:00.5;x");
        typed("ARRAY<BYTES>", "AA==;aGk=");
        typed("ROW<a INT, b STRING>", "1;x", "1", "1;x;y", "", ";", "x;y", " 1 ;y");
        typed("ROW<a DOUBLE, b DATE, c BOOLEAN>", "1.5;2020-01-01;true", ";;");
    }

    static void typed(String type, String... texts) {
        String schema = "ROW<v " + type + ", z INT>";
        for (Map<String, String> o :
                List.of(opts(), opts("ignore-parse-errors", "true"), opts("null-literal", "null"))) {
            String[] messages = new String[texts.length];
            for (int i = 0; i < texts.length; i++) {
                messages[i] = quoteIfNeeded(texts[i]) + ",9";
            }
            decode(schema, o, messages);
        }
    }

    static String quoteIfNeeded(String s) {
        if (s.indexOf(',') >= 0 || s.indexOf('\n') >= 0) {
            return "\"" + s.replace("\"", "\"\"") + "\"";
        }
        return s;
    }

    static void decode(String schema, Map<String, String> options, String... messages) {
        RowType type = rowType(schema);
        DeserializationSchema<RowData> deser;
        try {
            deser = deserializer(type, options);
        } catch (Throwable e) {
            construct(schema, options, e);
            return;
        }
        for (String m : messages) {
            OUT.append("{\"case\":\"decode\",\"schema\":");
            Json.string(OUT, schema);
            OUT.append(",\"options\":");
            options(options);
            OUT.append(",\"message\":");
            if (m == null) {
                OUT.append("null");
            } else {
                Json.string(OUT, m);
            }
            try {
                RowData row = deser.deserialize(m == null ? null : m.getBytes(StandardCharsets.UTF_8));
                OUT.append(",\"row\":");
                if (row == null) {
                    OUT.append("null");
                } else {
                    Values.row(OUT, type, row);
                }
                OUT.append(",\"error\":null}\n");
            } catch (Throwable e) {
                OUT.append(",\"row\":null,\"error\":");
                Values.error(OUT, e);
                OUT.append("}\n");
            }
        }
    }

    static DeserializationSchema<RowData> deserializer(RowType type, Map<String, String> options)
            throws Exception {
        DynamicTableSource.Context ctx = (DynamicTableSource.Context) Proxy.newProxyInstance(
                CsvFormatVectors.class.getClassLoader(),
                new Class<?>[] {DynamicTableSource.Context.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("createTypeInformation")) {
                        Object a = args[0];
                        LogicalType t = a instanceof DataType ? ((DataType) a).getLogicalType() : (LogicalType) a;
                        return InternalTypeInfo.of(t);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        int[][] projection = new int[type.getFieldCount()][];
        for (int i = 0; i < projection.length; i++) {
            projection[i] = new int[] {i};
        }
        DeserializationSchema<RowData> d = ((ProjectableDecodingFormat<DeserializationSchema<RowData>>) new CsvFormatFactory()
                .createDecodingFormat(null, Configuration.fromMap(options)))
                .createRuntimeDecoder(ctx, TypeConversions.fromLogicalToDataType(type), projection);
        d.open(null);
        return d;
    }

    // ---------------------------------------------------------------- encode

    static void encodeCases() throws Exception {
        RowType wide = rowType(WIDE);
        List<GenericRowData> rows = new ArrayList<>();
        rows.add(wideRow(true, (byte) 1, (short) 2, 3, 4L, 1.5f, 2.5, "12.34", "hello",
                new byte[] {1, 2, 3}, 18263, 45296789, ts(2020, 1, 2, 3, 4, 5, 123_000_000),
                ts(2020, 1, 2, 3, 4, 5, 123_456_000), new Integer[] {1, 2, 3}, row(7, "x")));
        rows.add(new GenericRowData(16));
        rows.add(wideRow(false, Byte.MIN_VALUE, Short.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE,
                -0.0f, -0.0, "-99999999.99", "", new byte[0], -1, 0,
                ts(1969, 12, 31, 23, 59, 59, 999_000_000), ts(1970, 1, 1, 0, 0, 0, 0),
                new Integer[] {}, row(null, null)));
        String[] strings = {
            "a,b", "q\"q", "nl\nx", "cr\rx", " lead", "trail ", "#hash", "tab\tx", "back\\slash",
            "plain", "semi;colon", "pipe|x", "é€😀", "'single'", "x#", "\"", "a\"", "=1", "-x",
            "null", "n/a", "\u0001ctl", "\u00a0nbsp",
        };
        for (String s : strings) {
            rows.add(wideRow(null, null, null, null, null, null, null, null, s, null, null, null,
                    null, null, null, row(1, s)));
        }
        float[] floats = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 1.0E10f,
            1.0E-5f, 0.001f, 1234567.0f, 12345678.0f, Float.MIN_VALUE, Float.MAX_VALUE, 0.1f};
        double[] doubles = {Double.NaN, Double.NEGATIVE_INFINITY, 1.0E10, 1.0E-5, 0.001, 1234567.0,
            12345678.0, Double.MIN_VALUE, Double.MAX_VALUE, 0.1, 100.0, 1.0E7, 9999999.0};
        for (int i = 0; i < Math.max(floats.length, doubles.length); i++) {
            GenericRowData r = new GenericRowData(16);
            if (i < floats.length) {
                r.setField(5, floats[i]);
            }
            if (i < doubles.length) {
                r.setField(6, doubles[i]);
            }
            rows.add(r);
        }
        String[] decimals = {"0.00", "1.00", "-0.01", "12345678.90", "0.10", "100.00"};
        for (String d : decimals) {
            GenericRowData r = new GenericRowData(16);
            r.setField(7, DecimalData.fromBigDecimal(new BigDecimal(d), 10, 2));
            rows.add(r);
        }
        int[] times = {0, 1, 999, 1000, 60_000, 45296000, 45296100, 45296120, 86_399_999};
        long[][] stamps = {{0, 0}, {1, 0}, {1000, 0}, {-1, 0}, {1577934245000L, 100_000},
            {1577934245120L, 0}, {-62135596800000L, 0}, {253402300799999L, 999_000}};
        for (int i = 0; i < Math.max(times.length, stamps.length); i++) {
            GenericRowData r = new GenericRowData(16);
            if (i < times.length) {
                r.setField(11, times[i]);
                r.setField(10, times[i] / 1000 - 40000);
            }
            if (i < stamps.length) {
                r.setField(12, TimestampData.fromEpochMillis(stamps[i][0] / 1000 * 1000 + (stamps[i][0] % 1000), 0));
                r.setField(13, TimestampData.fromEpochMillis(stamps[i][0], (int) stamps[i][1]));
            }
            rows.add(r);
        }
        GenericRowData arrays = new GenericRowData(16);
        arrays.setField(14, new GenericArrayData(new Integer[] {1, null, 3}));
        arrays.setField(15, row(null, "a;b"));
        rows.add(arrays);
        GenericRowData arrays2 = new GenericRowData(16);
        arrays2.setField(14, new GenericArrayData(new Integer[] {null}));
        arrays2.setField(15, row(-1, ""));
        rows.add(arrays2);

        List<Map<String, String>> optionSets = List.of(
                opts(),
                opts("null-literal", "n/a"),
                opts("field-delimiter", ";", "array-element-delimiter", "|"),
                opts("quote-character", "'"),
                opts("disable-quote-character", "true"),
                opts("escape-character", "\\"),
                opts("field-delimiter", "\\t"));
        for (int i = 0; i < optionSets.size(); i++) {
            // The first option set sees every row; the others a representative subset.
            List<GenericRowData> subset = i == 0 ? rows : rows.subList(0, Math.min(rows.size(), 3 + strings.length));
            encode(WIDE, wide, optionSets.get(i), subset);
        }

        // DECIMAL text: plain vs scientific notation.
        String decSchema = "ROW<v DECIMAL(38, 10), w DECIMAL(5, 0), x DECIMAL(38, 38)>";
        RowType dec = rowType(decSchema);
        List<GenericRowData> decRows = new ArrayList<>();
        String[][] decValues = {
            {"0", "0", "0"}, {"1E+20", "1E+2", "1E-30"}, {"0.0000000001", "12345", "0.5"},
            {"-1234567890123456789012345678", "-99999", "-0.00000000000000000000000000000000000001"},
            {"100", "100", "0.1"}, {"1E-7", "10", "0.0000001"},
        };
        for (String[] v : decValues) {
            GenericRowData r = new GenericRowData(3);
            r.setField(0, DecimalData.fromBigDecimal(new BigDecimal(v[0]), 38, 10));
            r.setField(1, DecimalData.fromBigDecimal(new BigDecimal(v[1]), 5, 0));
            r.setField(2, DecimalData.fromBigDecimal(new BigDecimal(v[2]), 38, 38));
            decRows.add(r);
        }
        encode(decSchema, dec, opts(), decRows);
        encode(decSchema, dec, opts("write-bigdecimal-in-scientific-notation", "false"), decRows);
        encode(decSchema, dec, opts("write-bigdecimal-in-scientific-notation", "true"), decRows);

        // Timestamps of every precision, arrays of other element types.
        String tsSchema = "ROW<a TIMESTAMP(0), b TIMESTAMP(6), c TIMESTAMP(9), d TIMESTAMP_LTZ(9), e TIME(0)>";
        RowType tsType = rowType(tsSchema);
        List<GenericRowData> tsRows = new ArrayList<>();
        long[][] tsv = {{0, 0}, {1577934245123L, 456_789}, {-1, 999_999}, {1577934245000L, 1}};
        for (long[] v : tsv) {
            GenericRowData r = new GenericRowData(5);
            r.setField(0, TimestampData.fromEpochMillis(v[0] - Math.floorMod(v[0], 1000)));
            r.setField(1, TimestampData.fromEpochMillis(v[0], (int) (v[1] / 1000 * 1000)));
            r.setField(2, TimestampData.fromEpochMillis(v[0], (int) v[1]));
            r.setField(3, TimestampData.fromEpochMillis(v[0], (int) v[1]));
            r.setField(4, (int) Math.floorMod(v[0], 86_400_000L) / 1000 * 1000);
            tsRows.add(r);
        }
        encode(tsSchema, tsType, opts(), tsRows);

        String arrSchema = "ROW<a ARRAY<STRING>, b ARRAY<DOUBLE>, c ARRAY<BOOLEAN>, d ARRAY<BYTES>,"
                + " e ARRAY<DATE>, f ARRAY<DECIMAL(4, 1)>, g ROW<p BOOLEAN, q BYTES, r DATE>>";
        RowType arrType = rowType(arrSchema);
        List<GenericRowData> arrRows = new ArrayList<>();
        GenericRowData a1 = new GenericRowData(7);
        a1.setField(0, new GenericArrayData(new Object[] {StringData.fromString("x"), null,
            StringData.fromString("a,b"), StringData.fromString(""), StringData.fromString("q\"")}));
        a1.setField(1, new GenericArrayData(new Double[] {1.5, null, Double.NaN}));
        a1.setField(2, new GenericArrayData(new Boolean[] {true, false, null}));
        a1.setField(3, new GenericArrayData(new Object[] {new byte[] {(byte) 0xff}, new byte[0]}));
        a1.setField(4, new GenericArrayData(new Integer[] {0, -719162}));
        a1.setField(5, new GenericArrayData(new Object[] {
            DecimalData.fromBigDecimal(new BigDecimal("-1.5"), 4, 1), null}));
        a1.setField(6, GenericRowData.of(true, new byte[] {104, 105}, 1));
        arrRows.add(a1);
        GenericRowData a2 = new GenericRowData(7);
        a2.setField(0, new GenericArrayData(new Object[] {StringData.fromString(" sp ")}));
        a2.setField(6, GenericRowData.of(null, null, null));
        arrRows.add(a2);
        encode(arrSchema, arrType, opts(), arrRows);
        encode(arrSchema, arrType, opts("null-literal", "NULL", "array-element-delimiter", ","), arrRows);
    }

    static GenericRowData row(Object x, String y) {
        return GenericRowData.of(x, y == null ? null : StringData.fromString(y));
    }

    static TimestampData ts(int y, int mo, int d, int h, int mi, int s, int nanos) {
        return TimestampData.fromLocalDateTime(LocalDateTime.of(y, mo, d, h, mi, s, nanos));
    }

    static GenericRowData wideRow(Boolean b, Byte ti, Short si, Integer i, Long bi, Float f,
            Double d, String dec, String s, byte[] bin, Integer date, Integer time,
            TimestampData ts, TimestampData ltz, Integer[] arr, GenericRowData r) {
        GenericRowData row = new GenericRowData(16);
        row.setField(0, b);
        row.setField(1, ti);
        row.setField(2, si);
        row.setField(3, i);
        row.setField(4, bi);
        row.setField(5, f);
        row.setField(6, d);
        row.setField(7, dec == null ? null : DecimalData.fromBigDecimal(new BigDecimal(dec), 10, 2));
        row.setField(8, s == null ? null : StringData.fromString(s));
        row.setField(9, bin);
        row.setField(10, date);
        row.setField(11, time);
        row.setField(12, ts);
        row.setField(13, ltz);
        row.setField(14, arr == null ? null : new GenericArrayData(arr));
        row.setField(15, r);
        return row;
    }

    static void encode(String schema, RowType type, Map<String, String> options,
            List<GenericRowData> rows) throws Exception {
        SerializationSchema<RowData> ser;
        try {
            DynamicTableSink.Context ctx = (DynamicTableSink.Context) Proxy.newProxyInstance(
                    CsvFormatVectors.class.getClassLoader(),
                    new Class<?>[] {DynamicTableSink.Context.class},
                    (proxy, method, args) -> {
                        throw new UnsupportedOperationException(method.getName());
                    });
            ser = new CsvFormatFactory()
                    .createEncodingFormat(null, Configuration.fromMap(options))
                    .createRuntimeEncoder(ctx, TypeConversions.fromLogicalToDataType(type));
            ser.open(null);
        } catch (Throwable e) {
            construct(schema, options, e);
            return;
        }
        for (GenericRowData r : rows) {
            OUT.append("{\"case\":\"encode\",\"schema\":");
            Json.string(OUT, schema);
            OUT.append(",\"options\":");
            options(options);
            OUT.append(",\"row\":");
            Values.row(OUT, type, r);
            try {
                byte[] bytes = ser.serialize(r);
                OUT.append(",\"bytes\":");
                Json.string(OUT, Json.hex(bytes));
                OUT.append(",\"error\":null}\n");
            } catch (Throwable e) {
                OUT.append(",\"bytes\":null,\"error\":");
                Values.error(OUT, e);
                OUT.append("}\n");
            }
        }
    }

    // ---------------------------------------------------------------- construct

    static void constructCases() {
        String[][] optionCases = {
            {"quote-character", "'", "disable-quote-character", "true"},
            {"quote-character", "'", "disable-quote-character", "false"},
            {"field-delimiter", ";;"},
            {"field-delimiter", ""},
            {"field-delimiter", "\\t"},
            {"field-delimiter", "\\u0001"},
            {"field-delimiter", "\\"},
            {"field-delimiter", "\\n"},
            {"array-element-delimiter", "||"},
            {"array-element-delimiter", "\\t"},
            {"quote-character", "ab"},
            {"escape-character", "\\\\"},
            {"escape-character", ""},
            {"null-literal", ""},
            {"null-literal", "NULL VALUE"},
            {"allow-comments", "yes"},
            {"ignore-parse-errors", "TRUE"},
            {"write-bigdecimal-in-scientific-notation", "false"},
            {"unknown-option", "1"},
        };
        for (String[] kv : optionCases) {
            Map<String, String> o = opts(kv);
            Throwable err = null;
            try {
                new CsvFormatFactory().createDecodingFormat(null, Configuration.fromMap(o));
            } catch (Throwable e) {
                err = e;
            }
            construct("", o, err);
        }
        String[] schemas = {
            "ROW<a MAP<INT, INT>>", "ROW<a ARRAY<ARRAY<INT>>>", "ROW<a ARRAY<ROW<x INT>>>",
            "ROW<a ROW<x ROW<y INT>>>", "ROW<a ROW<x ARRAY<INT>>>", "ROW<a TIME(4)>",
            "ROW<a INTERVAL YEAR TO MONTH>", "ROW<a INTERVAL DAY TO SECOND(3)>",
            "ROW<a TIMESTAMP(9), b ARRAY<TIMESTAMP_LTZ(9)>, c ROW<x TIME(3)>>",
            "ROW<a ARRAY<MAP<INT, INT>>>",
        };
        for (String s : schemas) {
            RowType t = rowType(s);
            Throwable err = null;
            try {
                deserializer(t, opts());
            } catch (Throwable e) {
                err = e;
            }
            construct(s, opts("direction", "decode"), err);
            err = null;
            try {
                DynamicTableSink.Context ctx = null;
                new CsvFormatFactory()
                        .createEncodingFormat(null, Configuration.fromMap(opts()))
                        .createRuntimeEncoder(ctx, TypeConversions.fromLogicalToDataType(t))
                        .open(null);
            } catch (Throwable e) {
                err = e;
            }
            construct(s, opts("direction", "encode"), err);
        }
    }

    static void construct(String schema, Map<String, String> options, Throwable e) {
        OUT.append("{\"case\":\"construct\",\"schema\":");
        Json.string(OUT, schema);
        OUT.append(",\"options\":");
        options(options);
        OUT.append(",\"error\":");
        if (e == null) {
            OUT.append("null");
        } else {
            Values.error(OUT, e);
        }
        OUT.append("}\n");
    }

    // ---------------------------------------------------------------- helpers

    static RowType rowType(String s) {
        return (RowType) LogicalTypeParser.parse(s, CsvFormatVectors.class.getClassLoader());
    }

    static Map<String, String> opts(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static void options(Map<String, String> o) {
        OUT.append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : o.entrySet()) {
            if (!first) {
                OUT.append(',');
            }
            first = false;
            Json.string(OUT, e.getKey());
            OUT.append(':');
            Json.string(OUT, e.getValue());
        }
        OUT.append('}');
    }

    /**
     * The value representation shared with {@code RawFormatVectors} and the Rust tests
     * {@code csv_flink.rs}/{@code raw_flink.rs}. A row is a JSON array of its fields; a field:
     * NULL {@code null}; BOOLEAN {@code "true"}/{@code "false"}; TINYINT..BIGINT decimal text;
     * FLOAT/DOUBLE the raw IEEE bits in lowercase hex (8/16 digits); DECIMAL(p, s) the unscaled
     * value (at the type's scale) in decimal text; CHAR/VARCHAR the string; BINARY/VARBINARY
     * lowercase hex; DATE days since 1970-01-01; TIME milliseconds of the day;
     * TIMESTAMP/TIMESTAMP_LTZ {@code "<epoch millis>:<nanos of milli>"}; ARRAY and ROW a JSON
     * array of the elements/fields.
     */
    static final class Values {
        private Values() {}

        static void row(StringBuilder out, RowType type, RowData row) {
            out.append('[');
            for (int i = 0; i < type.getFieldCount(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                field(out, type.getTypeAt(i), RowData.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(row));
            }
            out.append(']');
        }

        static void field(StringBuilder out, LogicalType t, Object v) {
            if (v == null) {
                out.append("null");
                return;
            }
            switch (t.getTypeRoot()) {
                case BOOLEAN:
                case TINYINT:
                case SMALLINT:
                case INTEGER:
                case BIGINT:
                case DATE:
                case TIME_WITHOUT_TIME_ZONE:
                    Json.string(out, v.toString());
                    break;
                case FLOAT:
                    Json.string(out, Json.hexBits(Float.floatToRawIntBits((Float) v), 8));
                    break;
                case DOUBLE:
                    Json.string(out, Json.hexBits(Double.doubleToRawLongBits((Double) v), 16));
                    break;
                case DECIMAL:
                    Json.string(out, ((DecimalData) v).toBigDecimal()
                            .setScale(((DecimalType) t).getScale()).unscaledValue().toString());
                    break;
                case CHAR:
                case VARCHAR:
                    Json.string(out, v.toString());
                    break;
                case BINARY:
                case VARBINARY:
                    Json.string(out, Json.hex((byte[]) v));
                    break;
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                    TimestampData ts = (TimestampData) v;
                    Json.string(out, ts.getMillisecond() + ":" + ts.getNanoOfMillisecond());
                    break;
                }
                case ARRAY: {
                    LogicalType e = ((ArrayType) t).getElementType();
                    ArrayData a = (ArrayData) v;
                    ArrayData.ElementGetter g = ArrayData.createElementGetter(e);
                    out.append('[');
                    for (int i = 0; i < a.size(); i++) {
                        if (i > 0) {
                            out.append(',');
                        }
                        field(out, e, g.getElementOrNull(a, i));
                    }
                    out.append(']');
                    break;
                }
                case ROW:
                    row(out, (RowType) t, (RowData) v);
                    break;
                default:
                    throw new IllegalArgumentException("no representation for " + t);
            }
        }

        static void error(StringBuilder out, Throwable e) {
            out.append("{\"class\":");
            Json.string(out, e.getClass().getName());
            out.append(",\"message\":");
            Json.string(out, String.valueOf(e.getMessage()));
            Throwable c = e.getCause();
            out.append(",\"cause\":");
            if (c == null) {
                out.append("null");
            } else {
                out.append("{\"class\":");
                Json.string(out, c.getClass().getName());
                out.append(",\"message\":");
                Json.string(out, String.valueOf(c.getMessage()));
                out.append('}');
            }
            out.append('}');
        }
    }
}
