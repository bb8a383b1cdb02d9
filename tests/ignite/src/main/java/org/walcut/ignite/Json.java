package org.walcut.ignite;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A minimal JSON writer for maps, lists, strings, numbers, booleans and null. */
final class Json {
    private Json() {
    }

    /** An insertion-ordered JSON object. */
    static Map<String, Object> obj(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2)
            m.put((String)kv[i], kv[i + 1]);
        return m;
    }

    static List<Object> arr() {
        return new ArrayList<>();
    }

    /** Compact form, one line. */
    static String write(Object v) {
        StringBuilder sb = new StringBuilder(256);
        write(sb, v, -1, 0);
        return sb.toString();
    }

    /** Indented form. */
    static String pretty(Object v) {
        StringBuilder sb = new StringBuilder(4096);
        write(sb, v, 2, 0);
        sb.append('\n');
        return sb.toString();
    }

    private static void newline(StringBuilder sb, int indent, int depth) {
        if (indent < 0)
            return;
        sb.append('\n');
        for (int i = 0; i < indent * depth; i++)
            sb.append(' ');
    }

    /** Lists of scalars stay on one line in the indented form. */
    private static boolean flat(Collection<?> c) {
        for (Object o : c)
            if (o instanceof Map || o instanceof Collection)
                return false;
        return true;
    }

    private static void write(StringBuilder sb, Object v, int indent, int depth) {
        if (v == null)
            sb.append("null");
        else if (v instanceof String)
            str(sb, (String)v);
        else if (v instanceof Boolean)
            sb.append(v);
        else if (v instanceof Double || v instanceof Float) {
            double d = ((Number)v).doubleValue();
            if (Double.isFinite(d))
                sb.append(v);
            else
                str(sb, v.toString());
        }
        else if (v instanceof Number)
            sb.append(v);
        else if (v instanceof Character)
            str(sb, v.toString());
        else if (v instanceof Map) {
            Map<?, ?> m = (Map<?, ?>)v;
            if (m.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first)
                    sb.append(',');
                first = false;
                newline(sb, indent, depth + 1);
                str(sb, String.valueOf(e.getKey()));
                sb.append(indent < 0 ? ":" : ": ");
                write(sb, e.getValue(), indent, depth + 1);
            }
            newline(sb, indent, depth);
            sb.append('}');
        }
        else if (v instanceof Collection) {
            Collection<?> c = (Collection<?>)v;
            if (c.isEmpty()) {
                sb.append("[]");
                return;
            }
            int ind = flat(c) ? -1 : indent;
            sb.append('[');
            boolean first = true;
            for (Object o : c) {
                if (!first)
                    sb.append(ind < 0 && indent >= 0 ? ", " : ",");
                first = false;
                newline(sb, ind, depth + 1);
                write(sb, o, indent, depth + 1);
            }
            newline(sb, ind, depth);
            sb.append(']');
        }
        else
            str(sb, v.toString());
    }

    private static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20)
                        sb.append(String.format("\\u%04x", (int)c));
                    else
                        sb.append(c);
            }
        }
        sb.append('"');
    }

    static String hex(byte[] b) {
        if (b == null)
            return null;
        char[] digits = "0123456789abcdef".toCharArray();
        char[] out = new char[b.length * 2];
        for (int i = 0; i < b.length; i++) {
            out[2 * i] = digits[(b[i] >> 4) & 0xf];
            out[2 * i + 1] = digits[b[i] & 0xf];
        }
        return new String(out);
    }

    /**
     * A JSON object of one level (strings, numbers, booleans, null), as walcut's JSON Lines
     * give one: each field's value as text (a string unescaped, null as null).
     */
    static Map<String, String> flatObject(String text) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        int[] at = {skip(text, 0)};
        expect(text, at, '{');
        if (peek(text, at) == '}')
            return out;
        while (true) {
            String key = string(text, at);
            expect(text, at, ':');
            String value;
            if (peek(text, at) == '"')
                value = string(text, at);
            else {
                int start = at[0];
                while (at[0] < text.length() && ",} \t".indexOf(text.charAt(at[0])) < 0)
                    at[0]++;
                value = text.substring(start, at[0]);
                if (value.equals("null"))
                    value = null;
            }
            out.put(key, value);
            char c = peek(text, at);
            at[0]++;
            if (c == '}')
                return out;
            if (c != ',')
                throw new IllegalArgumentException("expected , or } at " + (at[0] - 1) + ": " + text);
        }
    }

    private static int skip(String t, int i) {
        while (i < t.length() && Character.isWhitespace(t.charAt(i)))
            i++;
        return i;
    }

    private static char peek(String t, int[] at) {
        at[0] = skip(t, at[0]);
        if (at[0] >= t.length())
            throw new IllegalArgumentException("cut short: " + t);
        return t.charAt(at[0]);
    }

    private static void expect(String t, int[] at, char c) {
        if (peek(t, at) != c)
            throw new IllegalArgumentException("expected " + c + " at " + at[0] + ": " + t);
        at[0]++;
    }

    private static String string(String t, int[] at) {
        expect(t, at, '"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (at[0] >= t.length())
                throw new IllegalArgumentException("string cut short: " + t);
            char c = t.charAt(at[0]++);
            if (c == '"')
                return sb.toString();
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = t.charAt(at[0]++);
            switch (e) {
                case 'n': sb.append('\n'); break;
                case 't': sb.append('\t'); break;
                case 'r': sb.append('\r'); break;
                case 'b': sb.append('\b'); break;
                case 'f': sb.append('\f'); break;
                case 'u': sb.append((char)Integer.parseInt(t.substring(at[0], at[0] + 4), 16)); at[0] += 4; break;
                default: sb.append(e);
            }
        }
    }
}
