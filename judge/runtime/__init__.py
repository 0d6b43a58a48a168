"""The bot runtime: ``botkit.py``, put on bots' PYTHONPATH and copied into the bot image.

Nothing else belongs in this folder: everything here is visible to every bot.
"""
