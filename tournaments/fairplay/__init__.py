"""Fair play: audits of the stored results for what the sandbox cannot stop (issue 43).

A bot can carry a deal between the rotations of a duplicate match through the host's
kernel caches, or tell a tablemate its hand (docs/sandbox.md, "What crosses"). The audits
here read the stored match results and flag the versions whose results show it: the
rotation-order audit (``rotation_order``), the collusion audit (``collusion``); ``flags``
stores what they find for staff, ``voiding`` takes a version's results out of the ratings.
"""
