// Writes the expected values of java_case_test.cpp with the JVM's own String case mappings:
//   java JavaCase.java single > single.tsv   every code point that either mapping changes
//   java JavaCase.java words > words.tsv     seeded random strings around 'Σ' (final sigma)
// Columns: input, toUpperCase(Locale.ROOT), toLowerCase(Locale.ROOT), as hex code points.
import java.util.Locale;
import java.util.Random;

public class JavaCase {
    public static void main(String[] args) {
        StringBuilder out = new StringBuilder();
        out.append("# ").append(System.getProperty("java.version")).append(", Unicode data of that JDK\n");
        if (args[0].equals("single")) {
            for (int cp = 0; cp <= 0x10FFFF; cp++) {
                if (cp >= 0xD800 && cp <= 0xDFFF) continue;
                String s = new String(Character.toChars(cp));
                if (s.toUpperCase(Locale.ROOT).equals(s) && s.toLowerCase(Locale.ROOT).equals(s)) continue;
                line(out, s);
            }
        } else {
            // Letters, cased non-letters, digits, marks, format characters, and the punctuation
            // that BreakIterator's word rules treat specially; nothing past the BMP, where
            // BreakIterator.isBoundary looks between the two halves of a surrogate pair.
            String[] alphabet = {"Α", "Σ", "Σ", "Σ", "σ", "ς", "a", "B", "ʰ", "1", "2", "Ⅻ", ".", "'",
                "\"", ",", "-", "_", " ", "$", "%", "#", "&", "\u0301", "\u0345", "\u200b", "\u00ad",
                "漢", "か", "\u0964", "!", "Ⓐ", "İ", "ß", "\u2027", "\u066b", "¢", "€", "\u0903"};
            Random r = new Random(20261130);
            for (int n = 0; n < 4000; n++) {
                StringBuilder s = new StringBuilder();
                for (int k = 1 + r.nextInt(9); k > 0; k--) s.append(alphabet[r.nextInt(alphabet.length)]);
                line(out, s.toString());
            }
        }
        System.out.print(out);
    }

    static void line(StringBuilder out, String s) {
        out.append(hex(s)).append('\t').append(hex(s.toUpperCase(Locale.ROOT))).append('\t')
            .append(hex(s.toLowerCase(Locale.ROOT))).append('\n');
    }

    static String hex(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> b.append(b.length() > 0 ? " " : "").append(Integer.toHexString(c)));
        return b.toString();
    }
}
