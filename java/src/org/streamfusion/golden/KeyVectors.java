package org.streamfusion.golden;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.util.MathUtils;

/**
 * Golden vectors for Flink SQL key rows, computed by the released Flink 2.3.0 classes: the
 * BinaryRowData bytes of a key, its hashCode, murmurHash, key groups and operator index, plus
 * the default max parallelism and key-group ranges. The Rust key writer is tested against them.
 *
 * <p>Usage: {@code KeyVectors <output path>}. Output is JSON Lines (UTF-8, LF). The run is fully
 * determined by {@link #SEED}: no clock, no hash-order iteration, so two runs are byte-identical.
 */
public final class KeyVectors {
    /** Published seed; changing it changes every random row in the golden file. */
    public static final long SEED = 0x5EED_F11CL;

    static final String GENERATOR = "java/src/org/streamfusion/golden/KeyVectors.java";
    static final int SINGLE_ROWS = 300;
    static final int COMPOSITE_ROWS = 1000;
    static final int WIDE_ROWS = 200;
    static final int WIDE_ARITY = 70;
    static final int ROW_ROWS = 300;

    /** Called for every generated row; lets a checker compare other Flink code paths. */
    interface RowHook {
        void accept(Col[] cols, GenericRowData row, BinaryRowData key);
    }

    private final SplittableRandom rnd = new SplittableRandom(SEED);
    private final ValueGen gen = new ValueGen(rnd);
    private final StringBuilder out = new StringBuilder(1 << 24);
    private final RowHook hook;
    int rows;
    int serializerDiffers;

