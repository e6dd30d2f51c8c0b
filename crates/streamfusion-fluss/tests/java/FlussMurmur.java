import java.lang.reflect.Field;
import sun.misc.Unsafe;

// Licensed under the Apache License, Version 2.0.
//
// Reproduces the Java values in src/murmur.rs and src/bucketing.rs tests:
//   java crates/streamfusion-fluss/tests/java/FlussMurmur.java
// (single-file source launch, JDK 11+; warnings about sun.misc.Unsafe are expected).
//
// Transcribed from Apache Fluss: org.apache.fluss.utils.MurmurHashUtils (hashUnsafeBytes,
// hashUnsafeBytesByInt, fmix, mixK1, mixH1), org.apache.fluss.utils.MathUtils.murmurHash and
// org.apache.fluss.bucketing.FlussBucketingFunction.bucketForRowKey.
public class FlussMurmur {
    static final Unsafe UNSAFE;
    static { try { Field f = Unsafe.class.getDeclaredField("theUnsafe"); f.setAccessible(true); UNSAFE = (Unsafe) f.get(null);} catch (Exception e) { throw new RuntimeException(e);} }
    static final long BYTE_ARRAY_BASE_OFFSET = UNSAFE.arrayBaseOffset(byte[].class);
    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;
    public static final int DEFAULT_SEED = 42;

    public static int hashUnsafeBytes(Object base, long offset, int lengthInBytes) { return hashUnsafeBytes(base, offset, lengthInBytes, DEFAULT_SEED); }
    private static int hashUnsafeBytesByInt(Object base, long offset, int lengthInBytes, int seed) {
        int h1 = seed;
        for (int i = 0; i < lengthInBytes; i += 4) {
            int halfWord = UNSAFE.getInt(base, offset + i);
            int k1 = mixK1(halfWord);
            h1 = mixH1(h1, k1);
        }
        return h1;
    }
    private static int hashUnsafeBytes(Object base, long offset, int lengthInBytes, int seed) {
        int lengthAligned = lengthInBytes - lengthInBytes % 4;
        int h1 = hashUnsafeBytesByInt(base, offset, lengthAligned, seed);
        for (int i = lengthAligned; i < lengthInBytes; i++) {
            int halfWord = UNSAFE.getByte(base, offset + i);
            int k1 = mixK1(halfWord);
            h1 = mixH1(h1, k1);
        }
        return fmix(h1, lengthInBytes);
    }
    private static int fmix(int h1, int length) { h1 ^= length; return fmix(h1); }
    public static int fmix(int h) { h ^= h >>> 16; h *= 0x85ebca6b; h ^= h >>> 13; h *= 0xc2b2ae35; h ^= h >>> 16; return h; }
    private static int mixK1(int k1) { k1 *= C1; k1 = Integer.rotateLeft(k1, 15); k1 *= C2; return k1; }
    private static int mixH1(int h1, int k1) { h1 ^= k1; h1 = Integer.rotateLeft(h1, 13); h1 = h1 * 5 + 0xe6546b64; return h1; }
    public static int murmurHash(int code) {
        code *= 0xcc9e2d51; code = Integer.rotateLeft(code, 15); code *= 0x1b873593;
        code = Integer.rotateLeft(code, 13); code = code * 5 + 0xe6546b64; code ^= 4;
        code = fmix(code);
        if (code >= 0) return code; else if (code != Integer.MIN_VALUE) return -code; else return 0;
    }
    public static int bucketForRowKey(final byte[] key, final int numBuckets) {
        int keyHash = hashUnsafeBytes(key, BYTE_ARRAY_BASE_OFFSET, key.length);
        return murmurHash(keyHash) % numBuckets;
    }
    static byte[] b(int... v) { byte[] r = new byte[v.length]; for (int i = 0; i < v.length; i++) r[i] = (byte) v[i]; return r; }
    static void show(String name, byte[] key, int n) {
        int h = hashUnsafeBytes(key, BYTE_ARRAY_BASE_OFFSET, key.length);
        System.out.printf("%s hash=0x%08X bucket(%d)=%d%n", name, h, n, bucketForRowKey(key, n));
    }
    public static void main(String[] a) {
        show("[0,10]", b(0, 10), 7);
        show("fox", "The quick brown fox jumps over the lazy dog".getBytes(), 8);
        show("[0x80]", b(0x80), 128);
        show("[0xFF]", b(0xFF), 128);
        show("[0xC8,0x01] (BIGINT 200)", b(0xC8, 0x01), 128);
        show("varint(-1 as u64) (BIGINT -1)", b(0xFF,0xFF,0xFF,0xFF,0xFF,0xFF,0xFF,0xFF,0xFF,0x01), 128);
        show("[1,2,3,4,0xAB,0xCD,0xEF]", b(1,2,3,4,0xAB,0xCD,0xEF), 1000);
        show("STRING 'hé' [0x03,'h',0xC3,0xA9]", b(0x03, 'h', 0xC3, 0xA9), 16);
        show("STRING 'é' [0x02,0xC3,0xA9]", b(0x02, 0xC3, 0xA9), 16);
    }
}
