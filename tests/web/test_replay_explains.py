"""The replay viewer explains, in a real browser: play and pause, the scrubber, a move list
to click, a link to every step, keys after the dropdowns, the outcome in words with bots
named, faults at their step with the offending answer, the owner's log cut by game, and a
phone's first screen with cards and controls that stay in reach."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import (
    SECRET_LOG,
    Visit,
    log_in,
    make_user,
    played_tournament,
    quick_bot,
    uploaded_bot,
)
from tournaments.bots import bot_actions
from tournaments.models import BotVersion, Match, Replay, bundle_code
from tournaments.play import replay_store
from tournaments.web.replays import frames

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_matches"),
    pytest.mark.filterwarnings("ignore::sandbox.local.NotASandboxWarning"),
]

COUNTER = "#rv-counter"


def played(game: str, players: int, **fields: object) -> Match:
    owner = make_user(f"{game}-fan")
    entrants = [quick_bot(owner, game, f"{game}-{i}", "greedy") for i in range(players)]
    tournament = played_tournament(owner, game, entrants, table_size=players, **fields)
    return Match.objects.get(tournament=tournament)


def frames_of(match: Match, game: int = 0) -> dict[str, Any]:
    record = replay_store.load(Replay.objects.get(match=match))
    return frames(record, game, None)


def words(line: list[Any]) -> str:
    """A line's words without its cards."""
    return "".join(part for part in line if isinstance(part, str))


def head(line: list[Any]) -> str:
    """A line's words up to its first cards, as the page shows them in one piece."""
    text = ""
    for part in line:
        if not isinstance(part, str):
            break
        text += part
    return text


def open_viewer(visit: Visit, match: Match, fragment: str = "") -> Page:
    visit.go(f"/matches/{match.pk}/{fragment}")
    expect(visit.page.locator(COUNTER)).to_have_text(re.compile(r"step \d+ of \d+"))
    return visit.page


