// A starter bot in Go: plays a random legal action (any game).
// Reads one JSON message a line from standard input, answers "hello" with "ready" and
// every "act" with the index of a legal action; logs go to standard error.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"time"
)

type message struct {
	Type  string            `json:"type"`
	Game  json.RawMessage   `json:"game"`
	Bot   int               `json:"bot"`
	Legal []json.RawMessage `json:"legal"`
}

func main() {
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<22) // observations can be long lines
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var m message
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "bad message:", err)
			continue
		}
		switch m.Type {
		case "hello":
			fmt.Fprintf(os.Stderr, "playing %s as bot %d\n", m.Game, m.Bot)
			fmt.Fprintln(out, `{"type":"ready"}`)
		case "act":
			fmt.Fprintf(out, "{\"type\":\"action\",\"action\":%d}\n", rng.Intn(len(m.Legal)))
		case "match_over":
			return
		}
		out.Flush()
	}
}
