// A starter bot in JavaScript (Node.js): plays a random legal action (any game).
// Reads one JSON message a line from standard input, answers "hello" with "ready" and
// every "act" with the index of a legal action; logs go to standard error.
"use strict";
const readline = require("readline");

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    console.error(`playing ${message.game} as bot ${message.bot}`);
    process.stdout.write(JSON.stringify({ type: "ready" }) + "\n");
  } else if (message.type === "act") {
    const choice = Math.floor(Math.random() * message.legal.length);
    process.stdout.write(JSON.stringify({ type: "action", action: choice }) + "\n");
  } else if (message.type === "match_over") {
    process.exit(0);
  }
});
