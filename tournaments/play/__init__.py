"""Playing matches: the scheduler that sends them to workers, the lease a worker holds on a
match, the Celery tasks, the runner that puts bots in the sandbox, clocks and replay files."""
