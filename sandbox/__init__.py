"""Running untrusted bot code: a Docker backend (production) and a local-process backend
(development only: it is not a security boundary). Both give the referee a line channel
(``sandbox.channel.Channel``). Imports the standard library and the Docker SDK only.
"""
