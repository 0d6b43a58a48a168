"""The REST API (Django REST framework); docs/api.md lists the routes and who may do what.

Views live by resource (accounts, bots, tournaments, matches, games); who may do what is
decided in permissions, state changes beyond the rooms' own actions in actions.
"""
