package org.streamfusion.golden;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.formats.raw.RawFormatFactory;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;

/**
 * Golden vectors for {@code 'format' = 'raw'}: messages decoded and rows encoded by the released
 * Flink 2.3.0 {@code RawFormatDeserializationSchema}/{@code RawFormatSerializationSchema}, built
 * by {@code RawFormatFactory} from the DDL options.
 *
 * <p>Output lines after the header:
 *
 * <ul>
 *   <li>{@code {"case":"decode","schema","options","message","row","error"}}: {@code message} is
 *       the message in lowercase hex, or null; {@code row} the decoded row in the value
 *       representation of {@link CsvFormatVectors.Values} (null: no row); {@code error} the
 *       exception Flink threw.
 *   <li>{@code {"case":"encode","schema","options","row","bytes","error"}}: {@code bytes} the
 *       message in lowercase hex, or null for a null message.
 *   <li>{@code {"case":"construct","schema","options","error"}}: schemas and options the factory
 *       refuses or accepts.
 * </ul>
 */
public final class RawFormatVectors {
    static final String GENERATOR = "java/src/org/streamfusion/golden/RawFormatVectors.java";

    static final StringBuilder OUT = CsvFormatVectors.OUT;

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: RawFormatVectors OUT.jsonl");
            System.exit(2);
        }
        OUT.append("{\"generator\":");
        Json.string(OUT, GENERATOR);
        OUT.append(",\"flink\":\"2.3.0\",\"java\":");
        Json.string(OUT, System.getProperty("java.specification.version"));
        OUT.append("}\n");

        Map<String, String> be = CsvFormatVectors.opts();
        Map<String, String> le = CsvFormatVectors.opts("endianness", "little-endian");
        for (Map<String, String> o : List.of(be, le)) {
            decode("ROW<v BOOLEAN>", o, "00", "01", "02", "ff", "", "0000", null);
            decode("ROW<v TINYINT>", o, "80", "7f", "", "0102", null);
            decode("ROW<v SMALLINT>", o, "0102", "ff7f", "01", "010203", null);
            decode("ROW<v INT>", o, "01020304", "ffffffff", "010203", "", null);
            decode("ROW<v BIGINT>", o, "0102030405060708", "8000000000000000", "01020304", null);
            decode("ROW<v FLOAT>", o, "3fc00000", "0000c03f", "7fc00001", "3fc000", null);
            decode("ROW<v DOUBLE>", o, "3ff8000000000000", "000000000000f83f", "3ff80000", null);
        }
        decode("ROW<v STRING>", be, "68656c6c6f", "", "c3a9e282acf09f9880", "ff", "c3", "eda080",
                "f09f98", "41ff42", "c0af", "f4908080", null);
        decode("ROW<v BYTES>", be, "", "00ff10", null);
        decode("ROW<v VARCHAR(3)>", be, "616263646566");
        decode("ROW<v CHAR(2)>", be, "61");
        decode("ROW<v BINARY(2)>", be, "010203");
        decode("ROW<v VARBINARY(2)>", be, "010203");
        for (String cs : new String[] {"ISO-8859-1", "US-ASCII", "UTF-16BE", "UTF-16LE", "UTF-16", "utf-8"}) {
            decode("ROW<v STRING>", CsvFormatVectors.opts("charset", cs), "68c3a9ff", "00", "d83dde00", "",
                    "feff0041", "fffe4100", "d800", "41", null);
        }

        for (Map<String, String> o : List.of(be, le)) {
            encode("ROW<v BOOLEAN>", o, true, false, null);
            encode("ROW<v TINYINT>", o, (byte) -128, (byte) 5, null);
            encode("ROW<v SMALLINT>", o, (short) 258, (short) -2, null);
            encode("ROW<v INT>", o, 16909060, -1, null);
            encode("ROW<v BIGINT>", o, 72623859790382856L, Long.MIN_VALUE, null);
            encode("ROW<v FLOAT>", o, 1.5f, Float.NaN, Float.intBitsToFloat(0x7fc00001), -0.0f, null);
            encode("ROW<v DOUBLE>", o, 1.5, Double.NaN, Double.longBitsToDouble(0x7ff0000000000001L), null);
        }
        encode("ROW<v STRING>", be, StringData.fromString("héllo"), StringData.fromString(""),
                StringData.fromString("😀"), null);
        encode("ROW<v BYTES>", be, new byte[] {1, 2, (byte) 0xff}, new byte[0], null);
        for (String cs : new String[] {"ISO-8859-1", "US-ASCII", "UTF-16BE", "UTF-16LE", "UTF-16"}) {
            encode("ROW<v STRING>", CsvFormatVectors.opts("charset", cs), StringData.fromString("hé€😀"),
                    StringData.fromString(""), null);
        }

        String[] schemas = {"ROW<v DATE>", "ROW<v DECIMAL(5, 2)>", "ROW<v ARRAY<INT>>",
            "ROW<v TIMESTAMP(3)>", "ROW<a INT, b INT>", "ROW<v ROW<x INT>>", "ROW<v MAP<INT, INT>>"};
        for (String s : schemas) {
            construct(s, be);
        }
        construct("ROW<v STRING>", CsvFormatVectors.opts("charset", "no-such-charset"));
        construct("ROW<v STRING>", CsvFormatVectors.opts("charset", "windows-1252"));
        construct("ROW<v INT>", CsvFormatVectors.opts("endianness", "LITTLE-ENDIAN"));
        construct("ROW<v INT>", CsvFormatVectors.opts("endianness", "middle"));
        Files.write(Path.of(args[0]), OUT.toString().getBytes(StandardCharsets.UTF_8));
    }

    static DeserializationSchema<RowData> deserializer(RowType type, Map<String, String> options)
            throws Exception {
        DynamicTableSource.Context ctx = (DynamicTableSource.Context) Proxy.newProxyInstance(
                RawFormatVectors.class.getClassLoader(),
                new Class<?>[] {DynamicTableSource.Context.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("createTypeInformation")) {
                        Object a = args[0];
                        LogicalType t = a instanceof DataType ? ((DataType) a).getLogicalType() : (LogicalType) a;
                        return InternalTypeInfo.of(t);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        DeserializationSchema<RowData> d = new RawFormatFactory()
                .createDecodingFormat(null, Configuration.fromMap(options))
                .createRuntimeDecoder(ctx, TypeConversions.fromLogicalToDataType(type));
        d.open(null);
        return d;
    }

    static SerializationSchema<RowData> serializer(RowType type, Map<String, String> options)
            throws Exception {
        DynamicTableSink.Context ctx = (DynamicTableSink.Context) Proxy.newProxyInstance(
                RawFormatVectors.class.getClassLoader(),
                new Class<?>[] {DynamicTableSink.Context.class},
                (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
        SerializationSchema<RowData> s = new RawFormatFactory()
                .createEncodingFormat(null, Configuration.fromMap(options))
                .createRuntimeEncoder(ctx, TypeConversions.fromLogicalToDataType(type));
        s.open(null);
        return s;
    }

    static void decode(String schema, Map<String, String> options, String... messages) {
        RowType type = CsvFormatVectors.rowType(schema);
        DeserializationSchema<RowData> deser;
        try {
            deser = deserializer(type, options);
        } catch (Throwable e) {
            CsvFormatVectors.construct(schema, options, e);
            return;
        }
        for (String m : messages) {
            OUT.append("{\"case\":\"decode\",\"schema\":");
            Json.string(OUT, schema);
            OUT.append(",\"options\":");
            CsvFormatVectors.options(options);
            OUT.append(",\"message\":");
            if (m == null) {
                OUT.append("null");
            } else {
                Json.string(OUT, m);
            }
            try {
                RowData row = deser.deserialize(m == null ? null : unhex(m));
                OUT.append(",\"row\":");
                if (row == null) {
                    OUT.append("null");
                } else {
                    CsvFormatVectors.Values.row(OUT, type, row);
                }
                OUT.append(",\"error\":null}\n");
            } catch (Throwable e) {
                OUT.append(",\"row\":null,\"error\":");
                CsvFormatVectors.Values.error(OUT, e);
                OUT.append("}\n");
            }
        }
    }

    static void encode(String schema, Map<String, String> options, Object... values) {
        RowType type = CsvFormatVectors.rowType(schema);
        SerializationSchema<RowData> ser;
        try {
            ser = serializer(type, options);
        } catch (Throwable e) {
            CsvFormatVectors.construct(schema, options, e);
            return;
        }
        for (Object v : values) {
            GenericRowData r = GenericRowData.of(v);
            OUT.append("{\"case\":\"encode\",\"schema\":");
            Json.string(OUT, schema);
            OUT.append(",\"options\":");
            CsvFormatVectors.options(options);
            OUT.append(",\"row\":");
            CsvFormatVectors.Values.row(OUT, type, r);
            try {
                byte[] bytes = ser.serialize(r);
                OUT.append(",\"bytes\":");
                if (bytes == null) {
                    OUT.append("null");
                } else {
                    Json.string(OUT, Json.hex(bytes));
                }
                OUT.append(",\"error\":null}\n");
            } catch (Throwable e) {
                OUT.append(",\"bytes\":null,\"error\":");
                CsvFormatVectors.Values.error(OUT, e);
                OUT.append("}\n");
            }
        }
    }

    static void construct(String schema, Map<String, String> options) {
        RowType type = CsvFormatVectors.rowType(schema);
        Throwable err = null;
        try {
            deserializer(type, options);
            serializer(type, options);
        } catch (Throwable e) {
            err = e;
        }
        CsvFormatVectors.construct(schema, options, err);
    }

    static byte[] unhex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static List<Object> list(Object... v) {
        return new ArrayList<>(List.of(v));
    }
}