def test_play_pause_scrubber_move_list_and_links_to_steps(visit: Visit) -> None:
    match = played("fifteen35", 3, options={"hands": 2}, seed=5)
    data = frames_of(match)
    total = len(data["steps"])
    page = open_viewer(visit, match)
    expect(page.locator(COUNTER)).to_have_text(f"step 1 of {total}")

    page.locator("#rv-play").click()
    expect(page.locator("#rv-play")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(COUNTER)).to_have_text(re.compile(r"step ([3-9]|\d\d+) of"))
    page.locator("#rv-play").click()
    expect(page.locator("#rv-play")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#rv-play")).to_have_text("▶ Play")

    page.locator("#rv-scrub").fill("20")
    expect(page.locator(COUNTER)).to_have_text(f"step 21 of {total}")
    assert page.evaluate("window.location.hash") == "#g1s21"

    moves = page.locator("#rv-moves > li")
    expect(moves).to_have_count(total + 1)  # every step, then the end
    moves.nth(4).locator("a").click()
    expect(page.locator(COUNTER)).to_have_text(f"step 5 of {total}")
    expect(moves.nth(4).locator("a")).to_have_attribute("aria-current", "step")
    seat = data["steps"][4]["seat"]
    expect(moves.nth(4)).to_contain_text(data["names"][seat])
    visit.check("moves-and-scrubber")

    page = open_viewer(visit, match, "#g1s34")
    expect(page.locator(COUNTER)).to_have_text(f"step 34 of {total}")
    page.goto(page.url.split("#")[0] + "#g1end")
    expect(page.locator(COUNTER)).to_have_text(f"end of game ({total} steps)")


def test_keys_still_step_after_choosing_in_a_dropdown(visit: Visit) -> None:
    match = played("bigtwo", 4)
    page = open_viewer(visit, match)
    seat = page.locator("#rv-seat")
    seat.focus()
    page.keyboard.press("ArrowDown")  # the dropdown's own key: the view of the first seat
    expect(seat).to_have_value("0")
    expect(page.locator(".seat-box.viewer-seat")).to_have_count(1)
    page.keyboard.press("ArrowRight")
    expect(page.locator(COUNTER)).to_have_text(re.compile(r"step 2 of"))
    page.locator("#rv-speed").select_option("5")
    page.keyboard.press("End")
    expect(page.locator(COUNTER)).to_have_text(re.compile(r"end of game"))
    page.keyboard.press("Home")
    expect(page.locator(COUNTER)).to_have_text(re.compile(r"step 1 of"))


def test_fifteen_thirty_five_says_best_totals_declarations_and_the_split(visit: Visit) -> None:
    match = played("fifteen35", 3, options={"hands": 3}, seed=5)
    data = frames_of(match)
    said = [words(event["say"]) for event in data["events"]]
    assert any("best total" in line and "for 15" in line for line in said), said
    assert any("declared" in line for line in said), said
    assert any("Chips won" in line for line in said), said
    page = open_viewer(visit, match)
    names = data["names"]
    expect(page.locator(".seat-box h3")).to_have_text(names)
    first = data["events"][0]
    expect(page.locator("#rv-moves")).to_contain_text(head(first["say"]))
    page.locator("#rv-moves > li").nth(first["step"] - 1).locator("a").click()
    page.keyboard.press("ArrowRight")  # the step after the action that ended the hand
    expect(page.locator(COUNTER)).to_have_text(re.compile(f"step {first['step'] + 1} of"))
    for event in data["events"]:
        if event["step"] == first["step"]:
            expect(page.locator("#rv-step")).to_contain_text(head(event["say"]))
    page.keyboard.press("End")
    ending = page.locator("#rv-step .outcome")
    expect(ending).to_contain_text("How it ended")
    winner = names[data["result"]["places"].index(1)]
    expect(ending).to_contain_text(f"{winner} won")
    expect(page.locator("#rv-table")).not_to_contain_text(re.compile(r"\bseat \d"))
    visit.check("fifteen35-outcome")


def test_oceans_eleven_says_why_the_loser_conceded_and_big_two_who_went_out(
    visit: Visit,
) -> None:
    oceans = played("oceans11", 2, seed=3)
    data = frames_of(oceans)
    conceded = [e["say"] for e in data["events"] if "conceded" in words(e["say"])]
    assert conceded, "this seed has a conceded hand"
    page = open_viewer(visit, oceans)
    expect(page.locator("#rv-moves")).to_contain_text(head(conceded[0]))
    expect(page.locator("#rv-moves .event").first).to_contain_text(re.compile(r"pair|high card"))
    page.keyboard.press("End")
    expect(page.locator("#rv-step .outcome")).to_contain_text(re.compile(r"won the game \d+ hands"))
    visit.check("oceans11-outcome")

    bigtwo = played("bigtwo", 4)
    data = frames_of(bigtwo)
    assert len(data["steps"]) > 8
    page = open_viewer(visit, bigtwo)
    expect(page.locator("#rv-moves > li")).to_have_count(len(data["steps"]) + 1)
    page.keyboard.press("End")
    expect(page.locator("#rv-step .outcome")).to_contain_text("went out")
    expect(page.locator("#rv-step .outcome")).to_contain_text(head(data["outcome"][0]))
    left = data["revealed"]["deals"][-1]["left"]
    shown = page.locator("#rv-step .outcome .card")
    expect(shown).to_have_count(sum(len(cards) for cards in left))
    visit.check("bigtwo-outcome")


#: Answers its second decision of the second game with a line that is not JSON.
FAULTY = """\
import json, sys
acts = {}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        game = message["game"]
        acts[game] = acts.get(game, 0) + 1
        if game == 1 and acts[game] == 2:
            print("SURPRISE not json", flush=True)
        else:
            print(json.dumps({"type": "action", "action": 0}), flush=True)
    elif message["type"] == "game_over":
        print("game over", message["game"], file=sys.stderr, flush=True)
    elif message["type"] == "match_over":
        break
"""


def faulty_bot(owner: Any, game: str, name: str) -> BotVersion:
    bot = bot_actions.create_bot(owner, game, name)
    code, digest = bundle_code({"main.py": FAULTY.encode()})
    return bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)


def test_a_fault_names_the_bot_counts_from_one_and_links_to_its_step(visit: Visit) -> None:
    owner = make_user("ada")
    version = faulty_bot(owner, "oceans11", "wobbly")
    house = bot_actions.house_version("oceans11", "greedy")
    tournament = played_tournament(owner, "oceans11", [version, house], games_per_pairing=2)
    match = Match.objects.get(tournament=tournament)
    (fault,) = match.faults
    assert (fault["bot"], fault["game"]) == (match.seats.get(version=version).index, 1)
    step = fault["move"] + 1
    page = visit.page
    visit.go(f"/matches/{match.pk}/")
    faults = page.locator("ul.faults")
    expect(faults).to_contain_text("wobbly")
    expect(faults).not_to_contain_text("bot 0")
    expect(faults).to_contain_text("SURPRISE not json")
    link = faults.get_by_role("link", name=re.compile(f"game 2, step {step}\\b"))
    expect(link).to_have_attribute("href", f"#g2s{step}")
    link.click()
    expect(page.locator("#rv-game")).to_have_value("1")
    expect(page.locator(COUNTER)).to_have_text(re.compile(f"step {step} of"))
    box = page.locator("#rv-fault")
    expect(box).to_contain_text("Fault of wobbly")
    expect(box.locator(".fault-answer")).to_contain_text("SURPRISE not json")
    expect(page.locator("#rv-moves li.faulty")).to_have_count(1)
    visit.check("fault-at-its-step")


