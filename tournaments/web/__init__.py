"""The web pages: server-rendered Django views with a little JavaScript (docs/web.md)."""
