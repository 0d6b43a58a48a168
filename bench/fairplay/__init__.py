"""The fair-play audits against honest fields and against cheaters we wrote."""
