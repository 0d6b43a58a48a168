"""Bots and their versions: names people choose, uploads, and the check a new version passes
before it may play rated games."""
