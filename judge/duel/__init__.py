"""Duels: is version B stronger than version A? Duplicate pairs decided by a sequential test.

``sprt`` holds the statistic (pentanomial pair counts, the log-likelihood ratio, the plain
Elo estimate), ``stopped`` the estimate and interval that allow for when the test stopped
(what a duel shows), ``theory`` what the test should achieve (its operating characteristic and
average sample number), ``pairs`` how a duel seats B, A and the panel and scores a pair.
Standard library only, so the service, the command line and the bench share it.
"""
