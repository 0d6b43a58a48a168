"""The one rating's coverage bot by bot in one cell of bench.ratings.calibration_ladder.

Runs the cell's sites exactly as ``calibration_ladder --seed S`` does (the same seeds of
play) and, at each checkpoint of plays, prints for every bot (numbered by true strength,
as the library or the model numbers them) how often its 95% interval held the truth, its
mean error (the one rating less the field's mean against the truth less the truth's mean;
positive: rated too high), the error's spread and the mean deviation shown. A cell's
coverage below the band with a few bots far under it and their errors one-signed is a
bias, not a deviation too narrow everywhere (the real open Fifteen Thirty-Five 6p cell:
docs/ratings.md).

``--start-deviation D`` and ``--field-prior D`` are experiments, not settings: every module
of the rating model that reads ``skill.START_DEVIATION`` (the prior every bot's own rating
starts from, 350) and a new Skill's variance read D instead, or the field pass's prior
(``skill.FIELD_PRIOR_DEVIATION``, 500) is D, in this process only, so that whether a
prior's pull makes a cell's bias can be seen (at 350 the field pass rated the real open
Fifteen Thirty-Five field's strongest bot 221 Elo low at 5 plays).

Run: ``python -m bench.ratings.coverage_by_bot --results engine --only open --seats 6
--game fifteen35 [--bots B] [--sites N] [--seed S] [--start-deviation D]`` (100 sites of
that cell: about 10 s at load 4).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from collections import defaultdict

from bench.ratings import calibration_ladder as ladder
from tournaments.rating.model import (
    field,
    field_deviations,
    field_dispersion,
    field_system,
    global_rating,
    skill,
)

#: Per tally (one checkpoint), per bot: (error, deviation) of every site.
Errors = dict[int, dict[int, list[tuple[float, float]]]]


def start_from(deviation: float) -> None:
    """Make the prior's deviation ``deviation`` for this process (``--start-deviation``)."""
    for module in (skill, field, global_rating):
        module.START_DEVIATION = deviation  # type: ignore[attr-defined]
    names = [f.name for f in dataclasses.fields(skill.Skill) if f.init]
    defaults = list(skill.Skill.__init__.__defaults__ or ())
    defaults[names.index("variance") - (len(names) - len(defaults))] = deviation**2
    skill.Skill.__init__.__defaults__ = tuple(defaults)
    if skill.Skill().variance != deviation**2:
        raise RuntimeError("a new Skill's variance did not follow the prior")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("ladder", "linked", "closed", "open"), required=True)
    parser.add_argument("--seats", type=int, required=True)
    parser.add_argument("--game", required=True)
    parser.add_argument("--bots", type=int, default=8, help="ignored for open (12)")
    parser.add_argument("--results", choices=("model", "engine"), default="model")
    parser.add_argument("--sites", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start-deviation", type=float, help="experiment: the start's, not 350")
    parser.add_argument("--field-prior", type=float, help="experiment: the pass's, not 500")
    args = parser.parse_args()
    if args.start_deviation:
        start_from(args.start_deviation)
    if args.field_prior:
        field_system.FIELD_PRIOR_DEVIATION = args.field_prior
    setting = next(
        s
        for s in ladder.SETTINGS
        if s.schedule == args.only
        and s.seats == args.seats
        and s.game == args.game
        and (s.bots == args.bots or s.schedule == "open")
    )
    setting = dataclasses.replace(setting, results=args.results)
    errors: Errors = defaultdict(lambda: defaultdict(list))
    count = ladder.check

    def check(snapshot: ladder.Snapshot, true: dict[int, float], tally: ladder.Tally) -> None:
        count(snapshot, true, tally)
        skills = {b: s for b, s in snapshot.skills.items() if b in true}
        found = field_dispersion.measured_field(skills, snapshot.units, chosen=snapshot.chosen)
        shown = field_deviations.against_mean(found)
        mean = statistics.fmean(found.elo[b] for b in skills)
        true_mean = statistics.fmean(true[b] for b in skills)
        for b in skills:
            error = (found.elo[b] - mean) - (true[b] - true_mean)
            errors[id(tally)][b].append((error, shown[b]))

    ladder.check = check
    tallies = ladder.measure(setting, args.sites, args.seed * 1000, 0)
    prior = f", start {args.start_deviation:.0f}" if args.start_deviation else ""
    prior += f", field prior {args.field_prior:.0f}" if args.field_prior else ""
    cell = f"{args.only} {args.game} {args.seats}p, {args.results}{prior}"
    print(f"{cell}, {args.sites} sites, seed {args.seed}")
    for plays, tally in tallies.items():
        whole = tally.bot["refit"].coverage()
        print(f"at {plays} plays, the cell's bot coverage {whole:.3f}; by bot:")
        print("  bot, coverage, mean error, its sd, mean deviation (Elo)")
        for bot, found in sorted(errors[id(tally)].items()):
            held = sum(abs(e) <= ladder.Z95 * d for e, d in found) / len(found)
            mistakes = [e for e, _ in found]
            print(
                f"  {bot:3} {held:6.3f} {statistics.fmean(mistakes):+8.1f} "
                f"{statistics.pstdev(mistakes):6.1f} {statistics.fmean(d for _, d in found):6.1f}"
            )


if __name__ == "__main__":
    main()
