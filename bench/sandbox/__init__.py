"""What the sandbox costs: Docker against local processes, runtimes, CPU clocks, lifecycles."""