    KeyVectors(RowHook hook) {
        this.hook = hook;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: KeyVectors <output path>");
            System.exit(2);
        }
        KeyVectors kv = new KeyVectors((cols, row, key) -> {});
        String text = kv.generate();
        Path path = Path.of(args[0]);
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.write(path, text.getBytes(StandardCharsets.UTF_8));
        System.err.printf(
                "wrote %d key rows to %s (%d rows differ from RowDataSerializer.toBinaryRow,"
                        + " all with non-compact NULLs)%n",
                kv.rows, path, kv.serializerDiffers);
    }

    String generate() {
        out.append("{\"flink\":\"2.3.0\",\"seed\":\"0x").append(Long.toHexString(SEED))
                .append("\",\"generator\":\"").append(GENERATOR).append("\"}\n");
        for (Col c : singleColumns()) {
            singleSchema(c);
        }
        for (Col[] schema : compositeSchemas()) {
            compositeSchema(schema, COMPOSITE_ROWS);
        }
        wideSchema();
        // After every other schema, so the random draws of the rows above do not move.
        for (Col[] schema : rowSchemas()) {
            compositeSchema(schema, ROW_ROWS);
        }
        defaultMaxParallelism();
        keyGroupRanges();
        return out.toString();
    }

    // ---------------------------------------------------------------- schemas

    /** Every type token of the file format, each tested alone and all together. */
    static List<Col> singleColumns() {
        List<Col> cols = new ArrayList<>(List.of(
                Col.bool(), Col.tinyint(), Col.smallint(), Col.integer(), Col.bigint(),
                Col.float32(), Col.float64(),
                Col.decimal(5, 2), Col.decimal(18, 4), Col.decimal(19, 4), Col.decimal(38, 10),
                Col.decimal(38, 0),
                Col.chr(1), Col.chr(10), Col.varchar(10), Col.varchar(Col.MAX_LEN),
                Col.binary(8), Col.binary(20), Col.varbinary(10), Col.varbinary(Col.MAX_LEN),
                Col.date(), Col.time(0), Col.time(3)));
        for (int p : new int[] {0, 3, 4, 6, 9}) {
            cols.add(Col.timestamp(p));
        }
        cols.add(Col.timestampLtz(3));
        cols.add(Col.timestampLtz(9));
        cols.add(Col.intervalYm());
        cols.add(Col.intervalDt());
        return cols;
    }

    static List<Col[]> compositeSchemas() {
        List<Col[]> schemas = new ArrayList<>();
        schemas.add(new Col[] {Col.bigint(), Col.varchar(Col.MAX_LEN)});
        schemas.add(new Col[] {Col.integer(), Col.decimal(38, 10), Col.timestamp(9)});
        schemas.add(new Col[] {
            Col.varchar(Col.MAX_LEN), Col.varchar(Col.MAX_LEN), Col.bool(), Col.date()
        });
        schemas.add(new Col[] {
            Col.tinyint(), Col.smallint(), Col.float32(), Col.float64(), Col.binary(8),
            Col.varbinary(Col.MAX_LEN)
        });
        schemas.add(singleColumns().toArray(new Col[0]));
        return schemas;
    }

    /**
     * Nested ROW keys. BinaryWriter.write hands each nested GenericRowData to the released
     * AbstractBinaryWriter.writeRow with its RowDataSerializer (toBinaryRow, then the copy into
     * the variable part), exactly as a key projection of a ROW column does.
     */
    static List<Col[]> rowSchemas() {
        Col string = Col.varchar(Col.MAX_LEN);
        List<Col[]> schemas = new ArrayList<>();
        schemas.add(new Col[] {Col.row(Col.integer(), string)});
        // Wide DECIMAL/TIMESTAMP inside a nested row: NULLs there reserve no bytes.
        schemas.add(new Col[] {
            Col.row(Col.bigint(), Col.decimal(38, 10), Col.timestamp(9), Col.decimal(5, 2),
                    Col.timestampLtz(3))
        });
        // ROW in ROW between flat fields; names that need quoting.
        schemas.add(new Col[] {
            Col.bigint(),
            Col.row(new String[] {"s", "inner row", "x`y"},
                    string,
                    Col.row(Col.integer(), Col.varbinary(Col.MAX_LEN)),
                    Col.bool()),
            string
        });
        // Every type token inside one nested row.
        schemas.add(new Col[] {Col.row(singleColumns().toArray(new Col[0])), Col.integer()});
        // 60 nested fields: the nested null bits need a second word.
        Col[] sixty = new Col[60];
        for (int i = 0; i < sixty.length; i++) {
            sixty[i] = Col.bigint();
        }
        schemas.add(new Col[] {Col.row(sixty)});
        // Two ROW columns, each with a single field.
        schemas.add(new Col[] {Col.row(Col.chr(1)), Col.row(Col.row(Col.date()))});
        return schemas;
    }

    // ---------------------------------------------------------------- row generation

    /** Boundary values first, one explicit NULL, then random values with ~1 in 8 NULL. */
    private void singleSchema(Col c) {
        Col[] schema = {c};
        KeyRows keys = startSchema(schema);
        int n = 0;
        for (Object v : gen.specials(c)) {
            emit(schema, keys, GenericRowData.of(v));
            n++;
        }
        emit(schema, keys, GenericRowData.of((Object) null));
        for (n++; n < SINGLE_ROWS; n++) {
            Object v = rnd.nextInt(8) == 0 ? null : gen.random(c);
            emit(schema, keys, GenericRowData.of(v));
        }
        finishSchema(keys);
    }

    /** Row 0 all NULL, row 1 all first boundary values, then mixed NULL/boundary/random fields. */
    private void compositeSchema(Col[] schema, int count) {
        KeyRows keys = startSchema(schema);
        emit(schema, keys, new GenericRowData(schema.length));
        emit(schema, keys, rowOf(schema, i -> gen.specials(schema[i]).get(0)));
        for (int n = 2; n < count; n++) {
            emit(schema, keys, rowOf(schema, i -> mixedValue(schema[i])));
        }
        finishSchema(keys);
    }

    private Object mixedValue(Col c) {
        int r = rnd.nextInt(8);
        if (r == 0) {
            return null;
        }
        if (r <= 2) {
            List<Object> specials = gen.specials(c);
            return specials.get(rnd.nextInt(specials.size()));
        }
        return gen.random(c);
    }

    /**
     * 70 BIGINTs: the null bitset holds 8 header bits + 70 null bits, so it needs two 64-bit words
     * (fields 56+ live in the second). Rows with a single NULL or a single non-NULL sit on both
     * sides of the word boundary before the random rows.
     */
    private void wideSchema() {
        Col[] schema = new Col[WIDE_ARITY];
        for (int i = 0; i < WIDE_ARITY; i++) {
            schema[i] = Col.bigint();
        }
        KeyRows keys = startSchema(schema);
        int[] edges = {0, 1, 54, 55, 56, 57, 62, 63, 64, 68, 69};
        int n = 0;
        emit(schema, keys, new GenericRowData(WIDE_ARITY));
        emit(schema, keys, rowOf(schema, i -> (long) i));
        n += 2;
        for (int e : edges) {
            emit(schema, keys, rowOf(schema, i -> i == e ? null : gen.random(schema[i])));
            emit(schema, keys, rowOf(schema, i -> i == e ? gen.random(schema[i]) : null));
            n += 2;
        }
        for (; n < WIDE_ROWS; n++) {
            int nullOdds = n % 2 == 0 ? 8 : 2; // sparse and dense NULLs
            emit(schema, keys, rowOf(schema, i -> rnd.nextInt(nullOdds) == 0 ? null : gen.random(schema[i])));
        }
        finishSchema(keys);
    }

    private interface FieldFn {
        Object at(int i);
    }

    /** Fields are drawn in index order, so the random sequence is fixed. */
    private static GenericRowData rowOf(Col[] schema, FieldFn fn) {
        GenericRowData row = new GenericRowData(schema.length);
        for (int i = 0; i < schema.length; i++) {
            row.setField(i, fn.at(i));
        }
        return row;
    }

    // ---------------------------------------------------------------- output

    private KeyRows startSchema(Col[] schema) {
        out.append("{\"schema\":[");
        for (int i = 0; i < schema.length; i++) {
            out.append(i == 0 ? "" : ",");
            Json.string(out, schema[i].token);
        }
        out.append("]}\n");
        return new KeyRows(schema);
    }

    private void finishSchema(KeyRows keys) {
        serializerDiffers += keys.serializerDiffers;
    }

    private void emit(Col[] schema, KeyRows keys, GenericRowData row) {
        BinaryRowData key = keys.toKeyRow(row);
        hook.accept(schema, row, key);
        out.append("{\"v\":[");
        for (int i = 0; i < schema.length; i++) {
            out.append(i == 0 ? "" : ",");
            Json.value(out, schema[i], row.getField(i));
        }
        int hash = key.hashCode();
        out.append("],\"bytes\":\"").append(Json.hex(bytesOf(key)))
                .append("\",\"hash\":").append(hash)
                .append(",\"murmur\":").append(MathUtils.murmurHash(hash))
                .append(",\"kg128\":").append(KeyGroupRangeAssignment.assignToKeyGroup(key, 128))
                .append(",\"kg4096\":").append(KeyGroupRangeAssignment.assignToKeyGroup(key, 4096))
                .append(",\"kg32768\":").append(KeyGroupRangeAssignment.assignToKeyGroup(key, 32768))
                .append(",\"op128p3\":")
                .append(KeyGroupRangeAssignment.assignKeyToParallelOperator(key, 128, 3))
                .append("}\n");
        rows++;
    }

    private static byte[] bytesOf(BinaryRowData key) {
        if (key.getSizeInBytes() % 8 != 0) {
            throw new IllegalStateException("row size not 8-aligned: " + key.getSizeInBytes());
        }
        return BinarySegmentUtils.copyToBytes(key.getSegments(), key.getOffset(), key.getSizeInBytes());
    }

    private void defaultMaxParallelism() {
        List<Integer> ps = new ArrayList<>();
        for (int p = 1; p <= 300; p += 7) {
            ps.add(p);
        }
        ps.add(20000);
        ps.add(30000);
        for (int p : ps) {
            out.append("{\"default_max_parallelism\":{\"p\":").append(p).append(",\"max\":")
                    .append(KeyGroupRangeAssignment.computeDefaultMaxParallelism(p)).append("}}\n");
        }
    }

    private void keyGroupRanges() {
        int[][] pairs = {{128, 1}, {128, 3}, {128, 7}, {4096, 5}, {32768, 128}};
        for (int[] mp : pairs) {
            for (int i = 0; i < mp[1]; i++) {
                KeyGroupRange r =
                        KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(mp[0], mp[1], i);
                out.append("{\"key_group_range\":{\"max\":").append(mp[0])
                        .append(",\"p\":").append(mp[1]).append(",\"index\":").append(i)
                        .append(",\"start\":").append(r.getStartKeyGroup())
                        .append(",\"end\":").append(r.getEndKeyGroup()).append("}}\n");
            }
        }
    }
}
