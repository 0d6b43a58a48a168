"""Issue 31, item 4: a bad bot.json is refused at upload (400 naming the problem), before
any quota is spent, anything is stored or a check is queued; the web form says the same."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.tournaments.test_uploads import owner_bot as owner_bot  # the fixture
from tests.tournaments.test_uploads import upload, zipped
from tournaments.guard import quotas
from tournaments.models import BotVersion

BAD = {
    "not JSON": (b"{language: python", "bot.json is not valid JSON"),
    "unknown language": (b'{"language": "cobol"}', "unknown language 'cobol'"),
    "other keys": (b'{"language": "python", "run": "rm -rf /"}', 'only "language" and "flags"'),
    "flags on python": (b'{"language": "python", "flags": ["-O2"]}', "are not compiled"),
    "no such entry": (b'{"language": "cpp"}', "there is no main.cpp"),
    "too large": (b'{"language": "python"}' + b" " * 5000, "bot.json is larger than"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_bot_json_is_a_400_and_costs_nothing(
    case: str, owner_bot: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    client, bot = owner_bot
    settings.QUOTA_UPLOADS_PER_HOUR = 1
    bot_json, message = BAD[case]
    with django_capture_on_commit_callbacks() as callbacks:
        for _ in range(3):  # over the quota of one, were a refusal counted
            data = zipped(("main.py", b"pass\n"), ("bot.json", bot_json))
            answer = upload(client, bot, "bot.zip", data)
            assert answer.status_code == 400, answer.content
            assert message in answer.json()["file"][0]
    assert BotVersion.objects.count() == 0
    assert callbacks == []
    quotas.check_upload(bot.owner)  # the hour's one upload is still there
    good = upload(client, bot, "bot.zip", zipped(("main.py", b"pass\n"), ("bot.json", b"{}")))
    assert good.status_code == 201, good.content


def test_the_web_upload_form_says_what_is_wrong_with_bot_json(owner_bot: Any) -> None:
    _, bot = owner_bot
    web = Client()
    web.force_login(bot.owner)
    data = zipped(("main.py", b"pass\n"), ("bot.json", b'{"language": "cobol"}'))
    answer = web.post(f"/bots/{bot.pk}/upload/", {"code": SimpleUploadedFile("bot.zip", data)})
    assert "unknown language" in answer.content.decode()
    assert BotVersion.objects.count() == 0
