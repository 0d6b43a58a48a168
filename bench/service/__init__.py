"""The match service end to end: workers, pages at a big site's size, writes, start-up."""
