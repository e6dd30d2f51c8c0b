package org.streamfusion.golden;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the JSON text of nested input values (ARRAY, MAP and ROW columns): arrays nest, and
 * every scalar - string, number or boolean - is kept as its text, for {@link
 * CalcVectors#parse} to read by the element's type. {@code null} is {@code null}.
 */
final class MiniJson {
    private final String text;
    private int at;

    private MiniJson(String text) {
        this.text = text;
    }

    /** The top-level array of {@code text}. */
    static List<Object> parse(String text) {
        MiniJson p = new MiniJson(text);
        Object v = p.value();
        p.space();
        if (!(v instanceof List) || p.at != text.length()) {
            throw new IllegalArgumentException("not one JSON array: " + text);
        }
        @SuppressWarnings("unchecked")
        List<Object> list = (List<Object>) v;
        return list;
    }

    /** JSON text of a parsed array, every scalar as a JSON string. */
    static String render(List<?> items) {
        StringBuilder b = new StringBuilder("[");
        for (int k = 0; k < items.size(); k++) {
            b.append(k == 0 ? "" : ",");
            Object item = items.get(k);
            if (item == null) {
                b.append("null");
            } else if (item instanceof List) {
                b.append(render((List<?>) item));
            } else {
                Json.string(b, (String) item);
            }
        }
        return b.append(']').toString();
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private Object value() {
        space();
        char c = text.charAt(at);
        if (c == '[') {
            at++;
            List<Object> items = new ArrayList<>();
            space();
            if (text.charAt(at) == ']') {
                at++;
                return items;
            }
            while (true) {
                items.add(value());
                space();
                char next = text.charAt(at++);
                if (next == ']') {
                    return items;
                }
                if (next != ',') {
                    throw new IllegalArgumentException("expected , or ] at " + (at - 1)
                            + " in " + text);
                }
            }
        }
        if (c == '"') {
            StringBuilder b = new StringBuilder();
            at++;
            while (true) {
                char ch = text.charAt(at++);
                if (ch == '"') {
                    return b.toString();
                }
                if (ch == '\\') {
                    char e = text.charAt(at++);
                    switch (e) {
                        case 'n': b.append('\n'); break;
                        case 't': b.append('\t'); break;
                        case 'r': b.append('\r'); break;
                        case 'b': b.append('\b'); break;
                        case 'f': b.append('\f'); break;
                        case 'u':
                            b.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                            at += 4;
                            break;
                        default: b.append(e);
                    }
                } else {
                    b.append(ch);
                }
            }
        }
        int start = at;
        while (at < text.length() && ",] \t\n\r".indexOf(text.charAt(at)) < 0) {
            at++;
        }
        String token = text.substring(start, at);
        return token.equals("null") ? null : token;
    }
}
