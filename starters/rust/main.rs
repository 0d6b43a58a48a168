// A starter bot in Rust: plays a random legal action (any game).
// Reads one JSON message a line from standard input, answers "hello" with "ready" and
// every "act" with the index of a legal action; logs go to standard error. The standard
// library has no JSON parser (and the sandbox has no crates): this bot reads just the two
// things it needs, the message's "type" and how many entries its "legal" list has.
use std::io::{self, BufRead, Write};
use std::time::{SystemTime, UNIX_EPOCH};

/// The string value of `key` at the message's top level (good enough for our messages).
fn string_field<'a>(line: &'a str, key: &str) -> &'a str {
    let at = match line.find(&format!("\"{}\"", key)) {
        Some(at) => at,
        None => return "",
    };
    let rest = &line[at + key.len() + 2..];
    let rest = &rest[rest.find('"').map_or(rest.len(), |i| i + 1)..];
    &rest[..rest.find('"').unwrap_or(rest.len())]
}

/// How many entries the list "legal" holds: its top-level commas plus one.
fn count_legal(line: &str) -> u64 {
    let start = line.find("\"legal\"").unwrap_or(0);
    let (mut depth, mut count, mut in_string, mut escaped) = (0, 1, false, false);
    for c in line[start..].chars().skip_while(|&c| c != '[') {
        if in_string {
            if escaped { escaped = false } else if c == '\\' { escaped = true } else if c == '"' { in_string = false }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => depth += 1,
            ']' | '}' => { depth -= 1; if depth == 0 { break } }
            ',' if depth == 1 => count += 1,
            _ => {}
        }
    }
    count
}

fn main() {
    let mut seed = SystemTime::now().duration_since(UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64) | 1;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in io::stdin().lock().lines() {
        let line = line.expect("standard input");
        match string_field(&line, "type") {
            "hello" => {
                eprintln!("playing {}", string_field(&line, "game"));
                writeln!(out, "{{\"type\":\"ready\"}}").unwrap();
            }
            "act" => {
                seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;  // xorshift
                let choice = seed % count_legal(&line);
                writeln!(out, "{{\"type\":\"action\",\"action\":{}}}", choice).unwrap();
            }
            "match_over" => return,
            _ => {}
        }
        out.flush().unwrap();
    }
}