def test_the_owners_log_is_cut_by_game_with_each_seat_and_a_link(visit: Visit) -> None:
    owner = make_user("ada")
    version = uploaded_bot(owner, "oceans11", "talker")
    house = bot_actions.house_version("oceans11", "greedy")
    tournament = played_tournament(owner, "oceans11", [version, house], duplicate=True)
    match = Match.objects.get(tournament=tournament)
    index = match.seats.get(version=version).index
    seats = [game["seating"].index(index) + 1 for game in match.result["games"]]  # type: ignore[index]
    assert sorted(seats) == [1, 2]  # the duplicate seating rotates the seats
    log_in(visit, "ada")
    page = visit.page
    visit.go(f"/bots/{version.bot_id}/")
    page.locator(".private details summary", has_text=f"match {match.pk}").click()
    page.get_by_role("link", name=re.compile(f"Match {match.pk}: this log cut by game")).click()
    expect(page.locator("#logs")).to_be_in_viewport()
    visit.audit()
    parts = page.locator(".private details.log-part")
    expect(parts).to_have_count(2)
    for game, seat in enumerate(seats):
        part = parts.nth(game)
        expect(part.locator("summary")).to_contain_text(f"game {game + 1}, seat {seat}")
        part.locator("summary").click()
        expect(part.locator("pre")).to_contain_text(f"{SECRET_LOG} game over")
        assert part.locator("pre").inner_text().count("game over") == 1
    parts.nth(1).get_by_role("link", name="Game 2 in the replay").click()
    expect(page.locator("#rv-game")).to_have_value("1")
    expect(page.locator(COUNTER)).to_have_text(re.compile(r"step 1 of"))
    visit.check("log-by-game")
    page.set_viewport_size({"width": 390, "height": 844})
    open_viewer(visit, match)
    on_first_screen(page)  # the owner's logs go below the replay on a phone


def on_first_screen(page: Page) -> None:
    first = page.locator("#rv-table .card").first
    expect(first).to_be_visible()
    box = first.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844, box


def test_a_phone_shows_cards_on_the_first_screen_and_keeps_the_controls_in_reach(
    visit: Visit,
) -> None:
    page = visit.page
    page.set_viewport_size({"width": 390, "height": 844})
    match = played("bigtwo", 4)
    open_viewer(visit, match)
    on_first_screen(page)
    legal = page.locator("#rv-step .legal")
    if legal.evaluate("node => node.tagName") == "DETAILS":  # many choices fold on a phone
        expect(legal).not_to_have_attribute("open", "")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    visit.check("phone-first-screen")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight * 0.6)")
    page.wait_for_function("window.scrollY > 200")
    step = page.locator("#rv-next")
    there = step.bounding_box()
    assert there is not None and there["y"] >= 0 and there["y"] + there["height"] <= 844, there
    step.click(no_wait_after=True)
    expect(page.locator(COUNTER)).to_have_text(re.compile(r"step 2 of"))
    visit.check("phone-scrolled")


def test_the_words_show_no_card_the_seats_own_view_hides() -> None:
    """Each seat's frames tell only showdown cards, and only once its view shows them."""
    match = played("fifteen35", 3, options={"hands": 3}, seed=5)
    record = replay_store.load(Replay.objects.get(match=match))
    for seat in range(3):
        seen = frames(record, 0, seat)
        told = 0
        for event in seen["events"]:
            at = event["step"]
            view = seen["steps"][at]["view"] if at < len(seen["steps"]) else seen["final"]
            shown = {card for cards in view["last_hand"]["showdown"].values() for card in cards}
            for part in event["say"]:
                if isinstance(part, dict):
                    assert set(part["cards"]) <= shown
                    told += 1
        assert told  # the showdowns are told, with their cards
