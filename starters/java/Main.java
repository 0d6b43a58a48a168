// A starter bot in Java: plays a random legal action (any game).
// Reads one JSON message a line from standard input, answers "hello" with "ready" and
// every "act" with the index of a legal action; logs go to standard error. The standard
// library has no JSON parser: this bot reads just the two things it needs, the message's
// "type" and how many entries its "legal" list has.
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Random;

public class Main {
    /** The string value of key at the message's top level (good enough for our messages). */
    static String stringField(String line, String key) {
        int at = line.indexOf("\"" + key + "\"");
        if (at < 0) return "";
        int start = line.indexOf('"', line.indexOf(':', at) + 1) + 1;
        return line.substring(start, line.indexOf('"', start));
    }

    /** How many entries the list "legal" holds: its top-level commas plus one. */
    static int countLegal(String line) {
        int depth = 0, count = 1;
        boolean inString = false;
        for (int i = line.indexOf('[', line.indexOf("\"legal\"")); i < line.length(); i++) {
            char c = line.charAt(i);
            if (inString) {
                if (c == '\\') i++;
                else if (c == '"') inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '[' || c == '{') {
                depth++;
            } else if (c == ']' || c == '}') {
                if (--depth == 0) break;
            } else if (c == ',' && depth == 1) {
                count++;
            }
        }
        return count;
    }

    public static void main(String[] args) throws IOException {
        Random random = new Random();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            switch (stringField(line, "type")) {
                case "hello" -> {
                    System.err.println("playing " + stringField(line, "game"));
                    System.out.println("{\"type\":\"ready\"}");
                }
                case "act" -> System.out.println(
                        "{\"type\":\"action\",\"action\":" + random.nextInt(countLegal(line)) + "}");
                case "match_over" -> { return; }
                default -> { }
            }
            System.out.flush();
        }
    }
}
