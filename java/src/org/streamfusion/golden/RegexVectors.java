package org.streamfusion.golden;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.functions.SqlFunctionUtils;

/**
 * Golden vectors for Flink's regular-expression functions: every pattern against every
 * string, computed by the released 2.3.0 {@code SqlFunctionUtils} methods that Flink's
 * generated code calls ({@code regexpExtract}, {@code regexpReplace}, {@code regExp}), on the
 * JVM that runs this generator (JDK 17 here: {@code \b} follows JDK 17's word characters).
 *
 * <p>Output: one line per pattern: {@code pattern}, {@code valid} (whether
 * {@code Pattern.compile} accepts it; an invalid one makes Flink's functions return NULL or
 * FALSE) and {@code rows}, one per string: {@code s}, {@code extract0}/{@code extract1}
 * ({@code REGEXP_EXTRACT(s, p[, 1])}), {@code replace} ({@code REGEXP_REPLACE(s, p, '#')})
 * and {@code matches} ({@code REGEXP(s, p)}), each as Flink's output carries it (see
 * {@link #value}).
 */
public final class RegexVectors {
    static final String GENERATOR = "java/src/org/streamfusion/golden/RegexVectors.java";

    static final String[] STRINGS = {
        "", "a", "abc", "ab\n", "ab\r\n", "ab\r", "ab\n\n", "a\nb\n", "\n", "line1\nline2",
        "line1\r\nline2\r\n", "ABC abc", "AbC", "foo123bar45", "aaa", "xaay", "abab", "é1 x",
        "e\u0301t e\u0301", "naïve café", "\u203Fa", "a_b c", "Straße", "ΣΊΣΥΦΟΣ", "日本語123",
        "emoji 😀 ok", "tab\there", "a\u2028b", "a\u0085", "x{2}", "[a]", "a.b", "1+1=2",
        "\u00A0x\u3000", "k\u212Aelvin", "Ǆ ǅ ǆ", "١٢٣ 123",
    };

    static final String[] PATTERNS = {
        // Anchors and line terminators.
        "b$", "^a", "$", "^", "c$", "\\Z", "b\\Z", "\\z", "b\\z", "\\Aa", "(?m)^l", "(?m)1$",
        "(?m)$", "(?m)^", "(?m)^$", "a.b", "(?s)a.b", ".", ".+", "(?s).+", "\\R", "a\\Rb",
        // Word boundaries and predefined classes.
        "\\ba", "\\b\\w+\\b", "\\B.", "\\bé", "t\\b", "\\w+", "\\W+", "\\d+", "\\D", "\\s",
        "\\S+", "\\h", "\\v", "\\H+", "\\V+",
        // POSIX and Unicode properties.
        "\\p{Lower}+", "\\p{Upper}", "\\p{Alpha}+", "\\p{Alnum}+", "\\p{Punct}", "\\p{Space}",
        "\\p{XDigit}+", "\\p{L}+", "\\p{Lu}", "\\pL+", "\\P{L}+", "\\p{IsLatin}+",
        "\\p{IsGreek}", "\\p{IsAlphabetic}+", "\\p{Nd}+", "\\p{Mn}", "[\\p{L}&&[^a-z]]+",
        // Classes.
        "[a-c]+", "[^a-c]+", "[a-z&&[^b]]+", "[[ab]c]+", "[]a]", "[^]a]", "[a-]+", "[-a]",
        "[\\w.]+", "[^\\s]+", "[.]", "[$]", "[\\Q]\\E]", "[ä-ü]", "[\\x{1F600}]",
        // Case-insensitive, flags scoped.
        "(?i)abc", "(?i)[a-c]+", "(?i)ß", "(?i)σ", "(?i)[^a]", "a(?i)b", "(?i:a)b", "(?i)\\w",
        "(?i)k", "(?-i)a", "(?i)[x-z]", "(?i)[A-C]", "(?i)é",
        // Groups, back-references, look-around, quantifier forms.
        "(a)\\1", "(ab)\\1", "(a)(b)?\\2", "(a)\\12", "\\2(a)", "(?<n>a)\\k<n>", "(?<n>b)",
        "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(?<=a{1,2})b", "a*+a", "a++", "(?>a|ab)c",
        "a*?", "a+?", "a{2}", "a{1,}", "a{1,2}?", "(a|ab)(c|bcd)", "(a*)*b", "x|",
        // Escapes.
        "\\Q.\\E", "\\Qa.b", "\\x61", "\\x{62}", "\\u0063", "\\0141", "\\t", "\\e", "\\cA",
        "\\.", "\\@", "\\<", "1\\+1", "\\{2\\}", "x{2}", "a}", "a]",
        // Java rejects these: NULL (REGEXP: FALSE).
        "[a", "(", ")", "a{", "{", "*a", "a**", "a|*", "[z-a]", "\\y", "(?#c)", "(?z)",
        "(?<a_b>x)", "a{2,1}", "\\", "\\k<m>", "\\p{Foo}",
        // Classes of predefined sets, captures across iterations, flags and anchors combined.
        "[\\W]+", "[^\\W]+", "[\\D\\s]+", "[^\\D]+", "\\S+\\s", "[\\h]", "[^\\v]+", "(?i)[^\\W]+",
        "(\\w)(\\d)?", "(a)|b", "(?<n>a)(?<m>b)\\k<m>", "[a-c&&b-d]+", "(?i)[^A-C]+",
        "(?s)^.*$", "(?m)^.+$", "a{0}", "(a){0}b", "(a|)+", "(a?)+", "(?:(a)|b)+", "(?:(b)|a)+",
        "(?:(a)|(b))+", "(\\w+?)\\s", "([^ ]+) ", "(?i)(A)B", "(?m)(^.)", "\\b(\\w)",
        "[[:alpha:]]+", "[:a]+", "[😀]", "[^😀 ]+", "😀|x", "(?i)😀",
        // Empty matches and supplementary characters.
        "", "b*", "(?=a)", "\\b", "x?",
    };

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: RegexVectors OUT.jsonl");
            System.exit(2);
        }
        StringBuilder out = new StringBuilder();
        out.append("{\"generator\":");
        Json.string(out, GENERATOR);
        out.append(",\"flink\":\"2.3.0\",\"java\":");
        Json.string(out, System.getProperty("java.specification.version"));
        out.append("}\n");
        for (String p : PATTERNS) {
            boolean valid;
            try {
                Pattern.compile(p);
                valid = true;
            } catch (PatternSyntaxException e) {
                valid = false;
            }
            out.append("{\"pattern\":");
            Json.string(out, p);
            out.append(",\"valid\":").append(valid).append(",\"rows\":[");
            for (int i = 0; i < STRINGS.length; i++) {
                String s = STRINGS[i];
                out.append(i == 0 ? "" : ",").append("{\"s\":");
                Json.string(out, s);
                out.append(",\"extract0\":");
                value(out, SqlFunctionUtils.regexpExtract(s, p, 0));
                out.append(",\"extract1\":");
                value(out, SqlFunctionUtils.regexpExtract(s, p, 1));
                out.append(",\"replace\":");
                value(out, SqlFunctionUtils.regexpReplace(s, p, "#"));
                out.append(",\"matches\":").append(SqlFunctionUtils.regExp(s, p)).append('}');
            }
            out.append("]}\n");
        }
        Files.write(Path.of(args[0]), out.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A function result as Flink's output carries it: the generated code wraps the String in
     * a {@code BinaryStringData}, whose UTF-8 bytes write a lone surrogate (Java placed an
     * empty match inside a surrogate pair) as {@code ?}.
     */
    static void value(StringBuilder out, String v) {
        if (v == null) {
            out.append("null");
            return;
        }
        byte[] utf8 = BinaryStringData.fromString(v).toBytes();
        Json.string(out, BinaryStringData.fromBytes(utf8).toString());
    }
}
